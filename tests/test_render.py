"""Memory bodies render as markdown with every hostile payload removed, and the JSON API keeps the raw text."""

import re
from html.parser import HTMLParser

import pytest
from conftest import load_plugin

from indexer.front.serve import build_datasette

# Hostile bodies an agent (or a poisoned web page it read) could write into a memory.
PAYLOADS = {
    "script": "<script>alert('script')</script>",
    "script-src": '<script src="https://evil.example/x.js"></script>',
    "img-onerror": '<img src="x" onerror="alert(\'onerror\')">',
    "body-onload": "<body onload=alert('onload')>",
    "div-onmouseover": '<div onmouseover="alert(1)">hover</div>',
    "markdown-javascript-link": "[click](javascript:alert('md-link'))",
    "html-javascript-link": '<a href="javascript:alert(1)">click</a>',
    "javascript-entity-obfuscated": '<a href="jav&#x09;ascript:alert(1)">click</a>',
    "javascript-mixed-case": '<a href="JaVaScRiPt:alert(1)">click</a>',
    "data-link": "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "data-image": "![pixel](data:image/png;base64,iVBORw0KGgo=)",
    "html-data-link": '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    "iframe": '<iframe src="https://evil.example"></iframe>',
    "iframe-srcdoc": '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "svg-onload": "<svg onload=alert('svg')><circle r=10></circle></svg>",
    "svg-script": "<svg><script>alert(1)</script></svg>",
    "style-tag": "<style>body { display: none }</style>",
    "style-attr": '<p style="background: url(javascript:alert(1))">styled</p>',
    "object": '<object data="https://evil.example/x.swf"></object>',
    "embed": '<embed src="https://evil.example/x.swf">',
    "form": '<form action="https://evil.example"><input name="q"><button>go</button></form>',
    "meta-refresh": '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    "base": '<base href="https://evil.example/">',
    "link-stylesheet": '<link rel="stylesheet" href="https://evil.example/x.css">',
    "math": "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
    "noscript-mxss": '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    "template": "<template><script>alert(1)</script></template>",
    "banner-spoof": '<div class="banner banner-superseded" id="x">fake banner</div>',
    "details-ontoggle": "<details open ontoggle=alert(1)>x</details>",
    "markdown-vbscript-link": "[click](vbscript:msgbox(1))",
    "html-vbscript-link": '<a href="vbscript:msgbox(1)">click</a>',
    "reference-javascript-link": "[x][1]\n\n[1]: javascript:alert(1)",
    "autolink-javascript": "<javascript:alert(1)>",
    "markdown-decimal-entity-link": "[click](&#106;avascript:alert(1))",
    "html-decimal-entity-link": '<a href="&#106;avascript:alert(1)">click</a>',
    "markdown-colon-entity-link": "[click](javascript&colon;alert(1))",
    "html-colon-entity-link": '<a href="javascript&colon;alert(1)">click</a>',
    "html-leading-space-link": '<a href=" javascript:alert(1)">click</a>',
    "html-leading-control-link": '<a href="\x01javascript:alert(1)">click</a>',
    "html-leading-tab-link": '<a href="\tjavascript:alert(1)">click</a>',
    "markdown-leading-control-link": "[click](\x01javascript:alert(1))",
    "svg-xlink-href": '<svg><a xlink:href="javascript:alert(1)">x</a></svg>',
    "img-srcset": '<img srcset="javascript:alert(1) 1x">',
    "img-onerror-unquoted": "<img src=x onerror=alert(1)>",
    "button-formaction": '<button formaction="javascript:alert(1)">x</button>',
    "form-javascript-action": '<form action="javascript:alert(1)"><input type=submit></form>',
    "data-svg-link": "[svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "data-svg-image": "![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "html-data-svg-image": '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
    "meta-refresh-javascript": '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "base-javascript": '<base href="javascript:alert(1)//">',
    "object-javascript": '<object data="javascript:alert(1)"></object>',
    "embed-javascript": '<embed src="javascript:alert(1)">',
    "math-unclosed": "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
}
# Payloads whose unclosed <style> swallows the rest of the body: nh3 drops it all, which is safe.
SWALLOWS_REST = {"math-unclosed"}

# What may appear in rendered HTML: these tags only, these attributes only, and links only to these schemes.
ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "del",
    "details",
    "div",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "kbd",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}
ALLOWED_ATTRIBUTES = {"href", "rel", "src", "alt", "title", "start", "align", "colspan", "rowspan", "width", "height"}
URL_ATTRIBUTES = {"href", "src", "srcset", "cite", "action", "formaction", "poster", "background", "data", "xlink:href"}
BAD_SCHEMES = ("javascript:", "vbscript:", "data:")


