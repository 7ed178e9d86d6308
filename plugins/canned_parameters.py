"""The canned queries' parameters, read as the CLI reads them: a bad one is a 400 that says why (SQL cannot refuse
a value: strftime reads `as_of=2026` as a Julian day, CAST reads `budget=abc` as 0); `as_of` reaches the SQL as
canonical UTC text. A column that holds JSON (canned.JSON_COLUMNS) comes as JSON in the query's JSON (`_json=`).
"""

import re
from urllib.parse import parse_qsl, urlencode

from datasette import hookimpl
from datasette.utils import tilde_decode
from datasette.utils.asgi import Response

from indexer.index.database import DATABASE
from indexer.sql.canned import JSON_COLUMNS, PARAMS, RECALL_MAX
from indexer.store.timestamps import normalize

# Datasette's own route to a table or query page (app.py): names as written, tilde-encoded or not
# (`/seamless/brief~69ng.json` is the briefing), with any output extension (.json, .md, .csv)
TABLE_ROUTE = re.compile(r"/(?P<database>[^\/\.]+)/(?P<table>[^\/\.]+)(\.(?P<format>\w+))?$")
WHOLE_NUMBER = re.compile(r"[0-9]+")
# parameter: (least value, what it must be), as the CLI's --budget and --limit
WHOLE_NUMBERS = {
    "budget": (0, "a whole number of characters (0 or more)"),
    "limit": (1, f"a whole number of results (1 or more; at most {RECALL_MAX} are given)"),
}


# recall's all=: on (every word must match) or off, as the SQL reads it (canned.RECALL_PARAMS); '' is off
SWITCH = ("", "1", "true", "yes", "on", "0", "false", "no", "off")


def checked_parameters(query: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`pairs` (a query string's) with as_of made canonical; ValueError naming the first bad parameter."""
    names = PARAMS.get(query, ())
    checked = []
    for key, value in pairs:
        if key == "as_of" and "as_of" in names and value.strip():
            try:
                value = normalize(value)
            except ValueError as e:
                raise ValueError(f"as_of: {e}") from None
        elif key == "all" and "all" in names and value.strip().lower() not in SWITCH:
            raise ValueError(f"all: {value!r} is not 1 (every word must match) or 0")
        elif key in WHOLE_NUMBERS and key in names and value.strip():
            least, what = WHOLE_NUMBERS[key]
            if not WHOLE_NUMBER.fullmatch(value.strip()) or int(value) < least:
                raise ValueError(f"{key}: {value!r} is not {what}")
        checked.append((key, value))
    return checked


async def refuse(datasette, scope, send, message: str) -> None:
    """Answer 400 with `message`: Datasette's JSON error for .json, its error page otherwise."""
    path, error = scope["path"], {"ok": False, "error": message, "status": 400, "title": "Bad parameter"}
    if path.endswith(".json"):
        response = Response.json(error, status=400)
    elif path.endswith(".md"):
        response = Response.text(message + "\n", status=400)
    else:
        page = {**error, "urls": datasette.urls, "app_css_hash": datasette.app_css_hash(), "menu_links": list}
        response = Response.html(await datasette.render_template("error.html", page), status=400)
    await response.asgi_send(send)


def canned_query(datasette, scope) -> tuple[str | None, str | None]:
    """The canned query of ours a request goes to and the format asked for (`json`, or None for the page), found
    as Datasette's router finds them (raw path, names decoded)."""
    path = scope.get("path", "")
    if scope.get("raw_path"):
        path = scope["raw_path"].decode("ascii", "replace")
    path = path.partition("?")[0]
    base_url = datasette.setting("base_url")
    if base_url != "/" and path.startswith(base_url):
        path = "/" + path[len(base_url) :]
    match = TABLE_ROUTE.match(path)
    if not match or tilde_decode(match["database"]) != DATABASE:
        return None, None
    query = tilde_decode(match["table"])
    return (query, match["format"]) if query in PARAMS else (None, None)


@hookimpl
def asgi_wrapper(datasette):
    def wrap(app):
        async def check_parameters(scope, receive, send):
            query, output = canned_query(datasette, scope) if scope["type"] == "http" else (None, None)
            if query:
                pairs = parse_qsl(scope.get("query_string", b"").decode("utf-8", "replace"), keep_blank_values=True)
                try:
                    checked = checked_parameters(query, pairs)
                except ValueError as e:
                    await refuse(datasette, scope, send, str(e))
                    return
                if output == "json":
                    checked += [("_json", column) for column in JSON_COLUMNS.get(query, ())]
                if checked != pairs:
                    scope = dict(scope, query_string=urlencode(checked).encode())
            await app(scope, receive, send)

        return check_parameters

    return wrap
