"""Every message of `seamless sync` names the next command, and that command works as written (docs/sync.md, "When
sync refuses"). Real git: a bare remote and clones in a temporary folder."""

import re
import shlex
import subprocess

import pytest
from fleet import Host, git

from indexer.edit.sync import SyncError

pytestmark = pytest.mark.usefixtures("isolated_git")


def run_as_written(command: str) -> None:
    """Run a command a message gives, as a person would paste it."""
    done = subprocess.run(shlex.split(command), capture_output=True, text=True)
    assert done.returncode == 0, f"{command}: {done.stderr}"


def test_a_staged_file_outside_the_store_is_named_whole_with_what_clears_the_way(pair):
    a, b = pair
    a.append("chroma-port", "On a.")
    a.sync()
    b.append("chroma-port", "On b.")
    (b.top / "deploy notes.txt").write_text("a file of b's own, staged\n")
    git(b.top, "add", "deploy notes.txt")
    with pytest.raises(SyncError) as refused:
        b.sync()
    message = str(refused.value)
    assert message.startswith(
        "git merge failed: Your local changes to the following files would be overwritten by merge: deploy notes.txt; "
    )
    unstage = re.search(r"unstage them where the remote leaves them alone \((git [^)]*)\)", message).group(1)
    assert unstage == f"git -C {b.top} restore --staged -- 'deploy notes.txt'"
    run_as_written(unstage)
    assert b.sync().pushed
    assert git(b.top, "status", "--porcelain") == '?? "deploy notes.txt"\n'  # still there, still b's


def test_a_file_sync_cannot_merge_comes_with_a_merge_by_hand_that_works_as_written(pair):
    a, b = pair
    for host, budget in ((a, 5000), (b, 4000)):
        (host.top / "seamless.toml").write_text(f"[briefing]\nbudget_chars = {budget}\n")
        git(host.top, "add", "seamless.toml")
        git(host.top, "commit", "-qm", f"budget {budget}")
    a.append("chroma-port", "On a.")
    a.sync()
    b.append("chroma-port", "On b.")
    with pytest.raises(SyncError) as refused:
        b.sync()
    advice = str(refused.value).split("merge it by hand: ", 1)[1]
    merge, resolve, add, commit = advice.removesuffix("; then sync again").split(", ")
    assert merge == f"git -C {b.top} merge origin/main" and resolve == "resolve seamless.toml (edit it)"
    done = subprocess.run(shlex.split(merge), capture_output=True, text=True)
    assert done.returncode == 1 and "Merge conflict in seamless.toml" in done.stdout
    (b.top / "seamless.toml").write_text("[briefing]\nbudget_chars = 4500\n")  # what a person settles on
    run_as_written(add)
    run_as_written(commit)
    assert b.sync().pushed
    a.sync()
    assert (a.top / "seamless.toml").read_text() == "[briefing]\nbudget_chars = 4500\n"
    body = a.rows("select body from memories")[0][0]
    assert "On a." in body and "On b." in body  # the memory merged by the driver in the merge by hand


def test_the_copy_two_hosts_wrote_at_one_name_can_be_archived_by_its_id(pair):
    a, b = pair
    ids = {a.write("redis-port", "Redis listens on 6379").id}
    a.sync()
    ids.add(b.write("redis-port", "Redis listens on 6380").id)
    b.sync()
    # both kept (rule 4); the index holds one, and sets the other's file aside with the error duplicate-name
    ((aside,),) = b.rows("select path from problems where code = 'duplicate-name'")
    (indexed,) = {row[0] for row in b.rows("select id from memories where name = 'redis-port'")}
    (other,) = ids - {indexed}
    archived = b.archive(other)  # found by its id, in the file set aside
    assert (archived.id, archived.path, archived.status) == (other, aside, "archived")
    assert archived.committed.warning is None
    assert b.rows("select code from problems") == []
    assert b.rows("select id, status from memories where name = 'redis-port' order by status") == [
        (indexed, "active"),
        (other, "archived"),
    ]


def test_a_detached_head_names_the_clones_own_branch(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "--initial-branch=master", str(remote))
    a = Host(tmp_path, "a", remote)
    git(a.top, "symbolic-ref", "HEAD", "refs/heads/master")
    a.write("chroma-port", "Chroma listens on 8000")
    a.sync()
    b = Host(tmp_path, "b", remote)
    git(b.top, "checkout", "-q", "--detach")
    with pytest.raises(SyncError) as refused:
        b.sync()
    switch = re.search(r"\((git -C \S+ switch \S+)\)", str(refused.value)).group(1)
    assert switch == f"git -C {b.top} switch master"
    run_as_written(switch)
    assert b.sync().pulled == 0
