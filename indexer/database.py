"""Opening seamless.db: schema, full-text indexes, and the lock that serialises writers."""

import contextlib
import fcntl
import itertools
import os
import sys
from importlib import resources
from pathlib import Path

from . import fts
from .sqlite import sqlite3

# bump when schema.sql, fts.py or a rule changes: an older index gets the new parts on open, and its next
# run reads every file (its rows and problems were made by older rules)
SCHEMA_VERSION = (
    10  # 8: real-time timestamps, note titles outside code, YAML error lines; 9: ctime_ns; 10: memories_overview
)
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


def open_db(path: str | Path, private: bool = False) -> IndexConnection:
    """Open (creating if needed) the index at `path` with its schema in place.

    `private`: a new file no one else opens until it is renamed into place (fresh_db), so no
    write-ahead log and no syncs: every page is written once, straight into the file.
    """
    # the index run's writer thread shares this connection (never at the same time as this thread)
    db = sqlite3.connect(str(path), factory=IndexConnection, isolation_level=None, check_same_thread=False)
    if private:
        db.execute("PRAGMA journal_mode=MEMORY")  # rollback still works; a new file has no pages to save
        db.execute("PRAGMA synchronous=OFF")
    elif str(path) != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
    if not private:
        db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size = -65536")  # 64 MB: the indexes of 100,000 memories stay in memory
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version < SCHEMA_VERSION:
        with db.atomic():
            if version:  # made by an older indexer: with no files on record (in the table as it is now), the
                db.execute("DROP TABLE IF EXISTS index_files")  # next run is a full one
            for statement in statements(sql_source("schema")):  # every statement is IF NOT EXISTS
                db.execute(statement)
            fts.drop_triggers(db)
            fts.create(db)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    from . import views  # here, not at the top: views reads queries, which reads this module

    views.ensure_views(db)  # compared with sqlite_master each time: changed SQL sources reach old indexes
    return db


@contextlib.contextmanager
def fresh_db(path: str | Path):
    """Build a new index at `path` (which does not exist yet): yield a private connection to a file
    beside it, then, if the block succeeds, switch it to WAL, sync it and rename it into place.

    A run killed half way leaves only `<path>.new`, removed by the next run: `path` itself is
    either absent or complete.
    """
    building = Path(f"{path}.new")
    for leftover in (building, Path(f"{building}-journal")):
        leftover.unlink(missing_ok=True)
    db = open_db(building, private=True)
    try:
        yield db
        db.execute("PRAGMA journal_mode=WAL")  # what every later run and reader expects
        db.close()
        with open(building, "rb+") as f:
            os.fsync(f.fileno())
        for stale in (Path(f"{path}-wal"), Path(f"{path}-shm")):  # an older index's log must not replay onto this one
            stale.unlink(missing_ok=True)
        os.replace(building, path)
    except BaseException:
        db.close()
        building.unlink(missing_ok=True)
        raise


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
