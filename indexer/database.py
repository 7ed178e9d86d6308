"""Opening seamless.db: schema, full-text indexes, and the lock that serialises writers."""

import contextlib
import fcntl
import itertools
import sqlite3
import sys
from importlib import resources
from pathlib import Path

from . import fts

SCHEMA_VERSION = 4  # bump when schema.sql or fts.py changes; older databases get the new parts on open
_savepoints = itertools.count()


class IndexConnection(sqlite3.Connection):
    """A connection in autocommit mode whose `atomic()` block is one transaction (nestable).

    Plain sqlite3, not sqlite-utils: importing sqlite-utils costs 0.1 s, a tenth of the
    time a no-op `seamless index` over 100,000 files may take.
    """

    @contextlib.contextmanager
    def atomic(self):
        name = f"atomic_{next(_savepoints)}"
        self.execute(f"SAVEPOINT {name}")
        try:
            yield self
        except BaseException:
            self.execute(f"ROLLBACK TO {name}")
            self.execute(f"RELEASE {name}")
            raise
        self.execute(f"RELEASE {name}")


def sql_source(name: str) -> str:
    """The text of `indexer/sql/<name>.sql`."""
    return resources.files(__package__).joinpath("sql", f"{name}.sql").read_text("utf-8")


def statements(script: str) -> list[str]:
    """The SQL statements of `script`, one by one (executescript would commit the open transaction)."""
    found, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    return found


def open_db(path: str | Path) -> IndexConnection:
    """Open (creating if needed) the index at `path` with its schema in place."""
    # the index run's writer thread shares this connection (never at the same time as this thread)
    db = sqlite3.connect(str(path), factory=IndexConnection, isolation_level=None, check_same_thread=False)
    if str(path) != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size = -65536")  # 64 MB: the indexes of 100,000 memories stay in memory
    if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
        with db.atomic():
            for statement in statements(sql_source("schema")):  # every statement is IF NOT EXISTS
                db.execute(statement)
            fts.drop_triggers(db)
            fts.create(db)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    from . import views  # here, not at the top: views reads queries, which reads this module

    views.ensure_views(db)  # compared with sqlite_master each time: changed SQL sources reach old indexes
    return db


@contextlib.contextmanager
def writer_lock(db_path: str | Path):
    """Hold `<db>.lock` so two index runs on one database take turns.

    A POSIX record lock (lockf), not flock: forked worker processes do not inherit it,
    and it is released the moment the process holding it dies, even by kill -9.
    """
    if str(db_path) == ":memory:":
        yield
        return
    lock_path = f"{db_path}.lock"
    with open(lock_path, "a") as f:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # EAGAIN or EACCES: another run holds it
            print(f"waiting for another seamless index run on {db_path} to finish...", file=sys.stderr)
            fcntl.lockf(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.lockf(f, fcntl.LOCK_UN)
