"""Shared test helpers: build real stores on disk and real indexes from them."""

import importlib.util
from pathlib import Path

import pytest
import yaml

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
