"""Render memory and note bodies as sanitised markdown: in table cells and as a `markdown` template filter.
Recall's snippets are shown as the escaped text they are, the matched words highlighted.

markdown-it-py turns the body into HTML (raw HTML allowed through, so nh3 decides), then nh3
keeps only harmless tags: no script, style, iframe, svg or form, no event handlers, no
javascript:/data: URLs, and every link gets rel="nofollow noopener noreferrer". The JSON API is
untouched: it returns the raw body text.
"""

from functools import lru_cache

import nh3
from datasette import hookimpl
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from indexer.queries import MATCH_END, MATCH_START
from indexer.serve import DATABASE

BODY_COLUMNS = {("memories", "body"), ("notes", "body"), ("active_memories", "body")}
URL_SCHEMES = {"http", "https", "mailto"}
_md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


@lru_cache(maxsize=2048)
def render_markdown(text: str | None) -> Markup:
    """Markdown text -> sanitised HTML, safe to put in a page as is."""
    return sanitise(_md.render(text or ""))


def sanitise(html: str) -> Markup:
    """HTML with only harmless tags and attributes left: what every body and diff goes through."""
    return Markup(nh3.clean(str(html), url_schemes=URL_SCHEMES, link_rel="nofollow noopener noreferrer"))


def highlighted(snippet: str) -> Markup:
    """A recall snippet (a slice of markdown source) as escaped text, each match in <mark>."""
    return Markup(str(escape(snippet)).replace(MATCH_START, "<mark>").replace(MATCH_END, "</mark>"))


@hookimpl
def render_cell(value, column, table, database):
    if database != DATABASE or not isinstance(value, str):
        return None
    if (table, column) in BODY_COLUMNS:
        return Markup('<div class="md-body">') + render_markdown(value) + Markup("</div>")
    if table is None and column == "snippet":
        return highlighted(value)
    return None


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["markdown"] = render_markdown
    env.filters["sanitise"] = sanitise
