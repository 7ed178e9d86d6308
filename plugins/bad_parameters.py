"""A table page's parameter that Datasette reads unchecked (`_through`, `col__in` as JSON, `_facet*`, `_timelimit`,
`_next`, `_sort`) is, when it makes the page fail, a 400 that names it, not a 500; any other failure stays a 500.
"""

import json

from datasette import hookimpl
from datasette.handle_exception import handle_exception as datasette_handle_exception
from datasette.views.base import DatasetteError

THROUGH = 'must be JSON like {"table": "t", "column": "c", "value": "v"}'


def _json(value: str):
    try:
        return json.loads(value)
    except ValueError:
        return None


def fault(key: str, value: str) -> str | None:
    """Why `key=value` cannot be read by Datasette's table page, or None."""
    if key == "_through":
        through = _json(value)
        readable = isinstance(through, dict) and "value" in through
        if not readable or not all(isinstance(through.get(k), str) for k in ("table", "column")):
            return f"_through {THROUGH}"
        return None
    if key.endswith(("__in", "__notin")) and value.startswith("["):
        if not isinstance(_json(value), list):
            return f'{key} must be a JSON list like ["a", "b"], or values separated by commas'
        return None
    if key.startswith("_facet") and value.startswith("{"):  # Datasette reads every _facet* value so, _facet_size too
        facet = _json(value)
        if not isinstance(facet, dict) or not isinstance(facet.get("column") or facet.get("simple"), str):
            return f'{key} must be a column name, or JSON like {{"column": "kind"}}'
        return None
    if key in ("_timelimit", "_next") and not value.strip().isdigit():
        return f"{key} must be a whole number here" if key == "_timelimit" else None
    return None


SUSPECTS = ("_through", "_timelimit", "_next", "_sort", "_sort_desc")


def at_fault(request) -> list[tuple[str, str]]:
    """The parameters of `request` that Datasette reads unchecked."""
    return [
        (key, value)
        for key in request.args
        for value in request.args.getlist(key)
        if key in SUSPECTS or key.endswith(("__in", "__notin")) or key.startswith("_facet")
    ]


@hookimpl
def handle_exception(datasette, request, exception):
    if "table" not in request.url_vars or (isinstance(exception, DatasetteError) and exception.status != 500):
        return None
    if not (suspects := at_fault(request)):
        return None  # not a parameter's fault: a bug, and a 500
    message = next((m for key, value in suspects if (m := fault(key, value))), None)
    if message is None:
        if not isinstance(exception, DatasetteError):
            keys = ", ".join(dict.fromkeys(key for key, _ in suspects))
            message = f"{keys}: cannot be read ({exception})"
        else:
            message = exception.message  # Datasette's own sentence: "Cannot sort table by nope"
    return datasette_handle_exception(datasette, request, DatasetteError(message, status=400, title="Bad parameter"))
