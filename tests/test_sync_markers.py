"""Conflict markers never spread (SPEC section 10): a clone's first write registers the merge driver, so a plain
`git pull` merges two supersedes by the store's rules; where git's own merge still leaves markers, the indexer
names their lines, and no sync commits or pushes them. Real git: a bare remote and clones in a temporary folder."""

import pytest
from fleet import Host, git, markers

from indexer.edit.sync import SyncError
from indexer.git.driver_setup import driver_command

pytestmark = pytest.mark.usefixtures("isolated_git")


def test_a_clones_first_write_registers_the_driver_so_a_plain_pull_merges_two_supersedes(pair, tmp_path):
    """Hosts a and b synced (the driver's .gitattributes is on the remote); c and d are new clones."""
    c, d = (Host(tmp_path, name, tmp_path / "remote.git") for name in ("c", "d"))  # neither synced nor set up
    assert git(d.top, "config", "--get", "merge.seamless.driver", check=False) == ""
    first = c.write("chroma-port-8001", "Chroma listens on 8001", supersedes="chroma-port")
    git(c.top, "push", "-q", "origin", "HEAD:main")
    d.write("chroma-port-9000", "Chroma listens on 9000", supersedes="chroma-port")
    assert git(d.top, "config", "--get", "merge.seamless.driver").strip() == driver_command()
    git(d.top, "pull", "-q", "--no-rebase", "--no-edit")
    assert markers(d.files()) == [] and not d.merging()
    memory = (d.store / "memories/fleet/chroma-port.md").read_text()
    assert f"superseded_by: {first.id}" in memory  # rule 1: the earliest invalid_at, with its successor


def test_markers_git_left_are_their_own_error_and_no_sync_commits_or_pushes_them(pair):
    a, b = pair
    a.write("redis-port", "Redis listens on 6379")
    a.sync()
    b.write("redis-port", "Redis listens on 6380")
    # a memory both wrote at one path: git's own merge (the driver cannot merge two memories) leaves markers
    assert "CONFLICT (add/add)" in git(b.top, "pull", "-q", "--no-rebase", "--no-edit", check=False)
    assert markers(b.files()) == ["memories/fleet/redis-port.md"] and b.merging()
    lines = (b.store / "memories/fleet/redis-port.md").read_text().splitlines()
    start = next(n for n, line in enumerate(lines, 1) if line.startswith("<<<<<<< "))  # the first conflict's lines
    middle = lines.index("=======", start) + 1
    end = next(n for n, line in enumerate(lines, 1) if n > middle and line.startswith(">>>>>>> "))
    first = f"<<<<<<< at line {start}, ======= at line {middle}, >>>>>>> at line {end}"
    indexed = b.cli("index", str(b.store), "--db", str(b.db))
    assert (
        f"memories/fleet/redis-port.md:{start}: error conflict-markers: conflict markers left by a git merge: {first}"
    ) in indexed.stdout
    assert indexed.stdout.count("conflict-markers") == 1 and "yaml-error" not in indexed.stdout
    with pytest.raises(SyncError, match=r"a merge is under way .*: finish it \(git merge --abort, then sync"):
        b.sync()
    # committed by hand as it stands: the sync refuses to push it, and the remote never holds it
    git(b.top, "commit", "-qam", "merge by hand")
    remote = git(a.top, "ls-remote", "origin", "main")
    with pytest.raises(SyncError) as refused:
        b.sync()
    message = str(refused.value)
    assert message.startswith(f"memories/fleet/redis-port.md:{start}: conflict markers left by a git merge, committed ")
    assert first in message and message.endswith(
        "keep the text you want and delete the marker lines in that file, then sync again (it commits the fix); "
        "nothing was pushed"
    )
    assert git(a.top, "ls-remote", "origin", "main") == remote
    # edited by hand, the markers still in: refused as a hand edit the sync will not commit
    text = (b.store / "memories/fleet/redis-port.md").read_text()
    (b.store / "memories/fleet/redis-port.md").write_text(text.replace("on 6380", "on port 6380"))
    with pytest.raises(
        SyncError, match=rf"^memories/fleet/redis-port\.md:{start}: conflict markers .*then sync again$"
    ):
        b.sync()
    ours = git(b.top, "show", "HEAD^1:memories/fleet/redis-port.md")  # resolved: b's side, as b wrote it
    (b.store / "memories/fleet/redis-port.md").write_text(ours)
    assert b.sync().pushed
    a.sync()
    assert a.files() == b.files() and markers(a.files()) == []
    assert a.rows("select description from memories where name = 'redis-port'") == [("Redis listens on 6380",)]
