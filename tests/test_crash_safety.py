"""Crashes lose nothing: kill -9 at any moment of a run, or a write that fails because the disk is full.

The index is the previous one or the new one, `pragma integrity_check` is clean, and the next run
brings it to the tables of a full rebuild. tests/crash_campaign.py runs the same kills at many
more points (the figures in docs/reliability.md come from it).
"""

import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crash_campaign import Campaign, report
from stores import dump, generate_store, integrity, memory_text, seamless, seamless_command, ulid

from indexer.index.build import index_store
from indexer.sqlite import sqlite3

HERE = Path(__file__).resolve().parent
POINTS_PER_MODE = 4


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Campaign:
    return Campaign(tmp_path_factory.mktemp("crash"), files=600, seed=6)


@pytest.mark.parametrize("mode", ["incremental", "full"])
def test_kill_9_at_moments_spread_over_a_run(campaign, mode):
    plan = [p for p in campaign.points(2 * POINTS_PER_MODE, seed=6) if p[0] == mode]
    outcomes = [campaign.kill_at(*point) for point in plan]
    assert all(o.ok for o in outcomes), (report(outcomes), [o for o in outcomes if not o.ok])
    assert sum(not o.finished_first for o in outcomes) >= POINTS_PER_MODE // 2, "most kills must land mid-run"


@pytest.mark.parametrize("mode", ["incremental", "full"])
def test_kill_9_mid_commit(campaign, mode):
    """Killed the moment the write-ahead log is half written (the commit may or may not have landed)."""
    outcome = campaign.kill_at(mode, wal_bytes=campaign.wal_bytes[mode] // 2)
    assert outcome.ok, outcome


def test_kill_9_during_the_very_first_index(tmp_path):
    root = generate_store(tmp_path / "store", 400, seed=2)
    db = tmp_path / "first.db"
    fresh = tmp_path / "fresh.db"
    index_store(root, fresh, full=True)
    for delay in (0.5,):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        process = subprocess.Popen(
            seamless_command("index", root, "--db", db), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        if db.exists():
            assert integrity(db) == "ok"
        result = seamless("index", root, "--db", db)
        assert result.returncode == 0, result.stderr[-1000:]
        assert dump(db) == dump(fresh)


# A failed write: the disk is full. Two ways, both real: SQLite's max_page_count on every connection
# (tests/page_limit_run.py) and the operating system's file size limit (RLIMIT_FSIZE: writes fail with EFBIG).


@pytest.fixture
def full_disk(store, tmp_path):
    """An indexed store that has just grown by 200 memories, and how to run `seamless index` on a full disk."""
    rng = random.Random(5)
    generate_store(store.root, 60, seed=5)
    store.index()
    old = dump(store.db_path)
    for n in range(200):
        store.write(f"memories/seamless/more-{n}.md", memory_text(rng, 50_000 + n, ulid(rng), "seamless"))
    with sqlite3.connect(store.db_path) as conn:
        pages = conn.execute("pragma page_count").fetchone()[0]

    def run(how: str) -> subprocess.CompletedProcess:
        if how == "max_page_count":
            command = [sys.executable, str(HERE / "page_limit_run.py"), str(pages)]
            command += ["index", str(store.root), "--db", str(store.db_path)]
            return subprocess.run(command, capture_output=True, text=True, timeout=120)
        limit = 64 * 1024  # the write-ahead log may not grow past 64 KB

        def limit_file_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        return seamless("index", store.root, "--db", store.db_path, preexec_fn=limit_file_size)

    return store, old, run


@pytest.mark.parametrize("how", ["max_page_count", "RLIMIT_FSIZE"])
def test_a_full_disk_leaves_the_old_index_and_fails_the_run(full_disk, tmp_path, how):
    store, old, run = full_disk
    result = run(how)
    assert result.returncode != 0
    assert integrity(store.db_path) == "ok"
    assert dump(store.db_path) == old
    # with room again, the next run brings the index in step
    assert seamless("index", store.root, "--db", store.db_path).returncode == 0
    index_store(store.root, tmp_path / "fresh.db", full=True)
    assert dump(store.db_path) == dump(tmp_path / "fresh.db")


@pytest.mark.parametrize("how", ["max_page_count", "RLIMIT_FSIZE"])
def test_a_full_disk_is_a_one_line_error(full_disk, how):
    _, _, run = full_disk
    result = run(how)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr[-1500:]
    assert "unchanged" in lines[0]
