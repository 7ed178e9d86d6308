"""`seamless watch` as a real process over real files: every kind of change ends in the index, and nothing stops it."""

import json
import os
import random
import shutil
import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores import dump, memory_text, seamless, seamless_command
from test_served import free_port
from watching import Watching, read_freshness, wait_until

from indexer.index.build import index_paths, index_store
from indexer.index.database import writer_lock
from indexer.index.watch import queue_capacity
from indexer.sqlite import sqlite3


def names(db_path) -> set[str]:
    with sqlite3.connect(db_path) as conn:
        return {row[0] for row in conn.execute("select name from memories")}


def body_of(db_path, name: str) -> str | None:
    with sqlite3.connect(db_path) as conn:
        row = conn.execute("select body from memories where name = ?", (name,)).fetchone()
    return row[0] if row else None


def in_step_with_full(root: Path, db_path: Path, tmp_path: Path) -> bool:
    """The watched index holds exactly what `seamless index --full` makes of the store now."""
    full = tmp_path / "full.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{full}{suffix}").unlink(missing_ok=True)
    index_store(root, full, full=True)
    return dump(db_path) == dump(full)


@pytest.fixture
def watched(store):
    store.memory("first-memory", body="First body.")
    with Watching(store.root, store.db_path) as watcher:
        yield watcher


def test_it_indexes_once_then_says_it_is_watching(store, watched):
    assert "indexed: 1 memories" in watched.output()
    assert names(store.db_path) == {"first-memory"}
    row = read_freshness(store.db_path)
    assert row["watching"] == 1 and row["watcher_pid"] == watched.process.pid


def test_create_edit_rename_and_delete_reach_the_index(store, watched, tmp_path):
    store.memory("second-memory", body="Second body.")
    wait_until(lambda: "second-memory" in names(store.db_path))

    path = store.root / "memories/seamless/second-memory.md"
    path.write_text(path.read_text().replace("Second body.", "Edited body."))
    wait_until(lambda: body_of(store.db_path, "second-memory") == "Edited body.\n")

    path.rename(path.with_name("moved.md"))
    wait_until(lambda: store.rows("select path from memories where name = 'second-memory'"))
    wait_until(lambda: store.rows("select path from memories where name = 'second-memory'")[0][0].endswith("moved.md"))

    path.with_name("moved.md").unlink()
    wait_until(lambda: names(store.db_path) == {"first-memory"})
    wait_until(lambda: in_step_with_full(store.root, store.db_path, tmp_path))


def test_a_burst_of_files_like_a_git_checkout_is_followed(store, watched, tmp_path):
    for n in range(300):
        store.write(f"memories/burst/m{n}.md", memory_text(random.Random(n), n, f"01K1{n:022d}", "burst"))
    for n in range(0, 300, 3):
        os.unlink(store.root / f"memories/burst/m{n}.md")
    wait_until(lambda: len(names(store.db_path)) == 201, timeout=30)
    wait_until(lambda: in_step_with_full(store.root, store.db_path, tmp_path))


def test_a_git_checkout_of_another_branch_is_followed(store, tmp_path):
    """A real `git checkout` between branches that differ in hundreds of files: added, edited, removed."""

    def git(*args):
        subprocess.run(["git", "-C", store.root, *args], check=True, capture_output=True)

    for n in range(400):
        store.write(f"memories/repo/m{n}.md", memory_text(random.Random(n), n, f"01K6{n:022d}", "repo"))
    git("init", "-q", "-b", "main")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "main")
    git("checkout", "-q", "-b", "other")
    for n in range(0, 400, 2):
        os.unlink(store.root / f"memories/repo/m{n}.md")
    for n in range(1, 400, 4):
        path = store.root / f"memories/repo/m{n}.md"
        path.write_text(path.read_text() + "Edited on the other branch.\n")
    for n in range(400, 700):
        store.write(f"memories/other/m{n}.md", memory_text(random.Random(n), n, f"01K6{n:022d}", "other"))
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "other")
    git("checkout", "-q", "main")
    with Watching(store.root, store.db_path):
        assert len(names(store.db_path)) == 400
        git("checkout", "-q", "other")
        wait_until(lambda: len(names(store.db_path)) == 500, timeout=30)
        wait_until(lambda: in_step_with_full(store.root, store.db_path, tmp_path))
        git("checkout", "-q", "main")
        wait_until(lambda: len(names(store.db_path)) == 400, timeout=30)
        wait_until(lambda: in_step_with_full(store.root, store.db_path, tmp_path))


