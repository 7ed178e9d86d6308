"""Template filters for the explorer's pages: `tilde_encode` (a row's key in its URL, as Datasette spells it)
and `briefing_line` (a briefing row as the agent receives it, from indexer.briefing_text like the markdown)."""

from datasette import hookimpl
from datasette.utils import tilde_encode

from indexer.briefing_text import briefing_line


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["tilde_encode"] = tilde_encode
    env.filters["briefing_line"] = briefing_line
