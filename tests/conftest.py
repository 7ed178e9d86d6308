"""Shared test helpers: build real stores on disk and real indexes from them, and the browser."""

import importlib.util
import os
from pathlib import Path

import pytest
import yaml
from fleet import isolate_git, synced_pair

from indexer.index.build import index_store
from indexer.sqlite import sqlite3

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_STORE = ROOT / "examples" / "store"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load_plugin(name: str):
    """One of plugins/*.py as a module (Datasette loads them by path, not as a package)."""
    spec = importlib.util.spec_from_file_location(f"seamless_plugin_{name}", ROOT / "plugins" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Store:
    """A memory store in a temporary folder, written file by file the way agents write it."""

    def __init__(self, root: Path):
        self.root = root
        (root / "memories").mkdir(parents=True, exist_ok=True)
        (root / "notes").mkdir(parents=True, exist_ok=True)
        self.db_path = root.parent / f"{root.name}.db"
        self._counter = 0

    def memory(self, name: str, body: str = "Body.", path: str | None = None, **fields) -> dict:
        """Write a valid memory (defaults for every field not given); return its frontmatter."""
        self._counter += 1
        project = fields.get("project", "seamless")
        meta = {
            "id": fields.pop("id", None) or f"01K0000000000000000000{self._counter:04d}",
            "kind": "gotcha",
            "name": name,
            "description": f"{name.replace('-', ' ')}: a one-line description",
            "project": project,
            "created": "2026-07-10T18:00:00Z",
            "updated": "2026-07-10T18:00:00Z",
            "valid_from": None,
            "invalid_at": None,
            "superseded_by": None,
            "source_session": "cc/test",
            "model": "claude-fable-5",
            "tags": [],
        }
        meta.update(fields)
        if meta["valid_from"] is None:
            meta["valid_from"] = meta["created"]
        scope = meta["project"] or "_global"
        self.write(
            path or f"memories/{scope}/{name}.md",
            "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n" + body + "\n",
        )
        return meta

    def note(self, path: str, text: str) -> None:
        self.write(f"notes/{path}", text)

    def write(self, path: str, content: str | bytes) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        target.write_bytes(content)
        return target

    def index(self, **kwargs):
        """Index into this store's database; returns the RunSummary."""
        return index_store(self.root, self.db_path, **kwargs)

    def rows(self, sql: str, params=()) -> list[tuple]:
        with sqlite3.connect(self.db_path) as conn:
            return conn.execute(sql, params).fetchall()


@pytest.fixture
def store(tmp_path) -> Store:
    """An empty store in a temporary folder."""
    return Store(tmp_path / "store")


@pytest.fixture
def isolated_git(monkeypatch, tmp_path):
    """Git reads none of this machine's configuration, and new branches are `main` (fleet.isolate_git)."""
    isolate_git(monkeypatch, tmp_path)


@pytest.fixture
def pair(isolated_git, tmp_path):
    """Two hosts sharing a store through a bare remote, synced on both (fleet.synced_pair)."""
    return synced_pair(tmp_path)


@pytest.fixture
def briefed(store) -> Store:
    """A store indexed with a global constraint, a decision of `seamless` and one of `console`: three briefings."""
    store.memory("no-secrets", kind="constraint", project=None, description="Never put secrets in a memory")
    store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    store.memory("console-port", kind="decision", project="console", description="The console listens on 3000")
    store.index()
    return store


@pytest.fixture(scope="session")
def example_db(tmp_path_factory) -> Path:
    """The bundled example store, indexed once per test session."""
    db_path = tmp_path_factory.mktemp("example") / "seamless.db"
    index_store(EXAMPLE_STORE, db_path, full=True)
    return db_path


def started_explorer(db_path):
    """A Datasette configured exactly as `seamless serve` configures it, started, over `db_path`."""
    import asyncio

    from indexer.front.serve import build_datasette

    ds = build_datasette(db_path)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(ds.invoke_startup())
    loop.close()
    return ds


# --- the browser ---

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
_chromium: dict = {}  # "playwright" and "browser" while open


@pytest.fixture
def browser():
    """Debian's chromium through Playwright: skipped when missing, but a failure under CI.

    One Chromium serves a run of consecutive browser tests on a worker (a file's, or more). It is closed before
    any other test: Playwright's sync API marks the thread's event loop as running while it is open, and an
    asyncio test after it could not start its own."""
    if not _chromium:
        missing = None
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            missing = "playwright is not installed (pip install -e '.[test]')"
        if not missing and not os.path.exists(CHROMIUM):
            missing = f"no chromium at {CHROMIUM} (apt-get install chromium, or make browser)"
        if missing:
            if os.environ.get("CI"):
                pytest.fail(f"CI is set, so the browser tests must run: {missing}")
            pytest.skip(missing)
        playwright = sync_playwright().start()
        try:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except BaseException:
            playwright.stop()
            raise
        _chromium.update(playwright=playwright, browser=launched)
    return _chromium["browser"]


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After the test's own fixtures are torn down: close Chromium unless the next test uses it too."""
    try:
        return (yield)
    finally:
        if _chromium and (nextitem is None or "browser" not in nextitem.fixturenames):
            _chromium.pop("browser").close()
            _chromium.pop("playwright").stop()
