"""Opening seamless.db: schema, full-text indexes, and the lock that serialises writers."""

import contextlib
import fcntl
import sys
from importlib import resources
from pathlib import Path

import sqlite_utils

SCHEMA_VERSION = 2  # bump when schema.sql changes; older databases get the new parts on open
FTS = {
    "memories": ["name", "description", "tags", "body"],
    "notes": ["title", "tags", "body"],
}


def sql_source(name: str) -> str:
    """The text of `indexer/sql/<name>.sql`."""
    return resources.files(__package__).joinpath("sql", f"{name}.sql").read_text("utf-8")


def open_db(path: str | Path) -> sqlite_utils.Database:
    """Open (creating if needed) the index at `path` with its schema in place."""
    db = sqlite_utils.Database(path)
    if str(path) != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size = -65536")  # 64 MB: the indexes of 100,000 memories stay in memory
    if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
        with db.atomic():
            db.executescript(sql_source("schema"))  # every statement is IF NOT EXISTS
            if not db["memories_fts"].exists():
                enable_fts(db)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    from . import views  # here, not at the top: views reads queries, which reads this module

    views.ensure_views(db)  # compared with sqlite_master each time: changed SQL sources reach old indexes
    return db


def enable_fts(db: sqlite_utils.Database) -> None:
    """Create and fill the FTS5 tables, with triggers that keep them in step."""
    for table, columns in FTS.items():
        db[table].enable_fts(columns, fts_version="FTS5", tokenize="porter", create_triggers=True)


def disable_fts(db: sqlite_utils.Database) -> None:
    """Drop the FTS5 tables and their triggers (before a bulk rebuild)."""
    for table in FTS:
        db[table].disable_fts()


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