def test_a_folder_moved_in_and_out_with_its_files(store, watched, tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "deep").mkdir(parents=True)
    for n in range(5):
        (outside / "deep" / f"m{n}.md").write_text(memory_text(random.Random(n), n, f"01K2{n:022d}", "moved"))
    outside.rename(store.root / "memories" / "moved")  # one event for the folder, none for its files
    wait_until(lambda: len(names(store.db_path)) == 6)
    (store.root / "memories" / "moved").rename(tmp_path / "gone")
    wait_until(lambda: names(store.db_path) == {"first-memory"})


def test_the_sweep_finds_a_change_no_event_reported(store, tmp_path):
    """A file written through a hard link outside the store changes without an event in the store's
    folders (inotify watches folders, and reports what happens through their paths): only the sweep sees it."""
    store.memory("linked", body="Before.")
    outside = tmp_path / "outside.md"
    os.link(store.root / "memories/seamless/linked.md", outside)
    with Watching(store.root, store.db_path, "--sweep", "1") as watcher:
        outside.write_text(outside.read_text().replace("Before.", "After."))
        wait_until(lambda: body_of(store.db_path, "linked") == "After.\n")
        assert "the sweep found what the events missed: 1 changed" in watcher.output()


def test_an_index_locked_by_another_program_is_written_once_it_is_free(store, watched):
    """Another program holds SQLite's write lock past the busy timeout: the batch fails, is said once, and the
    whole store is indexed again every few seconds until the lock is gone."""
    blocker = sqlite3.connect(store.db_path, isolation_level=None)
    blocker.execute("begin immediate")
    try:
        store.memory("while-locked")
        watched.wait_for("could not write the index", timeout=30)
    finally:
        blocker.execute("rollback")
        blocker.close()
    wait_until(lambda: "while-locked" in names(store.db_path), timeout=30)
    watched.wait_for("the index is written again")
    assert watched.output().count("could not write the index") == 1


def test_a_bad_file_is_a_problem_and_the_watcher_goes_on(store, watched):
    store.write("memories/seamless/broken.md", "---\nkind: [\n---\n")
    wait_until(lambda: store.rows("select code from problems where path = 'memories/seamless/broken.md'"))
    store.memory("after-the-bad-one")
    wait_until(lambda: "after-the-bad-one" in names(store.db_path))
    assert watched.process.poll() is None


def test_files_that_vanish_as_they_are_read_never_stop_it(store, watched, tmp_path):
    for n in range(200):  # written and removed at once: many are gone before the batch reads them
        path = store.write(f"memories/flicker/f{n}.md", memory_text(random.Random(n), n, f"01K3{n:022d}", "x"))
        path.unlink()
    store.memory("still-followed")
    wait_until(lambda: "still-followed" in names(store.db_path))
    wait_until(lambda: in_step_with_full(store.root, store.db_path, tmp_path))
    assert watched.process.poll() is None and "Traceback" not in watched.output()


def test_the_store_folder_removed_and_recreated(store, watched, tmp_path):
    saved = tmp_path / "saved"
    shutil.copytree(store.root, saved)
    shutil.rmtree(store.root)
    watched.wait_for("is gone")
    assert names(store.db_path) == {"first-memory"}  # a missing store is not an empty one
    (saved / "memories/seamless/first-memory.md").write_text(
        (saved / "memories/seamless/first-memory.md").read_text().replace("First body.", "Restored body.")
    )
    saved.rename(store.root)
    watched.wait_for("is back")
    wait_until(lambda: body_of(store.db_path, "first-memory") == "Restored body.\n")
    store.memory("after-the-return")  # and it watches the new folder
    wait_until(lambda: "after-the-return" in names(store.db_path))


def test_the_memories_folder_removed_and_recreated(store, watched):
    shutil.rmtree(store.root / "memories")
    wait_until(lambda: names(store.db_path) == set())
    store.memory("in-a-new-folder")
    wait_until(lambda: names(store.db_path) == {"in-a-new-folder"})


