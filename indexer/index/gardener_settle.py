"""The gardener's settle on its own, out of the index run's way (docs/queries.md#when-the-findings-settle).

An index run settles the gardener's findings itself when that is little work (a write, a watcher batch, an edit
or two: build.GARDENER_IN_RUN memories at most). A bigger one (a store indexed from nothing, new reading rules,
a checkout of thousands of files) would make the run take twice as long: the run notes what changed in
`gardener_pending`, commits, and `seamless index` (or the watcher) starts this module in a process of its own,
detached, which settles while the index is already answering (`start`). `seamless gardener` and `seamless
needs-human` settle before they read (`settle`, waiting for one already running).

A settle of the whole store reads a snapshot of the index (one read transaction), builds the tables in temporary
tables of its own connection, and only then takes the index's writer lock: it copies them in, settles the
memories that runs changed meanwhile (their gardener_pending rows, after the snapshot's), and marks the findings
settled, in one transaction. So writers wait for the copy, a second or two, never for the reading and judging.
One settle at a time: `<index>.gardener.lock` (flock), held for the whole settle, which the explorer probes to say
"settling". index_meta `gardener_settling` says since when and who, `gardener_error` why the last one failed.

    python -m indexer.index.gardener_settle DB    # what `start` runs
"""

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from indexer import sql
from indexer.index import database
from indexer.store import timestamps

CACHE_KB = 2048  # the settle's SQLite page cache (SQLite's default size)


@dataclass
class Settled:
    """What one settle did."""

    whole: bool = False  # every memory settled from a snapshot (else only the pending ones, or none)
    memories: int = 0  # memories settled (a whole settle: every active one)
    rounds: int = 0  # snapshots taken: more than one when a run over the whole store changed the index meanwhile


def lock_path(db_path: str | Path) -> str:
    return f"{database.resolved(db_path)}.gardener.lock"


@contextlib.contextmanager
def settle_lock(db_path: str | Path):
    """Hold the settle lock of the index at `db_path`, waiting for another settle to end. flock, not lockf: a probe
    on another descriptor (`running`) must not release it."""
    fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (the lock goes with it)


