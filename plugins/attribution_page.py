"""The attribution page, `/-/attribution`: per model and per git author, the memories written and how they fared
(docs/pages.md). The figures are the `attribution` canned query's (/seamless/attribution.json?_shape=array, the
same SQL as the `attribution` view); this module only lays them out, one table each."""

from datasette import hookimpl
from datasette.database import QueryInterrupted
from datasette.utils.asgi import Response

from indexer.index.database import DATABASE
from indexer.sql.canned import QUERIES


async def attribution(datasette, request):
    try:
        rows = [dict(row) for row in (await datasette.get_database(DATABASE).execute(QUERIES["attribution"])).rows]
        interrupted = False
    except QueryInterrupted:  # over the explorer's time limit (a very large store on a busy machine): say so
        rows, interrupted = [], True
    context = {
        "interrupted": interrupted,
        "time_limit_ms": datasette.setting("sql_time_limit_ms"),
        "models": [row for row in rows if row["by"] == "model"],
        "authors": [row for row in rows if row["by"] == "author"],
        "json_url": datasette.urls.query(DATABASE, "attribution", format="json") + "?_shape=array",
        "memories_url": datasette.urls.table(DATABASE, "memories"),
        "revisions_url": datasette.urls.table(DATABASE, "revisions"),
    }
    html = await datasette.render_template(
        "seamless-attribution.html", context, request=request, view_name="seamless-attribution"
    )
    return Response.html(html)


@hookimpl
def register_routes():
    return [(r"^/-/attribution$", attribution)]