def test_an_overflow_of_the_kernel_queue_falls_back_to_a_run_over_the_store(store, watched):
    """Stopped (SIGSTOP), the watcher reads no events while the kernel queues them: more than the queue
    holds are made, so the kernel drops the rest, the new memory's among them, and says so only in a way
    watchfiles does not pass on. The batch's size is what gives the overflow away."""
    flood = store.root / "memories"  # watched from the start (a new folder might be watched only after the flood)
    os.kill(watched.process.pid, signal.SIGSTOP)
    try:
        for n in range(queue_capacity() // 2):  # a create, an open, a write and a close each: twice the queue
            (flood / f"{n}.txt").write_text("not a memory")  # not *.md: the index does not care for them
        store.memory("after-the-flood")
    finally:
        os.kill(watched.process.pid, signal.SIGCONT)
    watched.wait_for("may have overflowed", timeout=30)
    wait_until(lambda: "after-the-flood" in names(store.db_path))


def test_a_watcher_error_falls_back_and_watches_again(store, watched):
    """A file name that is not UTF-8 is an error of watchfiles itself: the whole store is indexed instead."""
    os.close(os.open(os.fsencode(store.root / "memories") + b"/bad-\xff.md", os.O_CREAT | os.O_WRONLY))
    watched.wait_for("the watcher failed")
    wait_until(lambda: store.rows("select code from problems where code = 'not-utf8'"))
    watched.wait_for("watching again", timeout=20)
    store.memory("after-the-error")
    wait_until(lambda: "after-the-error" in names(store.db_path))


def test_the_index_removed_while_watching_is_built_again(store, watched):
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store.db_path}{suffix}").unlink(missing_ok=True)
    watched.wait_for("is gone; building it again")
    wait_until(lambda: store.db_path.exists() and names(store.db_path) == {"first-memory"})
    wait_until(lambda: read_freshness(store.db_path)["watcher_pid"] == watched.process.pid)
    store.memory("after-the-rebuild")
    wait_until(lambda: "after-the-rebuild" in names(store.db_path))


@pytest.mark.parametrize(
    ("db", "error"),
    [
        ("missing-folder/seamless.db", "cannot open the index at"),
        ("not-an-index.db", "could not write the index at"),
    ],
)
def test_an_index_that_cannot_be_written_is_a_clear_error(store, tmp_path, db, error):
    (tmp_path / "not-an-index.db").write_text("not SQLite")
    result = seamless("watch", store.root, "--db", tmp_path / db, timeout=60)
    assert result.returncode == 1 and error in result.stderr
    assert "Traceback" not in result.stderr and "watching " not in result.stderr


