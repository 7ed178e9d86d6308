"""Opening seamless.db: schema, full-text indexes, the store it indexes, and the lock that serialises writers."""

import contextlib
import fcntl
import itertools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from indexer import sql
from indexer.index import fts
from indexer.sqlite import sqlite3

DATABASE = "seamless"  # the index's name in the explorer: its URLs, metadata.yml and the plugins

# bump when schema.sql, fts.py or a rule changes: an older index gets the new parts on open, and its next
# run reads every file (its rows and problems were made by older rules)
SCHEMA_VERSION = 21  # what each version brought: `git log -L '/^SCHEMA_VERSION/,+1:indexer/index/database.py'`
_savepoints = itertools.count()
# PRAGMA application_id of every index (the bytes "SEAM"): a SQLite file without it is not ours, unless it is
# an index made before it was set (our user_version and bookkeeping tables), which is stamped when next written
APPLICATION_ID = 0x5345414D


class NotAnIndexError(sqlite3.DatabaseError):
    """The file is a SQLite database, but not a seamless index: it is left as it is."""


def is_index(conn: sqlite3.Connection) -> bool | None:
    """True for a seamless index, None for an empty database (a new one), False for any other SQLite file."""
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if application_id == APPLICATION_ID:
        return True
    if application_id != 0:
        return False
    tables = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
    if not tables:
        return None
    return conn.execute("PRAGMA user_version").fetchone()[0] > 0 and {"memories", "index_files"} <= tables


def not_an_index(path: str | Path) -> str:
    """The sentence for a --db that is another SQLite database."""
    return (
        f"{path} is a SQLite database but not a seamless index; it was left untouched: "
        "give --db the path of an index (or of a new file) for `seamless index` to build"
    )


class IndexConnection(sqlite3.Connection):
    """A connection in autocommit mode whose `atomic()` block is one transaction (nestable); plain sqlite3, not
    sqlite-utils: importing it would add to every run (docs/development.md)."""

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


def open_db(path: str | Path, private: bool = False) -> IndexConnection:
    """Open (creating if needed) the index at `path` with its schema in place. `private`: a new file no one else
    opens until it is renamed into place (fresh_db): no write-ahead log and no syncs, every page written once."""
    # the index run's writer thread shares this connection (never at the same time as this thread)
    db = sqlite3.connect(str(path), factory=IndexConnection, isolation_level=None, check_same_thread=False)
    ours = is_index(db)  # before any pragma below writes to the file
    if ours is False:
        db.close()
        raise NotAnIndexError(not_an_index(path))
    if private:
        db.execute("PRAGMA journal_mode=MEMORY")  # rollback still works; a new file has no pages to save
    elif str(path) != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={'OFF' if private else 'NORMAL'}")
    db.execute("PRAGMA cache_size = -65536")  # 64 MB: the indexes of 100,000 memories stay in memory
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version < SCHEMA_VERSION:
        with db.atomic():
            if version:  # made by an older indexer: with no files on record (in the table as it is now), the
                db.execute("DROP TABLE IF EXISTS index_files")  # next run is a full one
                _add_columns(db)
            for statement in sql.statements(sql.source("schema")):  # every statement is IF NOT EXISTS
                db.execute(statement)
            fts.drop_triggers(db)
            fts.create(db)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    return db


def _add_columns(db: IndexConnection) -> None:
    """Give an older index's tables the columns schema.sql has added since (CREATE TABLE IF NOT EXISTS
    leaves an existing table as it is): its next run, a full one, fills them. Drop what schema.sql replaced."""
    have = {row[1] for row in db.execute("PRAGMA table_info(memories)")}
    if have and "supersedes" not in have:  # 13
        db.execute("ALTER TABLE memories ADD COLUMN supersedes TEXT")
    words = {row[1] for row in db.execute("PRAGMA table_info(gardener_words)")}
    findings = {row[1] for row in db.execute("PRAGMA table_info(gardener_findings)")}
    if "proposal" in findings or "scope" in words or (words and "member" not in words):  # 20: made anew, settled again
        for table in ("gardener_words", "gardener_groups", "gardener_terms", "gardener_common", "gardener_findings"):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute("DROP INDEX IF EXISTS gardener_terms_signature")
        db.execute("DELETE FROM index_meta WHERE key = 'gardener'")  # (index_meta is older than the gardener)
    db.execute("DROP INDEX IF EXISTS memories_project_updated")  # 16: memories_project_newest serves its readers


@contextlib.contextmanager
def fresh_db(path: str | Path):
    """Build a new index at `path`: yield a private connection to `<path>.new`, renamed into place (onto the file a
    symlink names) once the block succeeds, so that `path` is either absent or complete."""
    path = resolved(path)
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


