"""The briefing as plain markdown for a prompt, /seamless/briefing.md?project=P: an output renderer on the
`briefing` canned query (the very same SQL), its lines from indexer.query.briefing_text, which the CLI uses too.
"""

from datasette import hookimpl
from datasette.utils.asgi import NotFound, Response

from indexer.index.database import DATABASE
from indexer.query.briefing_text import briefing_markdown


def render(rows, request, query_name, database):
    if not can_render(query_name, database):  # Datasette dispatches .md on any page: only the briefing has it
        raise NotFound("Markdown output is only for the briefing: /seamless/briefing.md?project=P")
    text = briefing_markdown(rows, request.args.get("project"), request.args.get("as_of"))
    return Response(text, content_type="text/markdown; charset=utf-8")


def can_render(query_name, database):
    return database == DATABASE and query_name == "briefing"


@hookimpl
def register_output_renderer():
    return {"extension": "md", "render": render, "can_render": can_render}
