"""Render memory and note bodies as sanitised markdown: in table cells and as a `markdown` template filter.
Recall's snippets are shown as the escaped text they are, the matched words highlighted.

markdown-it-py turns the body into HTML (raw HTML allowed through, so nh3 decides), then nh3
keeps only harmless tags: no script, style, iframe, svg or form, no event handlers, no
javascript:/data: URLs, and every link gets rel="nofollow noopener noreferrer". An image may only
come from another site: a relative or local `src` (`<img src="/seamless.json?sql=...">`) would have
the viewer's browser run a query of our own just by opening the page, so it is dropped.

Rendering runs off the event loop, one body at a time, within indexer/query/page_budget.py's budget: some
markdown takes markdown-it seconds (64 KB of `![` take 3 s, a megabyte minutes). A body over its
MAX_CHARS, or one that takes longer, is shown as plain text. The JSON API is untouched: it returns the raw body text.
"""

from functools import lru_cache
from urllib.parse import urlsplit

import nh3
from datasette import hookimpl
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from indexer.index.database import DATABASE
from indexer.query.page_budget import MAX_CHARS, within_budget
from indexer.sql.canned import MATCH_END, MATCH_START

BODY_COLUMNS = {("memories", "body"), ("notes", "body"), ("active_memories", "body")}
URL_SCHEMES = {"http", "https", "mailto"}
# names that reach this machine whatever the page's own address; a src to any of them is dropped too
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]"}


def _foreign_src(tag: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: a `src` stays only when it names another site over http(s)."""
    if attribute != "src":
        return value
    try:
        url = urlsplit(value.strip())
        host = (url.hostname or "").lower().rstrip(".")
    except ValueError:
        return None
    if url.scheme not in ("http", "https") or not host or host in LOCAL_HOSTS or host.endswith(".localhost"):
        return None
    if host.startswith("127.") or host.replace("[", "").startswith(("::ffff:127.", "::1")):
        return None
    return value


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    """The parser, built (its rules' patterns compiled) when a page first renders a body."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


@lru_cache(maxsize=2048)
def render_markdown(text: str | None) -> Markup:
    """Markdown text -> sanitised HTML, safe to put in a page as is (no time budget: see rendered)."""
    return sanitise(_markdown().render(text or ""))


def sanitise(html: str) -> Markup:
    """HTML with only harmless tags and attributes left: what every body and diff goes through."""
    return Markup(
        nh3.clean(
            str(html), url_schemes=URL_SCHEMES, link_rel="nofollow noopener noreferrer", attribute_filter=_foreign_src
        )
    )


def plain_text(text: str) -> Markup:
    return Markup('<pre class="md-plain">') + escape(text) + Markup("</pre>")


async def rendered(text: str | None) -> Markup:
    """`text` as render_markdown gives it, or as plain text when it is too long or takes too long."""
    text = text or ""
    if len(text) > MAX_CHARS:
        return plain_text(text)
    return await within_budget(plain_text(text), render_markdown, text)


def highlighted(snippet: str) -> Markup:
    """A recall snippet (a slice of markdown source) as escaped text, each match in <mark>."""
    return Markup(str(escape(snippet)).replace(MATCH_START, "<mark>").replace(MATCH_END, "</mark>"))


async def _body_cell(value: str) -> Markup:
    return Markup('<div class="md-body">') + await rendered(value) + Markup("</div>")


@hookimpl
def render_cell(value, column, table, database):
    if database != DATABASE or not isinstance(value, str):
        return None
    if (table, column) in BODY_COLUMNS:
        return _body_cell(value)
    if table is None and column == "snippet":
        return highlighted(value)
    return None


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["markdown"] = rendered  # templates are rendered asynchronously: the filter is awaited
    env.filters["sanitise"] = sanitise
