"""Render memory and note bodies as sanitised markdown: in table cells and as a `markdown` template filter.
markdown-it-py renders (raw HTML let through), then nh3 keeps only harmless tags and attributes; why an image must
come from another site, and the budget rendering runs in: docs/hardening.md, "Bodies".
"""

import threading
from collections import OrderedDict
from functools import lru_cache
from urllib.parse import urlsplit

import nh3
from datasette import hookimpl
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from indexer.index.database import DATABASE
from indexer.query.page_budget import MAX_CHARS, within_budget

BODY_COLUMNS = {("memories", "body"), ("notes", "body"), ("active_memories", "body")}
URL_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "nofollow noopener noreferrer"
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


CACHED = 2048  # rendered bodies kept, the least recently shown dropped first
_cache: OrderedDict[str, Markup] = OrderedDict()
_cache_lock = threading.Lock()  # the worker thread fills the cache, the event loop reads it


def _cached(text: str) -> Markup | None:
    with _cache_lock:
        html = _cache.get(text)
        if html is not None:
            _cache.move_to_end(text)
        return html


def render_markdown(text: str | None) -> Markup:
    """Markdown text -> sanitised HTML, safe to put in a page as is (no time budget: see rendered)."""
    text = text or ""
    html = _cached(text)
    if html is None:
        html = sanitise(_markdown().render(text))
        with _cache_lock:
            _cache[text] = html
            if len(_cache) > CACHED:
                _cache.popitem(last=False)
    return html


def sanitise(html: str) -> Markup:
    """HTML with only harmless tags and attributes left: what every body and diff goes through."""
    return Markup(nh3.clean(str(html), url_schemes=URL_SCHEMES, link_rel=LINK_REL, attribute_filter=_foreign_src))


def plain_text(text: str) -> Markup:
    return Markup('<pre class="md-plain">') + escape(text) + Markup("</pre>")


async def rendered(text: str | None) -> Markup:
    """`text` as render_markdown gives it, or as plain text when it is too long or takes too long."""
    text = text or ""
    if len(text) > MAX_CHARS:
        return plain_text(text)
    html = _cached(text)
    if html is not None:
        return html
    return await within_budget(plain_text(text), render_markdown, text)


async def _body_cell(value: str) -> Markup:
    return Markup('<div class="md-body">') + await rendered(value) + Markup("</div>")


@hookimpl
def render_cell(value, column, table, database):
    if database == DATABASE and isinstance(value, str) and (table, column) in BODY_COLUMNS:
        return _body_cell(value)
    return None


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["markdown"] = rendered  # templates are rendered asynchronously: the filter is awaited
    env.filters["sanitise"] = sanitise