class Audit(HTMLParser):
    """Every tag and attribute of an HTML fragment, as the browser's parser would see them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def assert_clean(html: str) -> None:
    audit = Audit()
    audit.feed(html)
    audit.close()
    for tag, attrs in audit.tags:
        assert tag in ALLOWED_TAGS, f"<{tag}> survived in {html!r}"
        for name, value in attrs.items():
            assert name in ALLOWED_ATTRIBUTES, f"{name}= survived on <{tag}> in {html!r}"
            assert not name.startswith("on"), f"{name}= survived on <{tag}> in {html!r}"
            if name in URL_ATTRIBUTES:
                # HTMLParser has already unescaped the value (&#106; -> j, &colon; -> :), as a browser would.
                bare = re.sub(r"[\s\x00-\x1f\x7f-\x9f]", "", value or "").lower()
                assert not bare.startswith(BAD_SCHEMES), f"{value!r} in {html!r}"
                scheme = re.sub(r"[\x00-\x20]", "", value or "").lower().split(":", 1)
                assert len(scheme) == 1 or scheme[0] in ("http", "https", "mailto"), f"{value!r} in {html!r}"
        if tag == "a" and "href" in attrs:
            assert set(attrs.get("rel", "").split()) >= {"nofollow", "noopener"}, html
    lowered = html.lower()
    for fragment in (
        "<script",
        "<iframe",
        "<svg",
        "<style",
        "<object",
        "<embed",
        "<form",
        "<math",
        "<meta",
        "<base",
        "<button",
        "<input",
        "<noscript",
    ):
        assert fragment not in lowered, f"{fragment} survived in {html!r}"


render_markdown = load_plugin("markdown_bodies").render_markdown


def rendered_body(page: str) -> str:
    return page.split('<section class="memory-body md-body">', 1)[1].split("</section>", 1)[0]


def body_cells(page: str) -> list[str]:
    return re.findall(r'<td class="col-body[^"]*">(.*?)</td>', page, re.DOTALL)


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_render_markdown_removes_payload(payload):
    assert_clean(render_markdown(f"Before.\n\n{payload}\n\nAfter."))


def test_markdown_is_rendered():
    html = render_markdown(
        "# Title\n\nSome **bold**, `code` and a [link](https://example.com).\n\n"
        "```sh\nchroma run --port 8000\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- one\n- two\n"
    )
    assert "<h1>Title</h1>" in html
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert '<a href="https://example.com" rel="nofollow noopener noreferrer">link</a>' in html
    assert "<pre><code>chroma run --port 8000\n</code></pre>" in html
    assert "<table>" in html and "<td>1</td>" in html
    assert "<li>one</li>" in html


def test_text_is_escaped_not_dropped():
    assert "a &lt; b &amp;&amp; c &gt; d" in render_markdown("a < b && c > d")


@pytest.fixture
async def hostile(store):
    """A store whose memories carry every payload in their bodies (and one in a description)."""
    for name, payload in PAYLOADS.items():
        store.memory(f"payload-{name}", body=f"# {name}\n\n{payload}\n\nThe end.")
    store.memory(
        "payload-description", description="<script>alert('description')</script> in a description", body="Plain."
    )
    store.index(full=True)
    ds = build_datasette(store.db_path)
    await ds.invoke_startup()
    return ds


async def memories(ds) -> dict[str, dict]:
    rows = (await ds.client.get("/seamless/memories.json?_shape=array&_size=max")).json()
    return {row["name"]: row for row in rows}


async def test_memory_pages_are_sanitised(hostile):
    rows = await memories(hostile)
    for name in PAYLOADS:
        row = rows[f"payload-{name}"]
        page = await hostile.client.get(f"/seamless/memories/{row['id']}")
        assert page.status_code == 200
        body = rendered_body(page.text)
        assert_clean(body)
        assert "The end." in body or name in SWALLOWS_REST
        # and the fields table below never shows the body
        assert body_cells(page.text) == []


async def test_table_view_is_sanitised(hostile):
    page = await hostile.client.get("/seamless/memories?_size=max")
    assert page.status_code == 200
    cells = body_cells(page.text)
    assert len(cells) == len(PAYLOADS) + 1
    for cell in cells:
        assert cell.startswith('<div class="md-body">') and cell.endswith("</div>")
        assert_clean(cell.removeprefix('<div class="md-body">'))


async def test_description_is_escaped(hostile):
    row = (await memories(hostile))["payload-description"]
    page = (await hostile.client.get(f"/seamless/memories/{row['id']}")).text
    assert "<script>alert('description')" not in page
    assert "&lt;script&gt;alert(&#39;description&#39;)&lt;/script&gt; in a description" in page


async def test_search_results_are_sanitised(hostile):
    page = await hostile.client.get("/seamless/memories?_search=alert")
    assert page.status_code == 200
    for cell in body_cells(page.text):
        assert_clean(cell.removeprefix('<div class="md-body">'))


async def test_json_returns_raw_bodies(hostile):
    rows = await memories(hostile)
    for name, payload in PAYLOADS.items():
        assert rows[f"payload-{name}"]["body"].rstrip("\n") == f"# {name}\n\n{payload}\n\nThe end."
    one = rows["payload-script"]
    response = await hostile.client.get(f"/seamless/memories/{one['id']}.json?_shape=array")
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()[0]["body"] == one["body"]
