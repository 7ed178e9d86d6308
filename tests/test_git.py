"""indexer.git: git runs in a known environment, and a failure is one line."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from indexer import git
from indexer.git import commit


def test_a_folder_inside_a_work_tree_knows_its_top(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "memories").mkdir()
    assert git.work_tree(tmp_path / "memories") == tmp_path.resolve()


def test_a_plain_folder_is_not_a_work_tree(tmp_path):
    assert git.work_tree(tmp_path) is None
    assert git.work_tree(tmp_path / "missing") is None


def test_a_store_outside_git_is_in_no_work_tree_as_git_tells_it(tmp_path, monkeypatch):
    store = tmp_path / "top" / "store"
    store.mkdir(parents=True)
    assert git.repo(store) is None
    subprocess.run(["git", "init", "-q", str(tmp_path / "top")], check=True)
    assert git.repo(store).prefix == "store/"
    # git stops below a ceiling folder (a store under a checkout whose git it must not see, as the bench's are)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path / "top"))
    assert git.repo(store) is None


def test_a_failing_command_says_why_in_one_line(tmp_path):
    with pytest.raises(git.GitError) as raised:
        git.run(tmp_path, "log")
    assert "\n" not in str(raised.value) and str(raised.value).startswith("git log failed: ")
    assert "not a git repository" in str(raised.value)


@pytest.mark.parametrize(
    "path, indexed",
    [
        ("memories/seamless/boot-race.md", True),
        ("notes/a/b/c/design.md", True),
        ("memories/top.md", True),
        ("memories/.hidden/x.md", False),
        ("memories/p/.swap.md", False),
        ("memories//x.md", False),
        ("memories/p/x.txt", False),
        ("memories/p/x.md.bak", False),
        ("notesx/y.md", False),
        ("docs/x.md", False),
        ("memories", False),
    ],
)
def test_the_store_paths_git_reports_are_those_the_walk_would_index(path, indexed):
    assert git.is_store_path(path) is indexed


def test_one_git_process_makes_each_tree_of_a_commit_and_says_why_it_cannot(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    blob = git.run(tmp_path, "hash-object", "-w", "--stdin", input="a memory\n").stdout.strip()
    with commit.TreeMaker(tmp_path) as maker:
        inner = maker.make(b"100644 blob %s\tx.md\0" % blob.encode())
        outer = maker.make(b"040000 tree %s\tmemories\0" % inner.encode())
        empty = maker.make(b"")
    assert git.run(tmp_path, "ls-tree", "-r", "--name-only", outer).stdout == "memories/x.md\n"
    assert empty == git.run(tmp_path, "mktree", input="").stdout.strip()
    with pytest.raises(git.GitError) as raised, commit.TreeMaker(tmp_path) as maker:
        maker.make(b"100644 blob %s\tx.md\0" % (b"1" * 40))  # no such object
    assert str(raised.value).startswith("git mktree failed: ") and "\n" not in str(raised.value)


def _git(cwd, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@e", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@e"}
    done = subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True, env={**os.environ, **env}
    )
    return done.stdout.strip()


@pytest.fixture
def work_tree(tmp_path, monkeypatch):
    """A repository with a store folder two deep in it, and no GIT_ variable that would move it."""
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(name, raising=False)
    top = tmp_path / "top"
    (top / "a" / "store").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", "top")
    return top


def test_the_stores_place_and_head_are_what_git_rev_parse_tells(work_tree, tmp_path):
    store = work_tree / "a" / "store"
    found = git.repo(store)
    assert (found.root, found.top, found.prefix, found.head) == (store, work_tree.resolve(), "a/store/", None)
    _git(work_tree, "commit", "-q", "--allow-empty", "-m", "one")
    assert git.repo(store).head == _git(work_tree, "rev-parse", "HEAD")
    assert git.repo(work_tree).prefix == ""  # the store at the top
    _git(work_tree, "pack-refs", "--all")  # the branch in packed-refs only
    _git(work_tree, "symbolic-ref", "refs/heads/alias", "refs/heads/main")  # HEAD -> alias -> main
    _git(work_tree, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert git.repo(store).head == _git(work_tree, "rev-parse", "main")
    _git(work_tree, "worktree", "add", "-q", "--detach", str(tmp_path / "linked"))  # a linked work tree
    (tmp_path / "linked" / "a" / "store").mkdir(parents=True)
    linked = git.repo(tmp_path / "linked" / "a" / "store")
    assert (linked.top, linked.head) == ((tmp_path / "linked").resolve(), _git(work_tree, "rev-parse", "main"))


def test_an_index_run_with_no_new_commit_asks_git_for_head_alone(work_tree, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from indexer.front.cli import cli

    store = work_tree / "a" / "store"
    shutil.copytree(Path(__file__).parent.parent / "examples" / "store", store, dirs_exist_ok=True)
    _git(work_tree, "add", "-A")
    _git(work_tree, "commit", "-q", "-m", "one")
    db = tmp_path / "store.db"
    assert CliRunner().invoke(cli, ["index", str(store), "--db", str(db)]).exit_code == 0
    shims = tmp_path / "shims"
    shims.mkdir()
    log = tmp_path / "git.log"
    (shims / "git").write_text(f'#!/bin/sh\necho "$3" >> {log}\nexec {shutil.which("git")} "$@"\n')
    (shims / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}:{os.environ['PATH']}")
    assert CliRunner().invoke(cli, ["index", str(store), "--db", str(db)]).exit_code == 0
    assert log.read_text().split() == ["rev-parse"]  # HEAD is where the index last read the history
    log.unlink()
    assert CliRunner().invoke(cli, ["status", str(store), "--db", str(db)]).exit_code == 0
    assert log.read_text().split() == ["rev-parse", "status"]
    log.unlink()
    _git(work_tree, "commit", "-q", "--allow-empty", "-m", "two")  # a new commit: git reads the history
    log.unlink()
    assert CliRunner().invoke(cli, ["index", str(store), "--db", str(db)]).exit_code == 0
    assert log.read_text().split() == ["rev-parse", "log"]
