"""Against a real `seamless serve` process on 127.0.0.1: headless Chromium walks the explorer, an MCP client talks to it.

The store is the bundled example plus one memory per hostile payload (tagged `hostile`, dated
long ago so they sit at the bottom of the list). Screenshots go to test-artifacts/.
"""

import importlib.util
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from test_render import PAYLOADS

from indexer.index.build import index_store
from indexer.sqlite import sqlite3

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_hostile_memories(store: Path) -> None:
    for number, (name, payload) in enumerate(PAYLOADS.items(), 1):
        meta = {
            "id": f"01K0000000000000000000H{number:03d}",
            "kind": "gotcha",
            "name": f"hostile-{name}",
            "description": f"Hostile payload: {name}",
            "project": "hostile",
            "created": "2025-01-01T00:00:00Z",
            "updated": "2025-01-01T00:00:00Z",
            "tags": ["hostile"],
        }
        text = "---\n" + yaml.safe_dump(meta, sort_keys=False) + f"---\n# {name}\n\n{payload}\n\nThe end.\n"
        (store / "memories" / "hostile").mkdir(parents=True, exist_ok=True)
        (store / "memories" / "hostile" / f"{name}.md").write_text(text, "utf-8")
    # one more, not tagged `hostile`: a description and a body line far wider than any screen
    meta = {
        "id": "01K0000000000000000000WXYZ",
        "kind": "gotcha",
        "name": "long-lines",
        "description": "d" * 3000,
        "project": "hostile",
        "created": "2025-01-01T00:00:00Z",
        "updated": "2025-01-01T00:00:00Z",
    }
    text = "---\n" + yaml.safe_dump(meta, sort_keys=False, width=10_000) + "---\n" + "b" * 20_000 + "\n"
    (store / "memories" / "hostile" / "long-lines.md").write_text(text, "utf-8")


class Server:
    """A `seamless serve` subprocess; `url` waits until it answers (so Chromium can start meanwhile)."""

    def __init__(self, db_path: Path, log_path: Path):
        self.db_path = db_path
        self.port = free_port()
        self.log = open(log_path, "w+")  # noqa: SIM115 (closed by stop())
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from indexer.front.cli import cli; cli()",
                "serve",
                "--db",
                str(db_path),
                "--port",
                str(self.port),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=log_path.parent,
        )
        self._ready = False

    @property
    def url(self) -> str:
        base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while not self._ready:
            try:
                urllib.request.urlopen(base + "/-/versions.json", timeout=1)
                self._ready = True
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.log.seek(0)
                    pytest.fail(f"seamless serve did not start:\n{self.log.read()}")
                time.sleep(0.1)
        return base

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`seamless serve` on a free port of 127.0.0.1 over the example store plus hostile memories."""
    tmp = tmp_path_factory.mktemp("served")
    store = tmp / "store"
    shutil.copytree(ROOT / "examples" / "store", store)
    write_hostile_memories(store)
    index_store(store, tmp / "explorer.db", full=True)
    server = Server(tmp / "explorer.db", tmp / "serve.log")
    yield server
    server.stop()


def memory_id(db_path, name):
    with sqlite3.connect(db_path) as conn:
        return conn.execute("select id from memories where name = ?", (name,)).fetchone()[0]


# --- the browser ---


def screenshot(page, name: str, scroll_to: str | None = None) -> None:
    """Save the viewport (scrolled to `scroll_to`, e.g. the rows, when given) as test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    if scroll_to:
        page.locator(scroll_to).first.evaluate("element => element.scrollIntoView()")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.browser
def test_walk_through_the_explorer(served, page):
    base, db_path = served.url, served.db_path
    old, new = memory_id(db_path, "chroma-port-8000"), memory_id(db_path, "chroma-port-8001")

    page.goto(base + "/seamless/memories")
    assert page.locator("h1").first.inner_text().strip().startswith("Memories")
    assert "sorted by updated descending" in page.content()
    screenshot(page, "1-memories")

    page.locator('#facet-status a:text-is("superseded")').click()
    page.wait_for_url("**/seamless/memories?status=superseded*")
    statuses = page.locator("td.col-status").all_inner_texts()
    assert statuses and set(statuses) == {"superseded"}
    screenshot(page, "2-facet-superseded", scroll_to="h3")

    page.fill('input[name="_search"]', "chroma")
    page.press('input[name="_search"]', "Enter")
    page.wait_for_url("**_search=chroma*")
    names = page.locator("td.col-name").all_inner_texts()
    assert "chroma-port-8000" in names and all(
        s == "superseded" for s in page.locator("td.col-status").all_inner_texts()
    )
    screenshot(page, "3-search-chroma", scroll_to="table.rows-and-columns")

    page.locator(f'td a[href="/seamless/memories/{old}"]').first.click()
    page.wait_for_url(f"**/seamless/memories/{old}")
    banner = page.locator(".banner-superseded")
    assert banner.is_visible()
    assert "Superseded on" in banner.inner_text()
    assert page.locator(".memory-body h2").count() >= 1  # the body is rendered markdown
    screenshot(page, "4-superseded-memory")

    banner.locator("a.successor").click()
    page.wait_for_url(f"**/seamless/memories/{new}")
    assert page.locator("h1.memory-name").inner_text() == "chroma-port-8001"
    screenshot(page, "5-successor")


