"""The briefing as a page, /seamless/briefing?project=P (docs/pages.md): the `briefing` canned query shown as the
lines an agent receives, on a route of its own in front of Datasette's page for the query, which renders every cell
through the render_cell hooks first (several times slower than the query). The JSON and the markdown stay Datasette's.
"""

from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils import tilde_encode
from datasette.utils.asgi import Response

from indexer.index.database import DATABASE
from indexer.query.briefing_text import briefing_line
from indexer.sql.canned import PARAMS, QUERIES


def stage_badge(row) -> str | None:
    """A stage's status and gate as its badge says them; None for any other kind."""
    if row["kind"] != "stage":
        return None
    status = row["stage_status"] or "unknown"
    text = "status unknown" if status == "unknown" else f"Status: {status}"
    return text + (f" · Gate: {row['stage_gate']}" if row["stage_gate"] else "")


async def briefing(datasette, request):
    given = {name: request.args.get(name, "") for name in PARAMS["briefing"]}
    rows = (await datasette.get_database(DATABASE).execute(QUERIES["briefing"], given)).rows
    query = urlencode({name: value for name, value in given.items() if value})
    array = urlencode({**given, "_shape": "array"})
    project = given["project"] if given["project"] not in ("", "global") else ""
    memories = datasette.urls.table(DATABASE, "memories") + "/"
    # each line's text, link and badges made here: Jinja's async rendering costs more per expression than Python
    lines = [
        {
            "text": briefing_line(row),
            "url": memories + tilde_encode(row["id"]),
            "pinned": row["pinned"],
            "stage": stage_badge(row),
            "stage_status": row["stage_status"] or "unknown",
        }
        for row in rows
    ]
    context = {
        "rows": rows,
        "lines": lines,
        "given": given,
        "project": project,
        "chars": sum(row["chars"] for row in rows),
        "ledger_url": datasette.urls.query(DATABASE, "briefing_ledger") + "?" + query,
        "markdown_url": datasette.urls.query(DATABASE, "briefing", format="md") + "?" + query,
        "json_url": datasette.urls.query(DATABASE, "briefing", format="json") + "?" + array,
        "form_url": datasette.urls.query(DATABASE, "briefing"),
    }
    html = await datasette.render_template(
        "seamless-briefing.html", context, request=request, view_name="seamless-briefing"
    )
    return Response.html(html)


@hookimpl
def register_routes():
    return [(r"^/seamless/briefing$", briefing)]
