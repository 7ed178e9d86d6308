"""`seamless sync` and `seamless git-setup` against real git: a bare remote and clones in a temporary folder."""

import contextlib
import json
import os
import signal
import subprocess
import threading
import time

import pytest
from fleet import Host, fleet, git, markers

from indexer.edit.sync import SyncError, sync
from indexer.git.driver_setup import driver_command
from indexer.index.build import index_store
from indexer.query import queries
from indexer.sqlite import sqlite3

pytestmark = pytest.mark.usefixtures("isolated_git")


def uncommitted(host: Host) -> int:
    """1 when the store has changes a sync commits as `hand edits` (writes that did not commit), else 0."""
    return int(bool(git(host.top, "status", "--porcelain", "--", "memories", "notes")))


def needs_human(host: Host) -> list[dict]:
    return queries.run(host.db, "needs_human", as_of=None)


def test_a_memory_written_on_one_host_reaches_the_other_and_its_index(pair):
    a, b = pair
    assert b.files() == a.files()
    assert b.rows("select name, description from memories") == [("chroma-port", "Chroma listens on 8000")]
    written = b.write("queue-lock", "The queue lock is held across restarts", body="Found in CI.")
    hand_edits = uncommitted(b)
    result = b.sync()
    assert (result.pulled, result.pushed, result.merged, result.commits) == (0, True, False, hand_edits)
    result = a.sync()
    assert (result.pulled, result.pushed) == (1, False)
    assert a.rows("select id from memories where name = 'queue-lock'") == [(written.id,)]
    assert a.files() == b.files()
    # the store's merge driver is registered: .gitattributes committed, the command in the clone's config
    assert "memories/**/*.md merge=seamless" in git(a.top, "show", "HEAD:.gitattributes")
    assert git(b.top, "config", "merge.seamless.driver").strip() == driver_command()