def running(db_path: str | Path) -> bool:
    """Whether a settle holds the lock of the index at `db_path` now (on this host; never waits, creates nothing)."""
    try:
        fd = os.open(lock_path(db_path), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def behind(conn) -> bool:
    """Whether the findings of the index open on `conn` wait for a settle."""
    # here: the gardener's rules, read by a settle only (not by a probe)
    from indexer.gardener import pairs as gardener_pairs

    return not gardener_pairs.in_step(conn)


def settle(db_path: str | Path) -> Settled:
    """Bring the gardener's findings of the index at `db_path` in step, after any settle already under way. Raises
    sqlite3 errors (a read-only index, a broken one)."""
    done = Settled()
    while True:
        with settle_lock(db_path), contextlib.closing(database.open_db(db_path)) as conn:
            # each memory is read once, in order: a page cache of an index run's size (64 MB) holds nothing of use
            conn.execute(f"PRAGMA cache_size = -{CACHE_KB}")
            if behind(conn):
                _settle_held(conn, db_path, done)
        # a run that committed while the lock was held, after the last look, found it held and started no settle:
        # look again now that it is free
        with contextlib.closing(database.open_db(db_path)) as conn:
            if not behind(conn):
                return done


def _settle_held(conn, db_path: str | Path, done: Settled) -> None:
    _mark(conn, db_path, settling=True)
    try:
        while not _round(conn, db_path, done):
            pass
    except BaseException as e:
        with contextlib.suppress(Exception):
            _mark(conn, db_path, settling=False, error=f"{type(e).__name__}: {e}")
        raise
    _mark(conn, db_path, settling=False)


def _round(conn, db_path: str | Path, done: Settled) -> bool:
    """One look at the index: settle what is pending; False when it must be looked at again (a run over the whole
    store changed the index while this one read its snapshot)."""
    from indexer.gardener import pairs as gardener_pairs

    done.rounds += 1
    conn.execute("BEGIN")  # the snapshot
    try:
        rows = gardener_pairs.pending(conn)
        whole = gardener_pairs.stamp(conn) != gardener_pairs.RULES or any(i == gardener_pairs.EVERY for _, i in rows)
        active = gardener_pairs.active(conn)
        whole = whole or len({i for _, i in rows}) > gardener_pairs.REBUILD_SHARE * active
        if whole:
            snapshot = (rows[-1][0] if rows else 0, gardener_pairs.settle_round(conn))
            _temp_tables(conn)
            gardener_pairs.rebuild(conn, gardener_pairs.Readings(), into="temp.")
    finally:
        conn.execute("COMMIT")  # only temp tables were written
    with database.writer_lock(db_path), conn.atomic():
        if not whole:
            done.memories += len({i for _, i in gardener_pairs.pending(conn)})
            gardener_pairs.settle(conn, [], None)  # the pending memories, under the lock: few
            return True
        later = [i for seq, i in gardener_pairs.pending(conn) if seq > snapshot[0]]
        if gardener_pairs.EVERY in later or gardener_pairs.settle_round(conn) != snapshot[1]:
            _drop_temp_tables(conn)
            return False  # the snapshot no longer says what the tables should start from
        indexes = _indexes()
        for name in indexes:  # made again after the rows: packed, where rows in no order of theirs leave gaps
            conn.execute(f"drop index main.{name}")
        for table in gardener_pairs.TABLES:
            conn.execute(f"delete from main.{table}")
            conn.execute(f"insert into main.{table} select * from temp.{table}")
        _drop_temp_tables(conn)  # first: while they are there, the unqualified names below would name them
        for statement in indexes.values():
            conn.execute(statement)
        gardener_pairs.latest(conn)
        if later:
            gardener_pairs.update(conn, sorted(set(later)), gardener_pairs.Readings())
        gardener_pairs.mark_settled(conn)
        done.whole, done.memories = True, active
    return True


def _indexes() -> dict[str, str]:
    """The gardener's tables' indexes (schema.sql): name -> its CREATE statement."""
    from indexer.gardener.pairs import TABLES

    found = {}
    for statement in sql.statements(sql.source("schema")):
        statement = "\n".join(line for line in statement.splitlines() if not line.startswith("--"))
        words = statement.split()
        if words[:5] == ["CREATE", "INDEX", "IF", "NOT", "EXISTS"] and words[7] in TABLES:
            found[words[5]] = statement
    return found


def _temp_tables(conn) -> None:
    from indexer.gardener.pairs import TABLES

    _drop_temp_tables(conn)
    for table in TABLES:  # (the same columns, in the same order: copied back with select *)
        conn.execute(f"create temp table {table} as select * from main.{table} where 0")


def _drop_temp_tables(conn) -> None:
    from indexer.gardener.pairs import TABLES

    for table in TABLES:
        conn.execute(f"drop table if exists temp.{table}")


def _mark(conn, db_path: str | Path, settling: bool, error: str | None = None) -> None:
    """Say in the index that a settle is under way (who, since when), or that it ended (and why, if it failed)."""
    with database.writer_lock(db_path), conn.atomic():
        if settling:
            who = {"pid": os.getpid(), "host": socket.gethostname(), "started": timestamps.now()}
            conn.execute(
                "insert into index_meta (key, value) values ('gardener_settling', ?) "
                "on conflict (key) do update set value = excluded.value",
                (json.dumps(who),),
            )
            from indexer.gardener import pairs as gardener_pairs

            # tables of other rules (an upgrade that no run has met since) are said to be read again, before the
            # snapshot: a run meanwhile then notes only what it changed, and a `*` after it is a full run's alone
            if gardener_pairs.stamp(conn) != gardener_pairs.RULES and not gardener_pairs.pending_every(conn):
                gardener_pairs.add_pending(conn, [gardener_pairs.EVERY])
            return
        conn.execute("delete from index_meta where key = 'gardener_settling'")
        if error is None:
            conn.execute("delete from index_meta where key = 'gardener_error'")
        else:
            conn.execute(
                "insert into index_meta (key, value) values ('gardener_error', ?) "
                "on conflict (key) do update set value = excluded.value",
                (f"{timestamps.now()}: {error}",),
            )


def start(db_path: str | Path) -> subprocess.Popen | None:
    """Start a settle of the index at `db_path` in a process of its own, detached (it outlives this one); None when
    one is under way already (it will see what is pending) or none could be started."""
    if running(db_path):
        return None
    package_root = str(Path(__file__).resolve().parents[2])  # where `indexer` is, however this process found it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    try:
        return subprocess.Popen(
            [sys.executable or "python3", "-m", __name__, str(database.resolved(db_path))],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # a failure is said in the index (gardener_error) and on every page
            start_new_session=True,  # not stopped by the terminal's Ctrl-C meant for the command that started it
            env=env,
        )
    except OSError:
        return None


def main(argv: list[str]) -> int:
    import gc

    gc.disable()  # a settle's readings hold no cycles (as in the index run)
    try:
        settle(argv[0])
    except Exception:  # said in the index by _mark; nothing here reads our output
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
