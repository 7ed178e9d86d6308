"""A sync killed at any moment, a hand commit, a failing sync: the next sync finishes by itself and the index ends
in step (docs/sync.md, "When a sync is killed"). Real git, real processes: `setsid` and a kill -9 of the sync's
whole process group, git's children included, until the kill lands inside git."""

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from fleet import SEAMLESS, Host, git, markers

from indexer.edit.sync import SyncError
from indexer.git.recovery import RECORD
from indexer.query import queries

ATTEMPTS = 12  # kills at most; the first RANDOM land at a random moment while a git command of the sync runs,
RANDOM = 3  # the others as soon as git runs the merge driver (it holds the index's lock then), until one has


pytestmark = pytest.mark.usefixtures("isolated_git")


def group(pgid: int) -> list[str]:
    """The names of the processes in process group `pgid`."""
    names = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[2]) == pgid:
                names.append(stat[stat.index("(") + 1 : stat.rindex(")")])
    return names


def left_behind(host: Host) -> list[str]:
    """git's locks and a merge driver's temporary files in the clone."""
    found = [p.name for p in host.top.glob(".merge_file_*")]
    found += [str(p.relative_to(host.top)) for p in (host.top / ".git").rglob("*.lock")]
    return found


def power_cut(host: Host, rng: random.Random, at_once: bool) -> tuple[list[str], list[str]]:
    """Start `seamless sync` in a session of its own and kill -9 its whole process group once a git command of it
    runs and a random moment has passed (`at_once`: as soon as git holds a merge driver's files). Returns what ran
    in the group when it was killed, and what it left behind."""
    child = subprocess.Popen(
        [*SEAMLESS, "sync", str(host.store), "--db", str(host.db)],
        cwd=host.top,
        start_new_session=True,  # setsid: the sync leads a process group of its own, its git children in it
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started, wait = time.monotonic(), rng.uniform(0, 0.6)
    running: list[str] = []
    while child.poll() is None and time.monotonic() - started < 30:
        running = group(child.pid)
        inside = any(name.startswith("git") for name in running)
        if at_once and any(host.top.glob(".merge_file_*")):
            break
        if not at_once and inside and time.monotonic() - started >= wait:
            break
        time.sleep(0.002)
    try:
        os.killpg(child.pid, signal.SIGKILL)  # kill -9 -- -PGID
    except ProcessLookupError:
        running = []
    child.wait()
    return running, left_behind(host)


def test_a_power_cut_inside_git_is_finished_by_the_next_write_and_sync(pair):
    a, b = pair
    rng = random.Random(32)
    inside, locked, texts = 0, 0, []
    for attempt in range(ATTEMPTS):
        texts += [f"On a, round {attempt}.", f"On b, round {attempt}."]
        a.append("chroma-port", texts[-2])
        a.sync()
        b.append("chroma-port", texts[-1])
        at_once = attempt >= RANDOM and not locked
        running, left = power_cut(b, rng, at_once=at_once)
        inside += any(name.startswith("git") for name in running)
        if ".git/index.lock" in left:
            locked += 1
            # killed while git ran the driver; a kill at a random moment may find the lock of another git command
            assert not at_once or any(name.startswith(".merge_file_") for name in left)
            assert (b.top / ".git" / RECORD).exists()
            # the next write finds the lock its killed sync left, removes it and commits
            texts.append(f"Written after the cut, round {attempt}.")
            assert b.append("chroma-port", texts[-1]).committed.warning is None
        result = b.sync()
        assert left_behind(b) == [] and not (b.top / ".git" / RECORD).exists()
        assert not b.merging() and git(b.top, "status", "--porcelain") == ""
        assert result.pushed or git(b.top, "rev-parse", "HEAD") == git(b.top, "rev-parse", "origin/main")
        if locked and inside >= RANDOM:
            break
    print(f"{attempt + 1} kills, {inside} inside git, {locked} with git's index locked")
    assert locked and inside >= RANDOM, f"{inside} kills landed inside git, {locked} left git's index locked"
    a.sync()
    assert a.files() == b.files() and not markers(b.files())
    body = b.rows("select body from memories")[0][0]
    assert [text for text in texts if text not in body] == []
    assert a.out_of_step() == b.out_of_step() == []  # every index in step with its files


def test_sync_every_is_not_stranded_by_a_lock_a_killed_sync_left(pair):
    a, b = pair
    rng = random.Random(1)
    for _ in range(ATTEMPTS):
        a.append("chroma-port", "On a.")
        a.sync()
        b.append("chroma-port", "On b.")
        if ".git/index.lock" in power_cut(b, rng, at_once=True)[1]:
            break
    assert (b.top / ".git/index.lock").exists()
    child = subprocess.Popen(
        [*SEAMLESS, "sync", str(b.store), "--db", str(b.db), "--every", "60"],
        cwd=b.top,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = child.stderr.readline()
    finally:
        child.send_signal(signal.SIGTERM)
        child.communicate(timeout=30)
    assert "sync: pulled" in first and "pushed" in first, first
    assert not (b.top / ".git/index.lock").exists()


def test_a_lock_that_is_not_ours_is_left_and_named_with_the_command_that_clears_it(pair):
    _, b = pair
    lock = b.top / ".git/index.lock"
    lock.write_text("")  # a git command of the user's killed half way: no record of seamless's
    head = git(b.top, "rev-parse", "HEAD")
    with pytest.raises(SyncError) as refused:
        b.sync()
    assert str(refused.value) == (
        f"{lock} is left by a git command that did not finish (none of seamless's): if no git command is running in "
        f"{b.top}, remove it (rm {lock}), then sync again"
    )
    assert lock.exists() and git(b.top, "rev-parse", "HEAD") == head
    # a git command still running in the clone holds it: even a lock of ours is left to it
    (b.top / ".git" / RECORD).write_text('{"pid": 1, "boot": "another boot", "started": 0}')
    holder = subprocess.Popen(["git", "cat-file", "--batch"], cwd=b.top, stdin=subprocess.PIPE)
    try:
        time.sleep(0.2)
        with pytest.raises(SyncError, match=rf"is held by a git command still running in {b.top} \({holder.pid} git"):
            b.sync()
        assert lock.exists()
    finally:
        holder.communicate(b"")
    lock.unlink()
    assert b.sync().pulled == 0  # the record of the dead process is cleared, and the sync goes on


def test_the_lock_of_gits_maintenance_a_killed_sync_left_is_cleared_too(pair):
    """A sync's fetch or merge starts git's auto maintenance, whose lock is below .git/objects: left by a kill, it
    would keep every later maintenance away."""
    _, b = pair
    (b.top / ".git" / RECORD).write_text('{"pid": 1, "boot": "another boot", "started": 0}')  # a killed sync's
    lock = b.top / ".git/objects/maintenance.lock"
    lock.write_text("")
    b.sync()
    assert left_behind(b) == [] and not (b.top / ".git" / RECORD).exists()


def test_a_failing_sync_between_a_killed_one_and_the_next_leaves_the_index_in_step(pair):
    """Killed after its merge commit (the index not yet brought in step with what it brought in); the next one
    fails (it cannot push, and puts its own merge back); the one after succeeds: the index is in step with all
    of it, what b edited by hand too."""
    a, b = pair
    a.write("queue-lock", "The queue lock is held across restarts", body="Found in CI.")
    a.sync()
    path = b.store / "memories/fleet/chroma-port.md"
    path.write_text(path.read_text() + "\nEdited by hand on b.\n")  # not through the write path: not indexed
    killed = b.cli("sync", str(b.store), "--db", str(b.db), env={"SEAMLESS_WRITE_KILL_AFTER": "sync-merged"})
    assert killed.returncode == -signal.SIGKILL
    a.append("chroma-port", "Appended on a.")
    a.sync()
    git(b.top, "remote", "set-url", "--push", "origin", str(b.top.parent / "gone.git"))
    failed = b.cli("sync", str(b.store), "--db", str(b.db))  # fetches, merges, cannot push: puts its merge back
    assert failed.returncode == 1 and "cannot push to origin" in failed.stderr
    git(b.top, "remote", "set-url", "--push", "origin", str(b.top.parent / "remote.git"))
    assert b.sync().pushed
    status = b.cli("status", str(b.store), "--db", str(b.db))  # as a person asks it
    assert status.returncode == 0 and "in step" in status.stderr, status.stdout + status.stderr
    for text, name in (("CI", "queue-lock"), ("Appended", "chroma-port"), ("Edited", "chroma-port")):
        assert [row["name"] for row in queries.recall(b.db, text, project=None, limit=5)] == [name]


def test_a_rename_committed_by_hand_reaches_the_index_of_the_host_that_made_it(pair):
    a, b = pair
    git(a.top, "mv", "memories/fleet/chroma-port.md", "memories/fleet/chroma-server-port.md")
    git(a.top, "commit", "-qm", "rename by hand")
    b.append("chroma-port", "Appended on b.")
    a.sync()
    b.sync()
    a.sync()
    assert a.files() == b.files() and list(a.files()) == ["memories/fleet/chroma-server-port.md"]
    for host in (a, b):
        assert host.rows("select path from memories") == [("memories/fleet/chroma-server-port.md",)]
        assert host.rows("select code from problems") == []  # no duplicate-id from a path the index kept
        (found,) = queries.recall(host.db, "Appended", project=None, limit=5)
        assert found["name"] == "chroma-port"
        assert host.out_of_step() == []


def test_a_write_between_a_sync_killed_mid_merge_and_the_next_sync(pair):
    """The write commits its file (the killed sync's merge cannot be undone under it yet); the next sync undoes
    that merge, merges again, and keeps every text."""
    a, b = pair
    a.append("chroma-port", "On a.")
    a.sync()
    b.append("chroma-port", "On b.")
    killed = b.cli("sync", str(b.store), "--db", str(b.db), env={"SEAMLESS_WRITE_KILL_AFTER": "sync-merging"})
    assert killed.returncode == -signal.SIGKILL and b.merging()
    assert b.append("chroma-port", "Written after the kill.").committed.warning is None
    assert b.sync().pushed and not b.merging() and not (b.top / ".git" / RECORD).exists()
    a.sync()
    body = a.files()["memories/fleet/chroma-port.md"]
    assert a.files() == b.files() and all(text in body for text in (b"On a.", b"On b.", b"Written after the kill."))
    assert b.out_of_step() == []
