"""`seamless watch` (docs/freshness.md): keep the index in step with the store as its files change, a batch of
watchfiles' changed paths at a time, and say so in `index_watch`. A batch that may have overflowed the kernel's event
queue (watchfiles drops the overflow) and the watcher's own errors are answered with a run over the whole store.
"""

import contextlib
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from indexer.index import database, freshness
from indexer.index.build import RunSummary, index_paths, index_store
from indexer.store import timestamps
from indexer.store.dismissals import FILE as DISMISSALS
from indexer.store.settings import FILE as SETTINGS_FILE
from indexer.store.walk import FOLDERS

HEARTBEAT_SECONDS = 2.0  # SPEC: at least every 5 s; a heartbeat older than freshness.ALIVE_SECONDS is dead
SWEEP_SECONDS = 300  # a no-op run costs ~0.9 s of CPU at 100,000 files: 0.3% of one core at this pace
RETRY_SECONDS = 5.0  # after a failed batch, the whole store is tried again this often
AGAIN = f"trying again every {RETRY_SECONDS:.0f} s"
TICK_MS = 250  # control comes back from watchfiles at least this often: heartbeat, sweep, store and stop checks
STEP_MS = 20  # a batch is handed over once no new change came for this long (the edit-to-visible latency)
DEBOUNCE_MS = 1000  # ...or after this long of changes without a pause (a `git checkout` of thousands of files)


def queue_capacity() -> int:
    """How many events the kernel queues for one watcher before dropping them (inotify's max_queued_events)."""
    try:
        return int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except (OSError, ValueError):  # not Linux: FSEvents and Windows report their own overflows as errors
        return 16384


