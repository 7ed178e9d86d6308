"""The gardener's settle on its own (docs/queries.md#when-the-findings-settle), `python -m indexer.gardener DB`,
under the index's writer lock while the index already answers; one at a time: the flock of `<index>.gardener.lock`,
which `running` probes. The index is passed in: the gardener sits below it.
"""

import contextlib
import fcntl
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.gardener.stamp import in_step
from indexer.store import timestamps

if TYPE_CHECKING:  # imported where the settle is started: `gardener` and `needs-human` start none (start-up)
    import subprocess


def lock_path(db_path: str | Path) -> str:
    return f"{os.path.realpath(db_path)}.gardener.lock"


def running(db_path: str | Path) -> bool:
    """Whether a settle holds the lock of the index at `db_path` now (on this host; never waits, creates nothing)."""
    try:
        fd = os.open(lock_path(db_path), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def settle_all(db_path: str | Path, index) -> bool:
    """Bring the findings of the index at `db_path` in step, after a settle already under way; return whether this
    one settled anything. `index`: the module `indexer.index.database`. Raises sqlite3 errors (a read-only index)."""
    fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT, 0o644)
    try:  # flock, not lockf: `running`'s probe on another descriptor must not release it
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.closing(index.open_db(db_path)) as conn, index.writer_lock(db_path):
            try:
                conn.execute("PRAGMA cache_size = -2048")  # each memory read once, in order: a cache holds nothing
                if in_step(conn):
                    return False
                from indexer.gardener import findings  # the rules, read only when there is something to settle

                with conn.atomic():
                    findings.settle(conn, [])
                    conn.execute("delete from index_meta where key = 'gardener_error'")
                return True
            except Exception as e:
                with conn.atomic():
                    error = f"{timestamps.now()}: {type(e).__name__}: {e}"
                    conn.execute("insert or replace into index_meta values ('gardener_error', ?)", (error,))
                raise
            finally:  # before the writer lock: a run waiting for it then sees no settle under way, and starts one
                os.close(fd)
                fd = -1
    finally:
        if fd >= 0:
            os.close(fd)


def start(db_path: str | Path) -> "subprocess.Popen | None":
    """Start a settle of the index at `db_path` in a process of its own, detached (it outlives this one); None when
    one is under way already (it will see what is pending) or none could be started."""
    import subprocess

    if running(db_path):
        return None
    package_root = str(Path(__file__).resolve().parents[2])  # where `indexer` is, however this process found it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    try:
        return subprocess.Popen(
            [sys.executable or "python3", "-m", "indexer.gardener", os.path.realpath(db_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # a failure is said in the index (gardener_error) and on every page
            start_new_session=True,  # not stopped by the terminal's Ctrl-C meant for the command that started it
            env=env,
        )
    except OSError:
        return None
