"""Concurrency: index runs on one database take turns; a reader sees the old index or the new one, never a mix.

The writers are real `seamless index` processes; the reader is a plain read-only SQLite connection
(`mode=ro`, as Datasette opens a database), kept open across the run.
"""

import os
import shutil
import signal
import subprocess
import threading
import time

import pytest
from stores import assert_accounted_for, dump, generate_store, mutate_store, seamless_command

from indexer.index.build import index_store
from indexer.sqlite import sqlite3

WAITING = "waiting for another seamless index run on"

# One statement, so one snapshot: counts that must agree with each other in any consistent state.
SNAPSHOT = """
select
  (select count(*) from memories),
  (select count(*) from memories_fts_docsize),
  (select count(*) from memories_fts where memories_fts match 'body'),
  (select total(length(body)) from memories),
  (select count(*) from notes),
  (select count(*) from notes_fts where notes_fts match 'findings'),
  (select count(*) from problems),
  (select count(*) from problems where severity = 'error'),
  (select count(*) from memories m join problems p on p.path = m.path and p.severity = 'error')
"""


def start(*args) -> subprocess.Popen:
    return subprocess.Popen(seamless_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return generate_store(tmp_path_factory.mktemp("template") / "store", 800, seed=4)


@pytest.fixture
def big_store(template, tmp_path):
    """A copy of a store of 800 generated files, and a database path."""
    return shutil.copytree(template, tmp_path / "store"), tmp_path / "index.db"


def wait_until_locked(db, process: subprocess.Popen, timeout: float = 30) -> None:
    """Return once `process` holds a lock on `<db>.lock`, as /proc/locks lists them (flock or POSIX alike)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the first run ended before it was seen holding the lock"
        try:
            inode = os.stat(f"{db}.lock").st_ino
        except FileNotFoundError:
            inode = None
        with open("/proc/locks") as locks:
            for line in locks:  # 1: FLOCK  ADVISORY  WRITE 4242 00:2f:123456 0 EOF  (waiters have a "->")
                fields = line.split()
                if "->" not in fields and fields[4] == str(process.pid) and fields[5].endswith(f":{inode}"):
                    return
        time.sleep(0.002)
    raise AssertionError("the first run never took the lock")


def test_two_runs_at_once_take_turns(big_store, tmp_path):
    root, db = big_store
    # 8 x 12,000 small YAML lists (just under the 64 KB frontmatter cap) take seconds to read: the first
    # run is still busy when the second starts
    for n in range(8):
        (root / "notes" / f"slow-{n}.md").write_text("---\nitems: [" + ", ".join(["[x]"] * 12_000) + "]\n---\n# Slow\n")
    first = start("index", root, "--db", db, "--full")
    wait_until_locked(db, first)
    mutate_store(root, 100, seed=5)  # the second run has its own work (or the first saw it: then it has none)
    second = start("index", root, "--db", db)
    outputs = [p.communicate(timeout=120) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outputs
    assert WAITING not in outputs[0][1] and WAITING in outputs[1][1], outputs
    assert not any("Traceback" in out + err for out, err in outputs)
    with sqlite3.connect(db) as conn:
        modes = [r[0] for r in conn.execute("select mode from index_runs order by id")]
    assert modes[0] == "full" and len(modes) == 2, modes  # the second ran after the first, not beside it
    assert_accounted_for(root, db)
    index_store(root, tmp_path / "fresh.db", full=True)
    assert dump(db) == dump(tmp_path / "fresh.db")


@pytest.fixture(scope="module")
def slow_template(template, tmp_path_factory):
    """The store of 800 files and 8 notes that take a second to read: a run is seen holding the lock, and stopped."""
    root = shutil.copytree(template, tmp_path_factory.mktemp("slow") / "store")
    for n in range(8):
        (root / "notes" / f"slow-{n}.md").write_text("---\nitems: [" + ", ".join(["[x]"] * 12_000) + "]\n---\n# Slow\n")
    return root


def holds_lock(db, process: subprocess.Popen) -> bool:
    try:
        inode = os.stat(f"{db}.lock").st_ino
    except FileNotFoundError:
        return False
    with open("/proc/locks") as locks:
        return any(
            "->" not in fields and fields[4] == str(process.pid) and fields[5].endswith(f":{inode}")
            for fields in map(str.split, locks)
        )


@pytest.mark.parametrize(
    "first_args, second_args",
    [
        (["--db", "alias.db"], ["--db", "real.db"]),  # the first build, through the symlink
        (["--db", "alias.db", "--full"], ["--db", "real.db"]),  # a rebuild through the symlink
        (["--db", "real.db", "--full"], ["--db", "alias.db", "--full"]),
    ],
    ids=["first-build-through-the-symlink", "full-rebuild-through-the-symlink", "through-the-real-path"],
)
def test_runs_through_a_symlink_and_the_real_path_take_turns(slow_template, tmp_path, first_args, second_args):
    """`seamless index --db alias.db` (a symlink to real.db) and `--db real.db` are one index: two runs take turns,
    whichever name each is given, and afterwards the symlink is still one and both names read the same index."""
    template = slow_template
    real, alias = tmp_path / "real.db", tmp_path / "alias.db"
    alias.symlink_to("real.db")
    if "--full" in first_args:
        index_store(template, real)
    first = subprocess.Popen(
        seamless_command("index", template, *first_args), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    wait_until_locked(real, first)
    os.kill(first.pid, signal.SIGSTOP)  # holding the lock, it cannot finish before the second starts
    try:
        assert holds_lock(real, first)
        second = subprocess.Popen(
            seamless_command("index", template, *second_args),
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        said = second.stderr.readline()  # blocks until the second says something: it must be that it waits
        assert said.startswith(WAITING) and second.poll() is None, said
    finally:
        os.kill(first.pid, signal.SIGCONT)
    outputs = [first.communicate(timeout=60)[1].decode(), said + second.communicate(timeout=60)[1]]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    assert WAITING not in outputs[0], outputs
    assert alias.is_symlink() and os.readlink(alias) == "real.db" and real.is_file() and not real.is_symlink()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("alias.db") and p.name != "alias.db"]
    with sqlite3.connect(real) as conn:
        modes = [r[0] for r in conn.execute("select mode from index_runs order by id")]
    assert modes[-2] == "full" and modes[-1] in ("no-op", "full"), modes  # the second ran after the first
    assert dump(alias) == dump(real)
    assert_accounted_for(template, alias)


class Reader(threading.Thread):
    """Reads SNAPSHOT in a loop on one read-only connection, opened once, until told to stop."""

    def __init__(self, db):
        super().__init__(daemon=True)
        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)
        self.seen: list[tuple] = []
        self.errors: list[Exception] = []
        self.stop = threading.Event()

    def read(self) -> tuple:
        return self.conn.execute(SNAPSHOT).fetchone()

    def run(self):
        while not self.stop.is_set():
            try:
                self.seen.append(self.read())
            except sqlite3.Error as e:
                self.errors.append(e)
            time.sleep(0.001)


@pytest.mark.parametrize("mode", ["incremental", "full"])
def test_a_reader_sees_the_old_index_or_the_new_one_never_a_mix(big_store, tmp_path, mode):
    root, db = big_store
    index_store(root, db, full=True)
    mutate_store(root, 250, seed=6)
    index_store(root, tmp_path / "fresh.db", full=True)
    with sqlite3.connect(tmp_path / "fresh.db") as conn:
        new = conn.execute(SNAPSHOT).fetchone()
    reader = Reader(db)
    old = reader.read()
    assert old != new
    reader.start()
    writer = start("index", root, "--db", db, *(["--full"] if mode == "full" else []))
    _, err = writer.communicate(timeout=120)
    during = len(reader.seen)
    time.sleep(0.05)
    reader.stop.set()
    reader.join()
    assert writer.returncode == 0, err
    assert not reader.errors, reader.errors[:3]
    assert during >= 10, "the reader must have read while the run was going on"
    assert set(reader.seen) <= {old, new}, {s for s in reader.seen if s not in (old, new)}
    first_new = reader.seen.index(new)
    assert all(s == new for s in reader.seen[first_new:]), "once the new index is seen the old never comes back"
    assert reader.read() == new  # the same connection, never reopened


def test_a_long_read_transaction_neither_blocks_the_run_nor_sees_it_until_it_ends(big_store, tmp_path):
    root, db = big_store
    index_store(root, db, full=True)
    mutate_store(root, 150, seed=7)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    conn.execute("begin")
    old = conn.execute(SNAPSHOT).fetchone()
    result = subprocess.run(
        seamless_command("index", root, "--db", db, "--full"), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert conn.execute(SNAPSHOT).fetchone() == old  # still inside its snapshot
    conn.execute("commit")
    index_store(root, tmp_path / "fresh.db", full=True)
    with sqlite3.connect(tmp_path / "fresh.db") as fresh:
        assert conn.execute(SNAPSHOT).fetchone() == fresh.execute(SNAPSHOT).fetchone()
    conn.close()
