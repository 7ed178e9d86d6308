"""On every page, how fresh the index is (templates/_freshness.html), and as JSON at /-/freshness.json; /-/freshness
is the line alone, fetched again every few seconds so that a page left open does not say "watching" once it is not.
"""

from datasette import hookimpl
from datasette.utils.asgi import Response

from indexer.index import freshness
from indexer.index.database import DATABASE


async def _freshness(datasette) -> dict:
    """The freshness row, with its two sentences; `unknown` when the index cannot say (an older index)."""
    try:
        result = await datasette.get_database(DATABASE).execute(freshness.statement(), freshness.PARAMETERS)
    except Exception as e:  # no such database, or an index made before index_watch: say so, never look fresh
        return {"unknown": f"freshness unknown: {e}", "watching": 0}
    row = dict(result.first())
    watcher_text = freshness.watcher_text(row)
    headline, _, detail = watcher_text.partition(": ")  # `watching` or `not watching`, then the details
    texts = {"run_text": freshness.run_text(row), "watcher_text": watcher_text}
    return row | texts | {"headline": headline.capitalize(), "detail": detail}


@hookimpl
def extra_template_vars(datasette):
    async def inner():
        return {"freshness": await _freshness(datasette)}

    return inner


async def freshness_json(datasette):
    row = await _freshness(datasette)
    row["watching"] = bool(row["watching"])
    return Response.json(row)


async def freshness_line(datasette, request):
    # `freshness` comes from extra_template_vars above, which render_template runs (and lets win over a context)
    html = await datasette.render_template("_freshness.html", {}, request)
    return Response.html(html, headers={"cache-control": "no-store"})


@hookimpl
def register_routes():
    return [(r"^/-/freshness\.json$", freshness_json), (r"^/-/freshness$", freshness_line)]
