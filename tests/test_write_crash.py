"""kill -9 at every step of a supersede, concurrent writers, and a disk that fills up mid-write.

The writers are real `seamless write` processes. A kill is a real SIGKILL: the process sends it to
itself at the step named in SEAMLESS_WRITE_KILL_AFTER (indexer.edit.atomic.crash_point).
"""

import resource
import shutil
import subprocess

import pytest
from stores import dump, seamless, seamless_command

from indexer.index.build import index_store
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record

OLD_ID = "01K00000000000000000000001"
SUPERSEDE = ["--project", "seamless", "--kind", "decision", "--name", "chroma-port"]
SUPERSEDE += ["--description", "Chroma listens on 8001", "--supersedes", OLD_ID, "--body", "Moved."]
# every step of a supersede: the replacement's temporary file synced, the replacement in place, the old
# memory's temporary file synced, the old memory stamped, the index updated
STEPS = ["temp-file#1", "replacement", "temp-file#2", "stamped", "indexed"]


def records(root) -> dict[str, dict]:
    """Every memory file of the store as the indexer reads it; a file it cannot read fails the test."""
    found = {}
    for path in sorted((root / "memories").rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        record, problems = memory_record(parse_bytes(rel, path.read_bytes(), 1 << 22))
        assert record is not None, problems
        found[rel] = record
    return found


def without_runs(tables: dict) -> dict:
    return {k: v for k, v in tables.items() if k != "index_runs"}


@pytest.fixture
def chain_store(store):
    assert store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")["id"] == OLD_ID
    store.memory("boot-race")
    store.index()
    return store


@pytest.mark.parametrize("step", STEPS)
def test_kill_9_at_each_step_of_a_supersede_then_rerun_completes_it(chain_store, step, tmp_path):
    store = chain_store
    killed = seamless("write", store.root, *SUPERSEDE, "--db", store.db_path, env=_env(step))
    assert killed.returncode == -9, killed.stderr
    # the store is readable: every memory file whole, the old one still there and still (or already) correct
    after_kill = records(store.root)
    assert "memories/seamless/chroma-port.md" in after_kill
    # the next `seamless index` agrees with a full rebuild
    index_store(store.root, store.db_path)
    full = tmp_path / "full.db"
    index_store(store.root, full, full=True)
    assert dump(store.db_path) == dump(full)
    # running the same command again completes the supersede, writing no second replacement; once both
    # files were written it was complete, and the rerun answers `unchanged` with the replacement (SPEC 11)
    before_rerun = {p: (store.root / p).read_bytes() for p in after_kill}
    again = seamless("write", store.root, *SUPERSEDE, "--db", store.db_path, env=_env(None))
    assert again.returncode == 0, again.stderr
    if step in ("stamped", "indexed"):
        assert again.stdout.startswith("unchanged ") and "nothing was written" in again.stdout
        assert {p: (store.root / p).read_bytes() for p in after_kill} == before_rerun
    final = records(store.root)
    named = {p: r for p, r in final.items() if r["name"] == "chroma-port"}
    assert len(named) == 2, sorted(named)
    old, new = named["memories/seamless/chroma-port.md"], named["memories/seamless/chroma-port-2.md"]
    assert old["superseded_by"] == new["id"] and old["invalid_at"] == new["valid_from"]
    assert new["status"] == "active" and new["body"] == "Moved.\n"
    assert store.rows("select status from memories where id = ?", (old["id"],)) == [("superseded",)]
    # a temporary file left by the kill is removed by the next write of its file
    assert not [p.name for p in (store.root / "memories/seamless").iterdir() if p.name.startswith(".")]


def _env(step: str | None) -> dict:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMLESS_")}
    if step:
        env["SEAMLESS_WRITE_KILL_AFTER"] = step
    return env


def test_concurrent_writers_take_turns_and_one_of_two_supersedes_wins(chain_store, tmp_path):
    store = chain_store
    old_id = store.rows("select id from memories where name = 'chroma-port'")[0][0]
    commands = [
        ["write", store.root, "--project", "seamless", "--kind", "gotcha", "--name", f"finding-{n}",
         "--description", f"Finding {n}: something distinct number {n}", "--json"]
        for n in range(8)
    ] + [
        ["write", store.root, "--project", "seamless", "--kind", "decision", "--name", f"chroma-port-{port}",
         "--description", f"Chroma listens on {port}", "--supersedes", old_id, "--json"]
        for port in (8001, 8002)
    ]  # fmt: skip
    processes = [
        subprocess.Popen(
            seamless_command(*c, "--db", store.db_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(None),
        )
        for c in commands
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in processes]
    assert [r[0] for r in results[:8]] == [0] * 8, [r[2] for r in results[:8]]
    supersedes = sorted(results[8:], key=lambda r: r[0])
    assert [r[0] for r in supersedes] == [0, 1], supersedes
    assert "not-active" in supersedes[1][2]
    files = records(store.root)
    assert len(files) == 2 + 8 + 1  # the loser wrote nothing
    winner = [r for r in files.values() if r["name"] in ("chroma-port-8001", "chroma-port-8002")]
    assert len(winner) == 1 and files["memories/seamless/chroma-port.md"]["superseded_by"] == winner[0]["id"]
    full = tmp_path / "full.db"
    index_store(store.root, full, full=True)
    assert dump(store.db_path) == dump(full)  # the index followed every write


def _limited(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_leaves_the_old_file_intact(chain_store, tmp_path):
    """RLIMIT_FSIZE: a write past the limit fails with EFBIG, as on a full disk (Python ignores SIGXFSZ)."""
    store = chain_store
    path = store.root / "memories/seamless/chroma-port.md"
    before = path.read_bytes()
    big = "x" * 200_000
    result = subprocess.run(
        seamless_command("append", store.root, "chroma-port", "--text", "-", "--db", store.db_path),
        input=big,
        capture_output=True,
        text=True,
        env=_env(None),
        preexec_fn=_limited(100_000),
    )
    assert result.returncode == 1 and "write-failed" in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temporary file left behind
    assert shutil.disk_usage(store.root).free > 0


def test_a_write_waits_for_an_index_run_holding_the_writer_lock(chain_store):
    """A write and `seamless index` on one database take turns: the write waits while the lock is held."""
    import time

    from indexer.index.database import writer_lock

    store = chain_store
    with writer_lock(store.db_path):
        process = subprocess.Popen(
            seamless_command("write", store.root, *SUPERSEDE[:6], "--description", "d", "--db", store.db_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(None),
        )
        time.sleep(1.5)
        assert process.poll() is None, process.communicate()
    assert process.wait(timeout=60) == 0, process.communicate()