class Watcher:
    """Follows the store at `root` into the index at `db_path` until `stop` is set. `walk_over`: a batch of at least
    this many changed paths is applied by a run over the whole store (a new file is four events, so a batch of new
    files that filled the kernel's queue holds a quarter of its capacity in paths: an eighth leaves a margin)."""

    def __init__(
        self,
        root: Path | str,
        db_path: Path | str,
        sweep: float = SWEEP_SECONDS,
        walk_over: int | None = None,
        say: Callable[[str], None] = print,
        parent: int | None = None,
    ):
        self.root = Path(root).resolve()
        self.db_path = str(db_path)
        self.sweep = sweep
        self.walk_over = walk_over or queue_capacity() // 8
        self.say = say
        self.parent = parent  # stop when this process is no longer our parent (serve --watch's child)
        self.conn: database.IndexConnection | None = None
        self.db_identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the index file `conn` opened
        self.row_id: int | None = None
        self.next_beat = self.next_sweep = self.retry_at = 0.0
        self.pending = False  # a batch failed: the whole store is indexed at the next chance
        self.failure: str | None = None  # the watcher's last error, said once
        self.starting = False  # in the first run: its errors stop the command
        self.said: dict[str, str] = {}  # the last error said of the index runs, and of the heartbeat
        self.settling: subprocess.Popen | None = None  # the gardener's settle this watcher started last

    def run(self, stop: threading.Event) -> None:
        """Index once, then apply each batch of changes until `stop` is set; the row says it stopped."""
        try:
            while not stop.is_set():
                identity = _identity(self.root)
                if identity is None:
                    self._wait_for_store(stop)
                    continue
                try:
                    self._follow(stop, identity)
                except (OSError, RuntimeError) as e:  # watchfiles' own error is a RuntimeError
                    if self.conn is None and self.starting:
                        raise  # the first run failed, not the watcher: no index to follow into
                    if not stop.is_set():
                        self._watcher_failed(e, stop)
        finally:
            self._close()

    def _follow(self, stop: threading.Event, identity: tuple[int, int]) -> None:
        """Apply watchfiles' batches until stopped, or until the store folder is gone or replaced."""
        watching = False
        import watchfiles  # here: only the watcher needs it

        # watch_filter None: everything, since the size of a batch, ignored files and all, tells of an overflow
        for changes in watchfiles.watch(
            self.root,
            watch_filter=None,
            step=STEP_MS,
            debounce=DEBOUNCE_MS,
            rust_timeout=TICK_MS,
            yield_on_timeout=True,
            stop_event=stop,
            raise_interrupt=False,
        ):
            if not watching:  # the watch is in place: whatever changes from here on is seen
                watching = True
                if self.conn is None:
                    self._start()
                else:  # watching again (after an error, or the store folder's return): catch up first
                    if self.failure:
                        self.say("watching again")
                        self.failure = None
                    self._index_all("caught up:")
            elif changes:
                if _identity(self.root) != identity:
                    return  # gone or replaced, its files with it: not an empty store
                self._apply(changes)
            if self._tick(stop) or _identity(self.root) != identity:
                return

    def _start(self) -> None:
        """The first run, then the row: an error here (an index of another store, or none can be written)
        stops the command."""
        self.starting = True
        self.say(f"indexed: {self._run_over_store().line()}")
        self.next_sweep = time.monotonic() + self.sweep
        with database.writer_lock(self.db_path):
            self._register()
        self.starting = False
        self.say(f"watching {self.root} for changes (index {self.db_path}; Ctrl-C stops)")

    def _watcher_failed(self, error: Exception, stop: threading.Event) -> None:
        """Poll instead (a run over the whole store every RETRY_SECONDS) until a watch can be set up again."""
        if str(error) != self.failure:
            self.say(
                f"the watcher failed ({error}); following the store by a run over all of it every "
                f"{RETRY_SECONDS:.0f} s until it can watch again"
            )
            self.failure = str(error)
        if self.conn is None:
            self._start()
        else:
            self._index_all("after the watcher's error,")
        self._idle(stop, RETRY_SECONDS)

    def _wait_for_store(self, stop: threading.Event) -> None:
        self.say(f"the store folder {self.root} is gone; the index is kept as it is until it comes back")
        while not stop.is_set() and _identity(self.root) is None:
            self._idle(stop, TICK_MS / 1000)
        if not stop.is_set():
            self.say(f"the store folder {self.root} is back")

    def _idle(self, stop: threading.Event, seconds: float) -> None:
        """Keep the heartbeat (and the rest of `_tick`) going for `seconds`, or until stopped."""
        deadline = time.monotonic() + seconds
        while not self._tick(stop) and time.monotonic() < deadline:
            stop.wait(TICK_MS / 1000)

    def _tick(self, stop: threading.Event) -> bool:
        """The periodic duties; True when the watcher should stop."""
        now = time.monotonic()
        if self.settling is not None and self.settling.poll() is not None:
            self.settling = None  # (reaped)
        if self.parent is not None and os.getppid() != self.parent:
            self.say("the process that started this watcher has exited; stopping")
            stop.set()
        elif self.conn is not None:
            if not os.path.exists(self.db_path) and not self.pending:  # removed (`make clean`): built again
                self.say(f"the index at {self.db_path} is gone; building it again")
                self._index_all("built again:")
            elif self.pending and now >= self.retry_at:
                self._index_all("after the failed batch,")
            elif now >= self.next_sweep:
                self._index_all("the sweep found what the events missed:")
            if now >= self.next_beat:
                self._beat()
        return stop.is_set()

    def _apply(self, changes: set) -> None:
        """Apply one batch from watchfiles: (change, absolute path) pairs."""
        if len(changes) >= self.walk_over:
            self.say(
                f"{len(changes)} changes at once: the kernel's event queue ({queue_capacity()} events) may have "
                "overflowed and dropped some; indexing the whole store"
            )
            self._index_all("after the overflow,")
            return
        found, settings = relevant_paths(self.root, (path for _, path in changes))
        if settings:
            self._index_all(f"{SETTINGS_FILE} changed:")
            return
        paths, started = sorted(found), time.perf_counter()
        if not paths:
            return
        summary = self._index(lambda: index_paths(self.root, self.db_path, paths))
        if summary is None:
            return
        self._beat(batch=len(paths))
        if summary.files_changed or summary.files_deleted:
            self.say(f"{_clock()} {_changed(summary)} ({len(paths)} paths, {time.perf_counter() - started:.2f} s)")

    def _index_all(self, why: str) -> None:
        """An incremental run over the whole store (it reads only what changed); `why` starts its line."""
        if _identity(self.root) is None:
            return  # never index a missing store as an empty one
        summary = self._index(self._run_over_store)
        self.next_sweep = time.monotonic() + self.sweep
        if summary is None:
            return
        self.pending = False
        if summary.files_changed or summary.files_deleted:
            self.say(f"{_clock()} {why} {_changed(summary)}")

    def _run_over_store(self) -> RunSummary:
        """An incremental run over the whole store, refused (OtherStoreError) for an index of another store:
        a run would make it this store's, under the feet of whoever rebuilt it for theirs."""
        if os.path.exists(self.db_path):
            with contextlib.closing(database.sqlite3.connect(self.db_path)) as conn:
                database.check_store(conn, self.root, self.db_path)
        return index_store(self.root, self.db_path)

    def _index(self, run: Callable[[], RunSummary]) -> RunSummary | None:
        """`run()`, or None after saying why it failed (the whole store is tried again later). A run that left the
        gardener's findings behind starts a settle of their own (indexer.gardener), unless one is under way."""
        try:
            summary = run()
            if summary.gardener_behind:
                self._settle()
        except database.sqlite3.DatabaseError as e:
            self._say_once("index", f"could not write the index at {self.db_path}: {e}; {AGAIN}")
        except OSError as e:
            self._say_once("index", f"could not index the store: {e}; {AGAIN}")
        else:
            if self.said.pop("index", None):
                self.say("the index is written again")
            return summary
        self.pending, self.retry_at = True, time.monotonic() + RETRY_SECONDS
        return None

    def _settle(self) -> None:
        if self.settling is not None and self.settling.poll() is None:
            return  # under way: it catches up with what is pending when it ends
        from indexer import gardener  # here: a watcher imports the gardener when it has something to settle

        self.settling = gardener.start(self.db_path)
        if self.settling is not None:
            self.say(f"{_clock()} the gardener's findings settle in the background (pid {self.settling.pid})")

    def _say_once(self, what: str, line: str) -> None:
        """Say `line` unless it is the error last said of `what`: a lasting fault is one line, not one every
        few seconds."""
        if line != self.said.get(what):
            self.say(line)
            self.said[what] = line

    def _connection(self):
        """The watcher's own connection for its row; a new one (and a new row) if the index file was replaced."""
        st = os.stat(self.db_path)
        if self.conn is None or (st.st_dev, st.st_ino) != self.db_identity:
            if self.conn is not None:
                self.conn.close()
            self.conn, self.db_identity = database.open_db(self.db_path), (st.st_dev, st.st_ino)
            self.row_id = None
        return self.conn

    def _register(self) -> None:
        """Add this watcher's row, clearing out the rows of watchers that stopped or died (under the lock)."""
        conn, now = self._connection(), timestamps.now()
        with conn.atomic():
            alive = "stopped is null and (julianday('now') - julianday(heartbeat)) * 86400 <= ?"
            conn.execute(f"delete from index_watch where not ({alive})", (freshness.ALIVE_SECONDS,))
            for pid, host in conn.execute(
                f"select pid, host from index_watch where {alive}", (freshness.ALIVE_SECONDS,)
            ):
                self.say(f"note: another watcher (pid {pid} on {host}) follows this index too; the two take turns")
            self.row_id = conn.execute(
                "insert into index_watch (pid, host, started, heartbeat) values (?, ?, ?, ?)",
                (os.getpid(), socket.gethostname(), now, now),
            ).lastrowid
        self.next_beat = time.monotonic() + HEARTBEAT_SECONDS

    def _beat(self, batch: int | None = None) -> None:
        """Renew the heartbeat (and note a batch of `batch` paths), in its own short transaction."""
        if self.conn is None:
            return  # not started yet
        self.next_beat = time.monotonic() + HEARTBEAT_SECONDS
        try:
            with database.writer_lock(self.db_path):
                conn = self._connection()
                if self.row_id is None:  # the index file was replaced, and our row with it
                    self._register()
                now = timestamps.now()
                conn.execute(
                    "update index_watch set heartbeat = ?, last_batch = coalesce(?, last_batch), "
                    "last_batch_size = coalesce(?, last_batch_size), batches = batches + (? is not null) "
                    "where id = ?",
                    (now, batch and now, batch, batch, self.row_id),
                )
        except (database.sqlite3.DatabaseError, OSError) as e:
            self._say_once("heartbeat", f"could not renew the heartbeat in {self.db_path}: {e}")
        else:
            self.said.pop("heartbeat", None)

    def _close(self) -> None:
        """Mark the row stopped: readers then say "not watching" at once, not 15 s later."""
        if self.conn is None:
            return
        try:
            with database.writer_lock(self.db_path):
                self.conn.execute("update index_watch set stopped = ? where id = ?", (timestamps.now(), self.row_id))
        except (database.sqlite3.DatabaseError, OSError):
            pass  # the heartbeat ages out instead
        finally:
            self.conn.close()
            self.conn = None