class OtherStoreError(Exception):
    """The index was built from another store: adding this store's files to it would mix two stores."""


def store_root(root: str | Path) -> str:
    """How an index names the store it was built from: the resolved path of its folder."""
    return str(Path(root).resolve())


def store_of(conn: sqlite3.Connection) -> str | None:
    """The store the index was built from (its resolved path), or None if it does not say."""
    return meta_value(conn, "store")


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value the index keeps about itself (`index_meta`), or None."""
    try:
        row = conn.execute("select value from index_meta where key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:  # an index made before index_meta existed
        return None
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    """Keep `value` about the index (`index_meta`) in the caller's transaction; an unchanged value is not written."""
    conn.execute(
        "insert into index_meta (key, value) values (?, ?) "
        "on conflict (key) do update set value = excluded.value where value is not excluded.value",
        (key, value),
    )


def set_meta_value(db_path: str | Path, key: str, value: str) -> None:
    """Keep `value` about the index at `db_path` (`index_meta`), as its writers take turns."""
    with writer_lock(db_path), contextlib.closing(open_db(resolved(db_path))) as db:
        set_meta(db, key, value)


# the index's generation (index_meta, key `generation`): how many runs have changed its content. Read at the
# start of an explorer page and again when it is drawn: an unchanged number means one index throughout
GENERATION = "select cast(coalesce((select value from index_meta where key = 'generation'), 0) as integer)"


def next_generation(conn: sqlite3.Connection) -> None:
    """Count one more change of the index's content, in the transaction that makes it (no-op runs do not)."""
    conn.execute(
        "insert into index_meta (key, value) values ('generation', 1) "
        "on conflict (key) do update set value = cast(value as integer) + 1"
    )


def check_store(conn: sqlite3.Connection, root: str | Path, db_path: str | Path) -> None:
    """Raise OtherStoreError unless the index at `db_path` was built from the store at `root`."""
    built_from, root = store_of(conn), store_root(root)
    if built_from is not None and built_from != root:
        raise OtherStoreError(
            f"the index at {db_path} holds the store at {built_from}, not {root}; "
            f"to index this store there, rebuild it with `seamless index {root} --db {db_path} --full`"
        )


def in_memory(conn: sqlite3.Connection) -> bool:
    """An index in memory (`seamless check`): no reader ever sees its views, history or gardener's findings."""
    return not conn.execute("PRAGMA database_list").fetchone()[2]


def resolved(db_path: str | Path) -> str:
    """The file `db_path` names, symlinks followed: what the lock and the writers work on."""
    return str(db_path) if str(db_path) == ":memory:" else os.path.realpath(db_path)


class _Hold:
    """This process's hold of one lock file: threads take turns on `turn`; the POSIX lock is taken once."""

    def __init__(self):
        self.turn = threading.RLock()
        self.depth = 0
        self.file: IO[str] | None = None


_holds: dict[str, _Hold] = {}
_holds_guard = threading.Lock()


@contextlib.contextmanager
def writer_lock(db_path: str | Path, on_wait: Callable[[], None] | None = None):
    """Hold `<resolved db>.lock`, so every writer of one database file takes turns, whatever path names it. A POSIX
    record lock (lockf), not flock: forked processes do not inherit it, and it goes when its process dies, even by
    kill -9. It is the process's, and closing any descriptor of the file drops it, so threads take turns on a thread
    lock first, and a nested hold reuses the outer one. `on_wait` is called once before waiting, if at all."""
    if str(db_path) == ":memory:":
        yield
        return
    lock_path = f"{resolved(db_path)}.lock"
    with _holds_guard:
        hold = _holds.setdefault(lock_path, _Hold())
    if not hold.turn.acquire(blocking=False):
        if on_wait:
            on_wait()
        on_wait = None
        hold.turn.acquire()
    try:
        if hold.depth == 0:
            hold.file = _lock_file(lock_path, on_wait)
        hold.depth += 1
        try:
            yield
        finally:
            hold.depth -= 1
            if hold.depth == 0 and hold.file is not None:
                fcntl.lockf(hold.file, fcntl.LOCK_UN)
                hold.file.close()
                hold.file = None
    finally:
        hold.turn.release()


def _lock_file(lock_path: str, on_wait: Callable[[], None] | None) -> "IO[str]":
    f = open(lock_path, "a")  # noqa: SIM115 - held past this function, closed by writer_lock
    try:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # EAGAIN or EACCES: another process holds it
            if on_wait:
                on_wait()
            fcntl.lockf(f, fcntl.LOCK_EX)
    except BaseException:
        f.close()
        raise
    return f