def test_appends_on_two_hosts_keep_both_texts_and_say_so(pair):
    a, b = pair
    a.append("chroma-port", "Also on CI.")
    a.sync()
    b.append("chroma-port", "And in prod.")
    hand_edits = uncommitted(b)
    done = b.cli("sync", str(b.store), "--db", str(b.db), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    memory_id = b.rows("select id from memories")[0][0]
    assert result == {
        "pulled": 1,
        "pushed": True,
        "merged": True,
        "conflicts_resolved": [{"id": memory_id, "path": "memories/fleet/chroma-port.md", "rule": "appends"}],
        "commits": 1 + hand_edits,
    }
    assert done.stderr.strip() == "sync: pulled 1 commit, merged, 1 conflict resolved by the store's rules, pushed"
    body = b.rows("select body from memories")[0][0]
    assert "Also on CI." in body and "And in prod." in body
    a.sync()
    assert a.files() == b.files() and not markers(a.files())


def test_two_supersedes_at_once_keep_one_and_the_other_is_a_fork(pair):
    a, b = pair
    first = a.write("chroma-port-8001", "Chroma listens on 8001", supersedes="chroma-port")
    a.sync()
    # b's supersede is later (or in the same second, when the smaller successor id, a's, is kept all the same)
    second = b.write("chroma-port-9000", "Chroma listens on 9000", supersedes="chroma-port")
    b.sync()
    a.sync()
    assert a.files() == b.files()
    for host in (a, b):
        assert host.rows("select superseded_by from memories where name = 'chroma-port'") == [(first.id,)]
        assert host.rows("select supersedes from memories where id = ?", (second.id,)) == [(first.superseded,)]
        (problem,) = host.rows("select path, severity, code, message from problems")
        assert problem[:3] == ("memories/fleet/chroma-port-9000.md", "warning", "supersession-fork")
        assert first.superseded in problem[3] and first.id in problem[3]
        forks = [row for row in needs_human(host) if row["section"] == "fork"]
        assert [row["id"] for row in forks] == [second.id]
    # settled by a person: the fork's memory is archived, and it leaves the list
    b.archive(second.id)
    assert [row for row in needs_human(b) if row["section"] == "fork"] == []


def test_a_field_changed_on_both_hosts_goes_to_the_later_and_needs_a_human(pair):
    a, b = pair
    a.write("chroma-port", "Chroma listens on 8001")
    a.sync()
    b.write("chroma-port", "Chroma listens on 9000")  # later, or in the same second and the greater text
    result = b.sync()
    memory_id = b.rows("select id from memories")[0][0]
    assert {"id": memory_id, "path": "memories/fleet/chroma-port.md", "rule": "later-updated"} in (
        result.conflicts_resolved
    )
    assert f"Seamless-Concurrent-Edit: {memory_id}" in git(b.top, "log", "-1", "--format=%B")
    assert b.rows("select description from memories") == [("Chroma listens on 9000",)]
    a.sync()
    for host in (a, b):
        (row,) = [row for row in needs_human(host) if row["section"] == "concurrent"]
        assert row["id"] == memory_id and "edited on two hosts at once" in row["detail"]
    # what a's edit said is in the history (tests/test_forks.py: once written again, it leaves the list)
    assert "Chroma listens on 8001" in git(a.top, "log", "-p", "--all")


def test_a_memory_deleted_on_one_host_and_edited_on_the_other_is_kept(pair):
    a, b = pair
    a.delete("chroma-port")
    a.sync()
    b.append("chroma-port", "Still true on b.")
    result = b.sync()
    assert [c["rule"] for c in result.conflicts_resolved] == ["delete-vs-edit"]
    a.sync()
    assert "Still true on b." in (a.store / "memories/fleet/chroma-port.md").read_text()
    assert a.files() == b.files()


def test_two_new_memories_at_one_path_are_both_kept(pair):
    a, b = pair
    first = a.write("redis-port", "Redis listens on 6379")
    a.sync()
    # created later, or in the same second with the greater id (a ULID counts milliseconds)
    second = b.write("redis-port", "Redis listens on 6380")
    result = b.sync()
    assert result.conflicts_resolved == [{"id": second.id, "path": "memories/fleet/redis-port-2.md", "rule": "add-add"}]
    a.sync()
    assert a.files() == b.files()
    for host in (a, b):
        # both kept: the one at the name's path is indexed (SPEC section 5), and the other waits for a person as
        # a file with the error duplicate-name
        assert host.rows("select path, id from memories where name = 'redis-port'") == [
            ("memories/fleet/redis-port.md", first.id)
        ]
        errors = [row for row in needs_human(host) if row["section"] == "error"]
        assert [(row["path"], row["detail"]) for row in errors] == [
            ("memories/fleet/redis-port-2.md", "line 4: duplicate-name")
        ]


def test_an_edit_follows_its_memory_where_another_host_moved_it(tmp_path):
    """Rule 4 seen from a third host: c edits b's queue-lock while a, which wrote its own queue-lock first, keeps
    the name and moves b's aside: c's edit follows b's memory to queue-lock-2.md (hypothesis found this in
    test_convergence, where the sync stopped for a person)."""
    a, b, c = fleet(tmp_path, 3)
    a.write("queue-lock", "The queue lock is held for 30 s")
    moved = b.write("queue-lock", "The queue lock is taken per job")
    b.sync()
    c.sync()
    c.write("queue-lock", "The queue lock is taken per job, never per batch")
    aside = {"id": moved.id, "path": "memories/fleet/queue-lock-2.md"}
    assert a.sync().conflicts_resolved == [aside | {"rule": "add-add"}]
    assert c.sync().conflicts_resolved == [aside | {"rule": "edit-follows-move"}]
    a.sync()
    b.sync()
    assert a.files() == b.files() == c.files()
    assert b"never per batch" in c.files()["memories/fleet/queue-lock-2.md"]
    assert markers(c.files()) == []


def test_a_memory_deleted_beside_a_new_one_like_it_is_no_rename_of_it(pair):
    """a deletes queue-lock and writes queue-lock-v2 with the same text (another memory: its own id) while b
    appends to queue-lock: git's rename detection would take one for the other and put b's text in the new one."""
    a, b = pair
    text = "The queue lock is held across restarts.\nIt is released by the reaper.\nNever by hand.\n"
    a.write("queue-lock", "The queue lock is held across restarts", body=text)
    a.sync()
    b.sync()
    a.delete("queue-lock")
    a.write("queue-lock-v2", "The queue lock is held across restarts", body=text)
    written = (a.store / "memories/fleet/queue-lock-v2.md").read_bytes()
    a.sync()
    kept = b.append("queue-lock", "Still held on b.")
    result = b.sync()
    assert result.conflicts_resolved == [
        {"id": kept.id, "path": "memories/fleet/queue-lock.md", "rule": "delete-vs-edit"}
    ]
    a.sync()
    assert a.files() == b.files()
    assert "Still held on b." in (a.store / "memories/fleet/queue-lock.md").read_text()
    assert (a.store / "memories/fleet/queue-lock-v2.md").read_bytes() == written


def one_second_memory(memory_id: str, description: str) -> str:
    """A memory `queue-lock` of project fleet, created at one fixed second (as two hosts' writes may be)."""
    return (
        f"---\nid: {memory_id}\nkind: gotcha\nname: queue-lock\ndescription: {description}\nproject: fleet\n"
        f"created: 2026-12-04T12:00:00Z\nupdated: 2026-12-04T12:00:00Z\n---\n{description}.\n"
    )


@pytest.mark.parametrize("smaller_id_on", ["a", "b"])
def test_two_memories_of_one_name_created_in_one_second_leave_the_name_to_one_everywhere(pair, tmp_path, smaller_id_on):
    """Rule 4 when neither is later-created: the smaller id stays at the name's path, and that is the memory every
    index keeps (SPEC 5: `x.md` comes before `x-2.md`) and a write by that name edits, on every host."""
    a, b = pair
    smaller, greater = "01K9ZZ0000000000000000000A", "01K9ZZ0000000000000000000B"
    ids = {"a": smaller, "b": greater} if smaller_id_on == "a" else {"a": greater, "b": smaller}
    for host in (a, b):  # by hand: the sync commits them
        (host.store / "memories/fleet/queue-lock.md").write_text(one_second_memory(ids[host.name], f"On {host.name}"))
    a.sync()
    result = b.sync()
    assert result.conflicts_resolved == [{"id": greater, "path": "memories/fleet/queue-lock-2.md", "rule": "add-add"}]
    a.sync()
    assert a.files() == b.files()
    assert f"id: {smaller}" in a.files()["memories/fleet/queue-lock.md"].decode()
    fresh = tmp_path / "fresh.db"
    index_store(a.store, fresh, full=True)
    for db in (a.db, b.db, fresh):  # each host's index as its sync left it, and one built from the files
        with contextlib.closing(sqlite3.connect(db)) as conn:
            kept = conn.execute("select path, id from memories where name = 'queue-lock'").fetchall()
            errors = conn.execute("select path, code, message from problems where severity = 'error'").fetchall()
        assert kept == [("memories/fleet/queue-lock.md", smaller)], db
        assert errors == [
            (
                "memories/fleet/queue-lock-2.md",
                "duplicate-name",
                "name 'queue-lock' (project fleet) is also used by memories/fleet/queue-lock.md "
                "(created 2026-12-04T12:00:00Z, as this one was): the first path is indexed",
            )
        ], db
    for host in (a, b):  # the name names that memory on every host
        host.append("queue-lock", f"Appended on {host.name}.")
        assert f"Appended on {host.name}." in (host.store / "memories/fleet/queue-lock.md").read_text()


def test_a_plain_git_pull_merges_memories_the_same_way(pair):
    a, b = pair
    a.write("chroma-port", "Chroma listens on 8000", tags=["ports"])
    a.sync()
    b.append("chroma-port", "And in prod.")  # a write is a commit
    git(b.top, "pull", "-q", "--no-rebase", "--no-edit")
    text = (b.store / "memories/fleet/chroma-port.md").read_text()
    assert "tags: [ports]" in text and "And in prod." in text and not markers(b.files())


def test_a_store_in_a_folder_of_the_work_tree(tmp_path):
    a, b = fleet(tmp_path, store_in="team/store")
    (a.top / "README.md").write_text("the team's repository\n")
    git(a.top, "add", "README.md")
    git(a.top, "commit", "-qm", "readme")
    a.write("chroma-port", "Chroma listens on 8000")
    a.sync()
    b.sync()
    a.append("chroma-port", "On a.")
    b.append("chroma-port", "On b.")
    a.sync()
    result = b.sync()
    assert [c["rule"] for c in result.conflicts_resolved] == ["appends"]
    assert (b.top / "team/store/.gitattributes").exists() and (b.top / "README.md").exists()
    a.sync()
    assert a.files() == b.files()


def test_a_push_race_is_fetched_merged_and_pushed_again(pair):
    """b's push meets a remote that a moved after b fetched (a pre-push hook pushes a's commit first)."""
    a, b = pair
    a.write("queue-lock", "The queue lock is held across restarts")  # a write is a commit
    hook = b.top / ".git/hooks/pre-push"
    hook.write_text(
        f"#!/bin/sh\n[ -e {b.top}/.git/raced ] && exit 0\ntouch {b.top}/.git/raced\n"
        f"git -C {a.top} push -q origin HEAD:main\n"
    )
    hook.chmod(0o755)
    b.append("chroma-port", "And in prod.")
    result = b.sync()
    assert (b.top / ".git/raced").exists()
    assert result.pushed and result.pulled == 1
    assert git(b.top, "rev-parse", "HEAD") == git(b.top, "rev-parse", "origin/main")
    a.sync()
    assert a.files() == b.files()


def test_hosts_syncing_at_the_same_time_converge(tmp_path):
    hosts = fleet(tmp_path, hosts=3)
    for host in hosts:
        host.write(f"from-{host.name}", f"Written on host {host.name}")
    errors = []

    def run(host):
        done = host.cli("sync", str(host.store), "--db", str(host.db))
        if done.returncode:
            errors.append(done.stderr)

    threads = [threading.Thread(target=run, args=(host,)) for host in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for host in hosts + hosts:
        host.sync()
    assert hosts[0].files() == hosts[1].files() == hosts[2].files()
    assert len(hosts[0].files()) == 3


def test_an_unreachable_remote_is_one_line_and_nothing_is_lost(pair, tmp_path):
    a, b = pair
    b.append("chroma-port", "Written while offline.")
    (b.store / "memories/fleet/by-hand.md").write_text((b.store / "memories/fleet/chroma-port.md").read_text())
    status, head = git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")
    git(b.top, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    done = b.cli("sync", str(b.store), "--db", str(b.db))
    assert done.returncode == 1
    assert done.stderr.startswith("Error: cannot fetch from origin: ") and done.stderr.count("\n") == 1
    assert (git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")) == (status, head)
    # the fetch works, the push cannot reach: the merge and the hand edits are undone, the files kept
    git(b.top, "remote", "set-url", "origin", str(tmp_path / "remote.git"))
    git(b.top, "remote", "set-url", "--push", "origin", str(tmp_path / "gone.git"))
    a.append("chroma-port", "Meanwhile on a.")
    a.sync()
    files = b.files()
    with pytest.raises(SyncError, match=r"^cannot push to origin: "):
        b.sync()
    assert (git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")) == (status, head)
    assert b.files() == files and not b.merging()
    assert b.rows("select body from memories where name = 'chroma-port'")[0][0].endswith("Written while offline.\n")


def test_a_store_not_in_git_refuses_in_one_line_and_writes_work(tmp_path):
    host = Host.__new__(Host)
    host.top = host.store = tmp_path / "plain"
    host.store.mkdir()
    host.db = tmp_path / "plain.db"
    done = host.cli("sync", str(host.store), "--db", str(host.db))
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "is not in a git work tree" in done.stderr
    assert host.write("still-writes", "Writes work without git").action == "created"


def test_no_remote_and_a_detached_head_are_refused(pair):
    _, b = pair
    git(b.top, "remote", "rename", "origin", "fleet")
    assert b.sync().pulled == 0  # the branch's upstream names the renamed remote
    git(b.top, "branch", "--unset-upstream")
    with pytest.raises(SyncError, match="no remote named 'origin' \\(this clone has: fleet\\)"):
        b.sync()
    assert b.sync(remote="fleet").pulled == 0
    git(b.top, "checkout", "-q", "--detach")
    with pytest.raises(SyncError, match="HEAD is detached"):
        b.sync(remote="fleet")


def test_changes_outside_the_store_are_left_alone(pair):
    _, b = pair
    (b.top / "notes.txt").write_text("not the store's\n")
    (b.top / "seamless.toml").write_text("[briefing]\nbudget_chars = 5000\n")
    git(b.top, "add", "seamless.toml")
    git(b.top, "commit", "-qm", "settings")
    (b.top / "seamless.toml").write_text("[briefing]\nbudget_chars = 4000\n")
    b.append("chroma-port", "By b.")
    b.sync()
    assert git(b.top, "status", "--porcelain") == " M seamless.toml\n?? notes.txt\n"
    assert git(b.top, "log", "-1", "--format=%s").startswith("append chroma-port (")  # the write's own commit
    assert git(b.top, "show", "--name-only", "--format=", "HEAD").split() == ["memories/fleet/chroma-port.md"]


def test_a_conflicting_seamless_toml_stops_the_sync_and_restores_the_branch(pair):
    a, b = pair
    for host, budget in ((a, 5000), (b, 4000)):
        (host.top / "seamless.toml").write_text(f"[briefing]\nbudget_chars = {budget}\n")
        git(host.top, "add", "seamless.toml")
        git(host.top, "commit", "-qm", f"budget {budget}")
    a.sync()
    b.append("chroma-port", "By b.")
    status, head = git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")
    with pytest.raises(SyncError, match=r"^seamless\.toml changed on both sides and git cannot merge it"):
        b.sync()
    assert (git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")) == (status, head)
    assert (b.top / "seamless.toml").read_text() == "[briefing]\nbudget_chars = 4000\n" and not b.merging()
    assert b.rows("select body from memories")[0][0].endswith("By b.\n")


def test_a_memory_the_driver_cannot_read_goes_to_gits_merge_then_the_indexer(pair):
    a, b = pair
    broken = "---\nid: [\n---\n" + "".join(f"line {n}\n" for n in range(10))
    (a.store / "memories/fleet/broken.md").write_text(broken)
    a.sync()
    b.sync()
    (a.store / "memories/fleet/broken.md").write_text(broken.replace("line 1\n", "line one\n"))
    (b.store / "memories/fleet/broken.md").write_text(broken.replace("line 8\n", "line eight\n"))
    a.sync()
    b.sync()  # git's own merge is clean: the lines of both
    text = (b.store / "memories/fleet/broken.md").read_text()
    assert "line one" in text and "line eight" in text
    assert b.rows("select code from problems where path = 'memories/fleet/broken.md'") == [("yaml-error",)]
    # the same line on both sides: git's merge conflicts, and the sync stops with the branch as it was
    (a.store / "memories/fleet/broken.md").write_text(text.replace("line 5\n", "line five\n"))
    (b.store / "memories/fleet/broken.md").write_text(text.replace("line 5\n", "line FIVE\n"))
    a.sync()
    with pytest.raises(SyncError, match=r"^memories/fleet/broken\.md cannot be merged by the store's rules"):
        b.sync()
    assert "line FIVE" in (b.store / "memories/fleet/broken.md").read_text() and not markers(b.files())
    assert not b.merging()


@pytest.mark.parametrize("step", ["sync-committed", "sync-merging", "sync-merged", "sync-pushed"])
def test_a_sync_killed_at_any_step_is_finished_by_the_next(pair, step):
    a, b = pair
    a.append("chroma-port", "On a.")
    a.sync()
    b.append("chroma-port", "On b.")
    done = b.cli("sync", str(b.store), "--db", str(b.db), env={"SEAMLESS_WRITE_KILL_AFTER": step})
    assert done.returncode == -signal.SIGKILL
    result = b.sync()
    assert not b.merging() and git(b.top, "status", "--porcelain") == ""
    assert git(b.top, "rev-parse", "HEAD") == git(b.top, "rev-parse", "origin/main")
    a.sync()
    assert a.files() == b.files() and not markers(b.files())
    body = b.rows("select body from memories")[0][0]
    assert "On a." in body and "On b." in body
    assert b.cli("status", str(b.store), "--db", str(b.db)).returncode == 0  # the index is in step
    assert result.pushed or step == "sync-pushed"


def test_sync_every_repeats_until_stopped(pair):
    a, b = pair
    child = subprocess.Popen(
        ["python", "-m", "indexer", "sync", str(b.store), "--db", str(b.db), "--every", "1"],
        cwd=b.top,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PATH": os.path.dirname(os.sys.executable) + os.pathsep + os.environ["PATH"]},
    )
    try:
        first = child.stderr.readline()
        a.write("queue-lock", "The queue lock is held across restarts")
        a.sync()
        deadline = time.monotonic() + 20
        while not (b.store / "memories/fleet/queue-lock.md").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        child.send_signal(signal.SIGTERM)
        rest = child.communicate(timeout=20)[1]
    assert child.returncode == 0
    assert first.endswith("sync: pulled 0 commits, nothing to push\n")
    assert "pulled 1 commit" in rest and rest.endswith("stopped syncing\n")
    assert b.rows("select name from memories where name = 'queue-lock'") == [("queue-lock",)]


def test_git_setup_registers_the_driver_once(tmp_path):
    (a,) = fleet(tmp_path, hosts=1)
    done = a.cli("git-setup", str(a.store))
    assert done.returncode == 0
    assert done.stdout.splitlines()[1:] == [".gitattributes: memories/**/*.md merge=seamless; notes/**/*.md merge=seamless; "
                                            "gardener/dismissed.jsonl merge=union", "committed .gitattributes"]  # fmt: skip
    assert git(a.top, "log", "--format=%s") == "seamless git-setup: merge memories and notes field by field\n"
    again = a.cli("git-setup", str(a.store))
    assert (again.returncode, again.stdout) == (0, "")
    assert "already set up" in again.stderr


def test_commits_name_seamless_when_git_names_no_one(tmp_path):
    (a,) = fleet(tmp_path, hosts=1)
    git(a.top, "config", "--unset", "user.name")
    git(a.top, "config", "--unset", "user.email")
    (a.store / "memories/fleet").mkdir(parents=True)
    (a.store / "memories/fleet/by-hand.md").write_text("---\nid: 01K00000000000000000000AAA\n---\n")
    a.sync()
    assert git(a.top, "log", "-1", "--format=%an <%ae> %s").startswith("seamless <seamless@")


def test_an_index_of_another_store_is_refused_before_anything_changes(pair):
    a, b = pair
    b.append("chroma-port", "By b.")
    status, head = git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")
    with pytest.raises(SyncError, match=f"the index at {a.db} holds the store at {a.store}"):
        sync(b.store, a.db)
    assert (git(b.top, "status", "--porcelain"), git(b.top, "rev-parse", "HEAD")) == (status, head)