def test_an_index_of_another_store_is_refused(store, tmp_path):
    store.memory("a-memory")
    store.index()
    other = tmp_path / "other-store"
    (other / "memories").mkdir(parents=True)
    result = seamless("watch", other, "--db", store.db_path, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"rebuild it with `seamless index {other.resolve()} --db {store.db_path} --full`" in result.stderr
    assert "watching " not in result.stderr and names(store.db_path) == {"a-memory"}


def test_the_settings_file_changes_the_whole_index(store, watched):
    store.write("seamless.toml", "[index]\nmax_file_bytes = 10\n")
    wait_until(lambda: store.rows("select code from problems where code = 'too-large'"))


def test_a_file_the_index_already_has_is_not_indexed_again(store, watched):
    """The write path writes and indexes under the writer lock; the watcher's batch waits for the lock,
    then finds the file in step (same size, times or content hash) and changes nothing."""
    before = watched.batches()
    with writer_lock(store.db_path):
        store.memory("written-and-indexed")
        index_paths(store.root, store.db_path, ["memories/seamless/written-and-indexed.md"])
    wait_until(lambda: watched.batches() > before)
    assert store.rows("select files_changed from index_runs order by id desc limit 1") == [(0,)]
    assert "1 changed" not in watched.output().split("watching ", 1)[1]


def test_a_second_watcher_is_told_of_the_first_and_both_take_turns(store, watched):
    with Watching(store.root, store.db_path) as second:
        assert f"another watcher (pid {watched.process.pid} on " in second.output()
        store.memory("seen-by-both")
        wait_until(lambda: "seen-by-both" in names(store.db_path))


def test_seamless_write_while_watching_reads_the_file_once(store, watched):
    """Whichever comes first, the write path's own index update or the watcher's batch, the other finds the
    file in step: over every run after the write, one file changed."""
    (last_run,) = store.rows("select max(id) from index_runs")[0]
    before = watched.batches()
    written = seamless(
        "write", store.root, "--db", store.db_path, "--project", "seamless", "--kind", "gotcha",
        "--name", "written-by-the-cli", "--description", "Written while watching", "--body", "Body.",
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    assert "written-by-the-cli" in names(store.db_path)  # the write path indexed it before returning
    wait_until(lambda: watched.batches() > before)  # and the watcher has seen the event
    changed = store.rows("select sum(files_changed) from index_runs where id > ?", (last_run,))
    assert changed == [(1,)]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_it_cleanly_and_readers_see_it_stopped(store, watched, signum):
    assert watched.stop(signum) == 0
    output = watched.output()
    assert "stopped watching" in output and "Traceback" not in output
    row = read_freshness(store.db_path)
    assert row["watching"] == 0 and row["watcher_stopped"]


def test_a_signal_during_a_batch_lets_it_finish(store, watched, tmp_path):
    for n in range(1500):
        store.write(f"memories/big/m{n}.md", memory_text(random.Random(n), n, f"01K4{n:022d}", "big"))
    wait_until(lambda: watched.batches() or "changed" in watched.output().split("watching ", 1)[1], timeout=30)
    assert watched.stop() == 0
    assert "Traceback" not in watched.output()
    dump(store.db_path)  # the FTS integrity check: whatever was committed is whole
    index_store(store.root, store.db_path)  # whatever it did is whole: a run finds the rest and no damage
    assert len(names(store.db_path)) == 1501


def test_a_heartbeat_goes_stale_when_the_watcher_is_killed(store, watched):
    assert read_freshness(store.db_path)["watching"] == 1
    watched.process.kill()  # kill -9: no chance to mark its row
    watched.process.wait()
    # the 15 s (SPEC 9) its last heartbeat takes to age are written into its row rather than waited for
    with sqlite3.connect(store.db_path) as conn:
        aged = conn.execute(
            "update index_watch set heartbeat = strftime('%Y-%m-%dT%H:%M:%SZ', heartbeat, '-15 seconds') "
            "where pid = ? and stopped is null",
            (watched.process.pid,),
        ).rowcount
    assert aged == 1
    row = read_freshness(store.db_path)
    assert not row["watching"] and row["watcher_pid"] == watched.process.pid
    assert row["watcher_stopped"] is None and row["heartbeat_age"] >= 15


def get_json(port: int, path: str):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return json.load(response)


def answers(port: int, path: str):
    try:
        return get_json(port, path)
    except OSError:
        return None


def test_serve_watch_serves_and_follows_and_stops_both(store, tmp_path):
    store.memory("served-memory")
    port = free_port()
    command = seamless_command("serve", "--watch", store.root, "--db", store.db_path, "--port", port)
    with Watching(store.root, store.db_path, command=command) as served:
        fresh = wait_until(lambda: answers(port, "/-/freshness.json"), timeout=30)
        assert fresh["watching"] is True
        watcher_pid = fresh["watcher_pid"]
        assert watcher_pid != served.process.pid  # the watcher runs in a process of its own

        store.memory("written-while-served")
        query = "/seamless/memories.json?_shape=array&name=written-while-served"
        wait_until(lambda: answers(port, query))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/seamless/memories", timeout=10) as response:
            assert f"<strong>Watching:</strong> pid {watcher_pid} on " in response.read().decode()

        assert served.stop(signal.SIGTERM) in (0, -signal.SIGTERM)  # as `seamless serve` alone: uvicorn's way
        wait_until(lambda: not pid_alive(watcher_pid), what="the watcher stopped with the server")
        assert "Traceback" not in served.output()
    assert read_freshness(store.db_path)["watcher_stopped"]


def test_serve_watch_killed_hard_takes_its_watcher_along(store):
    port = free_port()
    command = seamless_command("serve", "--watch", store.root, "--db", store.db_path, "--port", port)
    with Watching(store.root, store.db_path, command=command) as served:
        watcher_pid = wait_until(lambda: answers(port, "/-/freshness.json"), timeout=30)["watcher_pid"]
        served.process.kill()
        wait_until(lambda: not pid_alive(watcher_pid), what="the orphaned watcher stopped")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by anyone) counts as stopped
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["create", "edit", "rename", "delete", "break", "duplicate", "move"]), st.integers(0, 5)),
    min_size=1,
    max_size=15,
)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=OPERATIONS)
def test_any_file_operations_while_watching_end_equal_to_a_full_run(tmp_path_factory, operations):
    tmp_path = tmp_path_factory.mktemp("property")
    root = tmp_path / "store"
    (root / "memories" / "a").mkdir(parents=True)
    db_path = tmp_path / "store.db"
    rng = random.Random(0)

    def path(n: int) -> Path:
        return root / "memories" / "ab"[n % 2] / f"m{n}.md"

    with Watching(root, db_path):
        for action, n in operations:
            target = path(n)
            if action in ("create", "duplicate") or not target.exists():
                memory_id = f"01K5{(n if action == 'duplicate' else 100 + n):022d}"  # a duplicate id: cross-file rules
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(memory_text(rng, n, memory_id, "prop"))
            elif action == "edit":
                target.write_text(target.read_text() + "Edited.\n")
            elif action == "rename":
                destination = path(n + 1) if not path(n + 1).exists() else target.with_name(f"r{n}.md")
                destination.parent.mkdir(parents=True, exist_ok=True)  # m0 -> m1 crosses from a/ to b/
                target.rename(destination)
            elif action == "delete":
                target.unlink()
            elif action == "break":
                target.write_text("---\nkind: [\n---\n")
            elif action == "move":  # a whole folder out of the store and back under another name
                folder = target.parent
                folder.rename(tmp_path / "out")
                (tmp_path / "out").rename(root / "notes" if not (root / "notes").exists() else folder)
        wait_until(lambda: in_step_with_full(root, db_path, tmp_path), timeout=30)
