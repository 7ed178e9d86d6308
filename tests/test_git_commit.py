"""A write is a commit (SPEC section 10), in real git repositories: each write command commits exactly the files it
changed, with its message and trailers, and nothing of the user's; a commit that fails leaves the write standing."""

import json
import os
import shutil
import socket
import stat
import sys

import pytest
from gitstores import AUTHOR, git, init, isolate, last_commit, seamless, write


@pytest.fixture
def repo(store, tmp_path, monkeypatch):
    """The store at the top of a new git work tree."""
    isolate(monkeypatch, tmp_path)
    init(store.root)
    return store


def test_the_first_write_says_it_registered_the_merge_driver_and_committed_gitattributes(repo):
    args = ["write", repo.root, "--project", "seamless", "--new-project", "--kind", "gotcha", "--name", "boot-race"]
    lines = seamless(repo, *args, "--description", "Boot race: wait for port 8000").stdout.splitlines()
    setup, write_commit = git(repo.root, "log", "--format=%H", "-2").split()[::-1]
    config = repo.root / ".git" / "config"
    assert f"\n\tdriver = {sys.executable} -m indexer merge-driver %O %A %B %P\n" in config.read_text()
    assert lines[1] == (
        f"this clone's first write set git up: registered the merge driver, merge.seamless.driver = {sys.executable} "
        f"-m indexer merge-driver %O %A %B %P (in {config}); committed .gitattributes ({setup[:12]} seamless "
        "git-setup: merge memories and notes field by field)"
    )
    assert git(repo.root, "show", "--name-only", "--format=", setup).split() == [".gitattributes"]
    second = write(repo, "boot-race-2", "Boot race: wait for port 8001")
    assert "git_setup" not in second and write_commit != second["commit"]
    # the same in --json, in a clone whose first write it is
    git(repo.root.parent, "clone", "-q", repo.root, repo.root.parent / "clone")
    clone = type(repo)(repo.root.parent / "clone")
    out = write(clone, "boot-race-3", "Boot race: wait for port 8002")
    assert out["git_setup"] == {
        "driver": f"merge.seamless.driver = {sys.executable} -m indexer merge-driver %O %A %B %P (in "
        f"{clone.root / '.git' / 'config'})",
    }  # .gitattributes came with the clone: only the driver was registered, and no set-up commit made
    assert git(clone.root, "rev-parse", "HEAD~1") == git(repo.root, "rev-parse", "HEAD")


def test_each_action_commits_its_files_with_its_message_and_trailers(repo):
    first = write(repo, "chroma-port-8000", "Chroma listens on 8000", "--model", "claude-fable-5", "--session", "cc/1")
    mid = first["id"]
    assert last_commit(repo.root) == {
        "message": f"write chroma-port-8000 ({mid})\n\nSeamless-Id: {mid}\nSeamless-Action: write\n"
        "Seamless-Project: seamless\nSeamless-Session: cc/1\nSeamless-Model: claude-fable-5",
        "author": AUTHOR,
        "files": ["A\tmemories/seamless/chroma-port-8000.md"],
    }
    assert first["commit"] == git(repo.root, "rev-parse", "HEAD").strip()

    write(repo, "chroma-port-8000", "Chroma listens on 8000, in docker too")
    assert last_commit(repo.root)["message"].splitlines()[0] == f"update chroma-port-8000 ({mid})"
    assert last_commit(repo.root)["files"] == ["M\tmemories/seamless/chroma-port-8000.md"]

    seamless(repo, "append", repo.root, "chroma-port-8000", "--project", "seamless", "--text", "Seen again.")
    appended = last_commit(repo.root)
    assert appended["message"] == (
        f"append chroma-port-8000 ({mid})\n\nSeamless-Id: {mid}\nSeamless-Action: append\nSeamless-Project: seamless"
    )

    new = write(repo, "chroma-port", "Chroma listens on 8001 now", "--supersedes", mid)
    assert last_commit(repo.root) == {
        "message": f"supersede chroma-port-8000 -> chroma-port ({new['id']})\n\nSeamless-Id: {new['id']}\n"
        f"Seamless-Action: supersede\nSeamless-Project: seamless\nSeamless-Supersedes: {mid}",
        "author": AUTHOR,
        "files": ["M\tmemories/seamless/chroma-port-8000.md", "A\tmemories/seamless/chroma-port.md"],
    }

    seamless(repo, "archive", repo.root, new["id"])
    assert last_commit(repo.root)["message"].splitlines()[0] == f"archive chroma-port ({new['id']})"
    assert last_commit(repo.root)["files"] == ["M\tmemories/seamless/chroma-port.md"]

    mistake = write(repo, "never-true", "Written by mistake", project="global")
    seamless(repo, "delete", repo.root, mistake["id"])
    deleted = last_commit(repo.root)
    assert deleted["message"].splitlines()[0] == f"delete never-true ({mistake['id']})"
    assert "Seamless-Project: global" in deleted["message"].splitlines()
    assert deleted["files"] == ["D\tmemories/_global/never-true.md"]

    note = json.loads(
        seamless(repo, "note", repo.root, "--project", "seamless", "--title", "Design record", "--json").stdout
    )
    assert last_commit(repo.root)["message"].splitlines()[0] == f"note Design record ({note['id']})"
    assert last_commit(repo.root)["files"] == ["A\tnotes/seamless/design-record.md"]
    assert git(repo.root, "status", "--porcelain") == ""  # nothing left behind, in the work tree or the index
    subjects = git(repo.root, "log", "--reverse", "--format=%s").splitlines()
    # the first write registered the store's merge driver, in a commit of its own, as `seamless git-setup` does
    assert subjects[0] == "seamless git-setup: merge memories and notes field by field" and len(subjects) == 9