class WatcherProcess:
    """`seamless watch STORE --db DB` in a child process for the length of a `with` block: entered once the child is
    watching (its first index done), left with SIGTERM; should this process die first, the child stops too (`--parent`).
    """

    def __init__(self, store: Path | str, db_path: Path | str):
        self.command = [sys.executable, "-m", "indexer", "watch", str(store), "--db", str(db_path)]
        self.command += ["--parent", str(os.getpid())]
        self.ready = threading.Event()
        self.said: deque[str] = deque(maxlen=5)  # the last lines, for an error message

    def __enter__(self) -> "WatcherProcess":
        self.child = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.relay = threading.Thread(target=self._relay, name="seamless-watch-stderr", daemon=True)
        self.relay.start()
        while not self.ready.wait(TICK_MS / 1000):
            if self.child.poll() is not None:
                self.relay.join()
                raise RuntimeError(
                    f"the watcher exited ({self.child.returncode}) before it was watching: " + " ".join(self.said)
                )
        return self

    def __exit__(self, *exc) -> None:
        if self.child.poll() is None:
            self.child.terminate()
            try:
                self.child.wait(30)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()
        self.relay.join(5)

    def _relay(self) -> None:
        assert self.child.stderr is not None  # the child was started with stderr=PIPE
        for line in self.child.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            self.said.append(line.strip())
            if line.startswith("watching "):
                self.ready.set()


def relevant_paths(root: Path, paths) -> tuple[set[str], bool]:
    """The store-relative paths among absolute `paths` that the index cares about (a folder stands for every file
    under it), and whether the settings file is one of them."""
    found, settings = set(), False
    for path in paths:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel == SETTINGS_FILE:
            settings = True
            continue
        if rel == DISMISSALS:  # every run reads it again when it changed
            found.add(rel)
            continue
        parts = rel.split("/")
        if parts[0] not in FOLDERS or any(part.startswith(".") for part in parts):
            continue  # outside memories/ and notes/, or hidden (a .git folder, an editor's swap file)
        if rel.endswith(".md") or not os.path.isfile(path):  # a markdown file, or a folder (there or gone)
            found.add(rel)
    return found, settings


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the folder at `path`, or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def _changed(summary: RunSummary) -> str:
    return (
        f"{summary.files_changed} changed, {summary.files_deleted} deleted: {summary.memories} memories, "
        f"{summary.notes} notes, {summary.errors} errors"
    )


def _clock() -> str:
    return time.strftime("%H:%M:%S")