@pytest.mark.browser
def test_hostile_bodies_run_nothing(served, page):
    """Every payload rendered in one table page and on its own page: no dialog, no request off the machine."""
    base, db_path = served.url, served.db_path
    dialogs, foreign = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: foreign.append(request.url) if "127.0.0.1" not in request.url else None)
    page.goto(base + "/seamless/memories?tags__arraycontains=hostile&_size=max")
    assert page.locator("td.col-body").count() == len(PAYLOADS)
    screenshot(page, "6-hostile-bodies", scroll_to="td.col-body")
    for name in ("script", "img-onerror", "svg-onload", "iframe-srcdoc", "math"):
        page.goto(f"{base}/seamless/memories/{memory_id(db_path, f'hostile-{name}')}")
        assert "The end." in page.locator(".memory-body").inner_text()
    page.wait_for_timeout(300)
    assert dialogs == []
    assert foreign == []


@pytest.mark.browser
def test_a_memory_page_wraps_lines_wider_than_the_screen(served, page):
    """A 3,000-character description and a 20,000-character body line wrap: the page never scrolls sideways."""
    page.goto(f"{served.url}/seamless/memories/01K0000000000000000000WXYZ")
    assert page.locator(".memory-body").inner_text().startswith("bbbb")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


# --- MCP (datasette-mcp, the optional `mcp` extra) ---


def mcp_call(base, method, params=None, session=None, id=1):
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    message = {
        "jsonrpc": "2.0",
        "method": method,
        **({"id": id} if id else {}),
        **({"params": params} if params else {}),
    }
    request = urllib.request.Request(base + "/-/mcp", json.dumps(message).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
        return response.headers.get("mcp-session-id"), json.loads(body) if body else None


@pytest.fixture(scope="module")
def mcp(served):
    if importlib.util.find_spec("datasette_mcp") is None:
        pytest.skip("datasette-mcp is an optional extra: pip install -e '.[mcp]'")
    base = served.url
    session, reply = mcp_call(
        base,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "seamless-tests", "version": "0"},
        },
    )
    assert reply["result"]["serverInfo"]["name"] == "datasette"
    mcp_call(base, "notifications/initialized", session=session, id=None)
    return lambda method, params=None: mcp_call(base, method, params, session, id=2)[1]


def test_mcp_lists_tools(mcp):
    tools = {tool["name"] for tool in mcp("tools/list")["result"]["tools"]}
    assert {"list_databases", "execute_sql", "list_canned_queries", "execute_canned_query"} <= tools


def test_mcp_runs_the_briefing(mcp, served):
    reply = mcp(
        "tools/call",
        {
            "name": "execute_canned_query",
            "arguments": {
                "database": "seamless",
                "query": "briefing",
                "parameters": {"project": "seamless", "as_of": "2026-12-02"},
            },
        },
    )
    result = reply["result"]
    assert not result.get("isError"), result
    rows = result["structuredContent"]["rows"]
    from indexer.query import queries

    expected = queries.run(served.db_path, "briefing", project="seamless", as_of="2026-12-02")
    assert [r["id"] for r in rows] == [r["id"] for r in expected]


def test_mcp_lists_canned_queries_none_writable(mcp):
    reply = mcp("tools/call", {"name": "list_canned_queries", "arguments": {"database": "seamless"}})
    queries = reply["result"]["structuredContent"]["queries"]
    assert {"briefing", "recall", "history", "gardener", "problems_overview"} <= {q["name"] for q in queries}
    assert not any(q["write"] for q in queries)


def test_mcp_cannot_write(mcp, served):
    reply = mcp(
        "tools/call", {"name": "execute_sql", "arguments": {"database": "seamless", "sql": "delete from memories"}}
    )
    assert reply["result"]["isError"]
    with sqlite3.connect(served.db_path) as conn:
        assert conn.execute("select count(*) from memories").fetchone()[0] > 0