def test_the_users_own_changes_staged_or_not_are_left_as_they_were(repo):
    (repo.root / "README.md").write_text("one\n")
    kept = repo.memory("kept")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "start")
    (repo.root / "README.md").write_text("two\n")
    (repo.root / "memories/seamless/kept.md").write_text(
        (repo.root / "memories/seamless/kept.md").read_text() + "Staged by the user.\n"
    )
    git(repo.root, "add", "README.md", "memories/seamless/kept.md")
    (repo.root / "README.md").write_text("three\n")  # and an unstaged change on top
    (repo.root / "scratch.txt").write_text("untracked\n")
    staged_before = git(repo.root, "diff", "--cached")
    unstaged_before = git(repo.root, "diff")

    write(repo, "boot-race", "Boot race: wait for the port")

    assert last_commit(repo.root)["files"] == ["A\tmemories/seamless/boot-race.md"]
    assert git(repo.root, "diff", "--cached") == staged_before
    assert git(repo.root, "diff") == unstaged_before
    assert git(repo.root, "status", "--porcelain").splitlines() == [
        "MM README.md",
        "M  memories/seamless/kept.md",
        "?? scratch.txt",
    ]
    assert kept["id"] not in git(repo.root, "show", "HEAD")


def test_a_store_in_a_subfolder_of_the_work_tree(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    init(tmp_path)  # the store is tmp_path/store: a folder of a larger repository
    (tmp_path / "code.py").write_text("print(1)\n")
    git(tmp_path, "add", "code.py")
    write(store, "boot-race", "Boot race: wait for the port")
    assert last_commit(tmp_path)["files"] == ["A\tstore/memories/seamless/boot-race.md"]
    assert git(tmp_path, "diff", "--cached", "--name-only").split() == ["code.py"]
    rows = store.rows("select path, change from revisions")
    assert rows == [("memories/seamless/boot-race.md", "added")]


def test_with_no_identity_configured_the_author_is_seamless_at_this_host(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, identity=False)
    init(store.root)
    write(store, "boot-race")
    assert last_commit(store.root)["author"] == f"seamless <seamless@{socket.gethostname()}>"
    assert git(store.root, "log", "-1", "--format=%cn <%ce>").strip() == f"seamless <seamless@{socket.gethostname()}>"


def test_the_repositorys_own_identity_wins_over_the_global_one(repo):
    git(repo.root, "config", "user.name", "Grace Hopper")
    git(repo.root, "config", "user.email", "grace@example.com")
    write(repo, "boot-race")
    assert last_commit(repo.root)["author"] == "Grace Hopper <grace@example.com>"


def hook(repo, name: str, script: str) -> None:
    path = repo.root / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_a_commit_hook_runs_as_for_the_users_commits(repo, tmp_path):
    (repo.root / "README.md").write_text("staged\n")
    git(repo.root, "add", "README.md")
    ran = tmp_path / "hook-ran"
    hook(repo, "pre-commit", f"git diff --cached --name-only > {ran}\n")
    write(repo, "boot-race")
    assert last_commit(repo.root)["files"] == ["A\tmemories/seamless/boot-race.md"]
    assert ran.read_text() == "memories/seamless/boot-race.md\n"  # the hook saw the commit's files, not README.md
    assert git(repo.root, "diff", "--cached", "--name-only").split() == ["README.md"]


def test_a_failing_hook_leaves_the_write_standing_with_one_warning_and_status_lists_it(repo):
    hook(repo, "pre-commit", "echo 'refused by policy' >&2\nexit 1\n")
    result = seamless(repo, "write", repo.root, "--project", "seamless", "--new-project", "--kind", "gotcha", "--name", "boot-race",
                      "--description", "Boot race: wait for the port")  # fmt: skip
    warning = result.stderr.strip()
    assert len(warning.splitlines()) == 1
    assert warning.startswith("warning: memories/seamless/boot-race.md written but not committed (")
    # the next command, as it is written: git's own where the clone has no remote to sync with
    command = warning.rsplit("; ", 1)[1]
    assert "refused by policy" in warning and command.endswith("` commits them")
    assert command.startswith(f"`git -C {repo.root} add -A -- memories/seamless/boot-race.md && git -C ")
    assert (repo.root / "memories/seamless/boot-race.md").is_file()
    assert repo.rows("select name from memories") == [("boot-race",)]
    assert git(repo.root, "rev-parse", "--verify", "-q", "HEAD", check=False) == ""  # no commit was made
    status = seamless(repo, "status", repo.root)
    assert status.stdout.splitlines() == ["uncommitted: memories/seamless/boot-race.md"]
    assert "in step; 1 store files not committed to git;" in status.stderr


def test_a_locked_index_fails_the_commit_not_the_write(repo):
    write(repo, "first")
    (repo.root / ".git" / "index.lock").write_text("")
    result = seamless(repo, "append", repo.root, "first", "--text", "More.", "--project", "seamless")
    assert "index.lock" in result.stderr and "not committed" in result.stderr
    # not a lock of seamless's: it says what to run, and the command that commits the file after
    assert f"if no git command is running in {repo.root}, remove it (rm {repo.root}/.git/index.lock), then `git" in (
        result.stderr
    )
    assert "More." in (repo.root / "memories/seamless/first.md").read_text()
    assert git(repo.root, "log", "--format=%s").splitlines()[0].startswith("write first")  # HEAD did not move
    (repo.root / ".git" / "index.lock").unlink()
    assert seamless(repo, "status", repo.root).stdout == "uncommitted: memories/seamless/first.md\n"


def test_git_commit_false_writes_without_committing(repo):
    repo.write("seamless.toml", "[git]\ncommit = false\n")
    result = seamless(repo, "write", repo.root, "--project", "seamless", "--new-project", "--kind", "gotcha", "--name", "boot-race",
                      "--description", "Boot race: wait for the port", "--json")  # fmt: skip
    assert "commit" not in json.loads(result.stdout) and result.stderr == ""
    assert git(repo.root, "log", "--oneline", check=False) == ""
    assert "uncommitted: memories/seamless/boot-race.md" in seamless(repo, "status", repo.root).stdout


def test_a_store_git_ignores_is_not_committed_but_a_file_it_tracks_is(repo):
    repo.write(".gitignore", "memories/\nnotes/\n")
    result = seamless(repo, "write", repo.root, "--project", "seamless", "--new-project", "--kind", "gotcha", "--name", "boot-race",
                      "--description", "Boot race: wait for the port")  # fmt: skip
    assert result.stderr == "" and git(repo.root, "log", "--oneline", check=False) == ""
    git(repo.root, "add", "--force", "memories/seamless/boot-race.md")  # tracked, whatever the rules say
    git(repo.root, "commit", "-qm", "tracked by hand")
    seamless(repo, "append", repo.root, "boot-race", "--project", "seamless", "--text", "Seen again.")
    assert last_commit(repo.root)["files"] == ["M\tmemories/seamless/boot-race.md"]


@pytest.mark.parametrize("where", ["info/exclude", "core.excludesFile", "XDG_CONFIG_HOME", "a folder on the way"])
def test_a_store_ignored_by_any_of_gits_rules_is_not_committed(repo, tmp_path, monkeypatch, where):
    """Where no ignore rule exists, the write does not ask git which paths it ignores; each place git reads rules
    from counts."""
    if where == "info/exclude":
        (repo.root / ".git" / "info").mkdir(exist_ok=True)
        (repo.root / ".git" / "info" / "exclude").write_text("# the store stays out of git\nmemories/\n")
    elif where == "core.excludesFile":
        (tmp_path / "ignored").write_text("*.md\n")
        git(repo.root, "config", "core.excludesFile", str(tmp_path / "ignored"))
    elif where == "XDG_CONFIG_HOME":
        (tmp_path / "xdg" / "git").mkdir(parents=True)
        (tmp_path / "xdg" / "git" / "ignore").write_text("boot-*.md\n")
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    else:
        repo.write("memories/seamless/.gitignore", "*.md\n")
    result = seamless(repo, "write", repo.root, "--project", "seamless", "--new-project", "--kind", "gotcha", "--name", "boot-race",
                      "--description", "Boot race: wait for the port")  # fmt: skip
    assert result.stderr == "" and git(repo.root, "log", "--oneline", check=False) == ""


def test_a_new_memory_and_its_commit_take_eight_git_processes(repo, tmp_path, monkeypatch):
    """Each git process is a few ms of a write's start-up (docs/performance.md): rev-parse, config, update-index
    (which writes the blob), cat-file (its id, and HEAD's trees), mktree, commit-tree, update-ref, and the index's log
    of the new commit."""
    write(repo, "first")  # registers the merge driver, in a commit of its own
    shims = tmp_path / "shims"
    shims.mkdir()
    log = tmp_path / "git.log"
    real = shutil.which("git")
    (shims / "git").write_text(f'#!/bin/sh\necho "$3" >> {log}\nexec {real} "$@"\n')  # git -C DIR COMMAND ...
    (shims / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}:{os.environ['PATH']}")
    write(repo, "second", "Port 8123 is taken by the bench server")
    assert log.read_text().split() == [
        "rev-parse", "config", "update-index", "cat-file", "mktree", "commit-tree", "update-ref", "log"
    ]  # fmt: skip
    assert last_commit(repo.root)["files"] == ["A\tmemories/seamless/second.md"]
    assert seamless(repo, "history", "second", "--revisions").stdout.count("write second") == 1  # the index read it


def test_a_store_in_no_work_tree_writes_as_before(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    result = write(store, "boot-race")
    assert "commit" not in result and "warning" not in result
    assert not (store.root / ".git").exists()
    assert seamless(store, "status", store.root).stdout == ""


async def test_the_mcp_tools_commit_too_and_say_when_they_could_not(repo):
    pytest.importorskip("mcp")
    from indexer.front.mcp_server import build_server

    server = build_server(repo.root, repo.db_path, "seamless")

    async def tool(tool_name, **arguments) -> dict:
        result = await server.call_tool(tool_name, arguments)
        assert not result.is_error, result.content
        return json.loads(result.content[0].text)  # the tool's JSON, as a client reads it

    written = await tool(
        "memory_write", kind="gotcha", name="boot-race", description="Boot race: wait for the port", new_project=True
    )
    assert written["commit"] == git(repo.root, "rev-parse", "HEAD").strip() and "warning" not in written
    setup = git(repo.root, "rev-parse", "HEAD~1").strip()  # the clone's first write: said in the result too
    assert written["git_setup"]["commit"] == setup and written["git_setup"]["attributes"] == ".gitattributes"
    assert last_commit(repo.root)["files"] == ["A\tmemories/seamless/boot-race.md"]
    (repo.root / ".git" / "index.lock").write_text("")
    appended = await tool("memory_append", memory="boot-race", text="Seen twice.")
    assert "commit" not in appended
    assert appended["warning"].startswith("warning: memories/seamless/boot-race.md written but not committed (")
    assert "Seen twice." in (repo.root / "memories/seamless/boot-race.md").read_text()
