"""A fleet in a temporary folder: a bare git remote and hosts that each hold a clone of the store, write through
the real write path and sync with `seamless sync` (docs/sync.md). Real git throughout; nothing is mocked."""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

from indexer.edit import store_write
from indexer.edit.sync import sync
from indexer.query import queries
from indexer.sqlite import sqlite3

SEAMLESS = [sys.executable, "-m", "indexer"]


def git(cwd: Path, *args: str, check: bool = True, text: bool = True) -> str:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=text, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def isolate_git(monkeypatch, folder: Path) -> None:
    """Git reads no configuration of this machine's (its user, its aliases), and new branches are `main`."""
    config = folder / "gitconfig"
    config.write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("SEAMLESS_PROJECT", "SEAMLESS_SESSION", "SEAMLESS_MODEL", "SEAMLESS_WRITE_KILL_AFTER"):
        monkeypatch.delenv(name, raising=False)


class Host:
    """One machine of the fleet: a clone (the store at `store`, its top or a folder in it) and its own index."""

    def __init__(self, folder: Path, name: str, remote: Path, store_in: str = ""):
        self.name = name
        self.top = folder / name
        git(folder, "clone", "-q", str(remote), name)
        git(self.top, "config", "user.name", f"host {name}")
        git(self.top, "config", "user.email", f"{name}@fleet.example")
        self.store = self.top / store_in if store_in else self.top
        self.store.mkdir(parents=True, exist_ok=True)
        self.db = folder / f"{name}.db"

    # the write path, as the CLI and the MCP tools call it
    def write(self, name: str, description: str, project: str = "fleet", **options):
        return store_write.write_memory(
            self.store, self.db, project=project, kind=options.pop("kind", "gotcha"), name=name,
            description=description, new_project=options.pop("new_project", True), **options,
        )  # fmt: skip

    def append(self, memory: str, text: str, project: str = "fleet"):
        return store_write.append_memory(self.store, self.db, memory, text, project=project)

    def archive(self, memory: str, project: str = "fleet"):
        return store_write.archive_memory(self.store, self.db, memory, project=project)

    def delete(self, memory: str, project: str = "fleet"):
        return store_write.delete_memory(self.store, self.db, memory, project=project)

    def sync(self, **options):
        return sync(self.store, self.db, **options)

    def cli(self, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        """`seamless ARGS` as its own process (the store and --db are not added)."""
        return subprocess.run(
            [*SEAMLESS, *args], capture_output=True, text=True, cwd=self.top, env={**os.environ, **(env or {})}
        )

    def files(self) -> dict[str, bytes]:
        """Every file of the store's memories/ and notes/, by path."""
        return {
            p.relative_to(self.store).as_posix(): p.read_bytes()
            for folder in ("memories", "notes")
            for p in sorted((self.store / folder).rglob("*"))
            if p.is_file()
        }

    def rows(self, sql: str, params=()) -> list[tuple]:
        with contextlib.closing(sqlite3.connect(self.db)) as conn:
            return conn.execute(sql, params).fetchall()

    def answers(self, words: list[str], projects: list[str], as_of: str) -> dict:
        """What this host's index answers: every briefing (at `as_of`), recall and history the fleet may ask."""
        with contextlib.closing(sqlite3.connect(self.db)) as conn:
            ids = [row[0] for row in conn.execute("select id from memories order by id")]
            return {
                "briefing": {p: queries.run(conn, "briefing", project=p, as_of=as_of, budget=None) for p in projects},
                "recall": {w: queries.recall(conn, w, project=None, limit=20) for w in words},
                "history": {i: queries.history_chain(conn, i, None) for i in ids},
            }

    def out_of_step(self) -> list[str]:
        """What `seamless status` would list as differing between the store and this host's index (empty: in step)."""
        from indexer.index.status import drift

        with contextlib.closing(sqlite3.connect(self.db)) as conn:
            found = drift(self.store, conn)
        return [*found.new, *found.changed, *found.deleted] + (["seamless.toml"] if found.settings_changed else [])

    def merging(self) -> bool:
        """Whether the clone is in the middle of a merge."""
        return (Path(git(self.top, "rev-parse", "--absolute-git-dir").strip()) / "MERGE_HEAD").exists()


def fleet(folder: Path, hosts: int = 2, store_in: str = "") -> list[Host]:
    """A bare remote (`folder/remote.git`) and `hosts` clones of it (empty: the first sync sets the store up)."""
    remote = folder / "remote.git"
    git(folder, "init", "-q", "--bare", str(remote))
    return [Host(folder, "abcdefgh"[n], remote, store_in) for n in range(hosts)]


def synced_pair(folder: Path) -> tuple[Host, Host]:
    """Two hosts that share a store holding one memory, `chroma-port`, synced on both."""
    a, b = fleet(folder)
    a.write("chroma-port", "Chroma listens on 8000", body="Seen on boot.")
    a.sync()
    b.sync()
    return a, b


def markers(files: dict[str, bytes]) -> list[str]:
    """The files that hold a conflict marker line."""
    return [
        path
        for path, data in files.items()
        if any(line.startswith((b"<<<<<<< ", b">>>>>>> ")) or line == b"=======" for line in data.splitlines())
    ]
