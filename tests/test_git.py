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


def test_a_store_outside_git_is_told_without_running_git_and_as_git_would_tell_it(tmp_path, monkeypatch):
    store = tmp_path / "top" / "store"
    store.mkdir(parents=True)

    def git_finds_one() -> bool:
        return subprocess.run(["git", "-C", str(store), "rev-parse", "--git-dir"], capture_output=True).returncode == 0

    assert git._no_repository_above(store) and not git_finds_one() and git.repo(store) is None
    subprocess.run(["git", "init", "-q", str(tmp_path / "top")], check=True)
    assert not git._no_repository_above(store) and git_finds_one()
    assert git.repo(store).prefix == "store/"
    # git stops below a ceiling folder (a store under a checkout whose git it must not see, as the bench's are)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path / "top"))
    assert git._no_repository_above(store) and not git_finds_one() and git.repo(store) is None
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "top" / ".git"))  # a repository named outright: git is asked
    assert not git._no_repository_above(store) and git_finds_one()


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


def _told_by_git(root) -> tuple:
    found = git.repo(root)
    return (found.top, found.prefix, found.head) if found else None


@pytest.fixture
def work_tree(tmp_path, monkeypatch):
    """A repository with a store folder two deep in it, and no GIT_ variable that would move it."""
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(name, raising=False)
    top = tmp_path / "top"
    (top / "a" / "store").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", "top")
    return top


def test_where_reads_what_git_tells_from_the_repository_files(work_tree):
    store = work_tree / "a" / "store"
    assert git.where(store) == _told_by_git(store) == (work_tree.resolve(), "a/store/", None)  # no commit yet
    (store / "x.md").write_text("x")
    _git(work_tree, "add", "-A")
    _git(work_tree, "commit", "-qm", "one")
    assert git.where(store) == _told_by_git(store) and git.where(store)[2] is not None  # a loose ref
    assert git.where(work_tree) == _told_by_git(work_tree)  # the store at the top: prefix ''
    _git(work_tree, "pack-refs", "--all")  # the branch in packed-refs only
    assert not (work_tree / ".git" / "refs" / "heads" / "main").exists()
    assert git.where(store) == _told_by_git(store) and git.where(store)[2] is not None
    _git(work_tree, "commit", "-q", "--allow-empty", "-m", "two")  # a loose ref again, newer than the packed one
    assert git.where(store) == _told_by_git(store)
    _git(work_tree, "checkout", "-q", "--detach", "HEAD~1")  # HEAD a commit itself
    assert (
        git.where(store)
        == _told_by_git(store)
        == (work_tree.resolve(), "a/store/", _git(work_tree, "rev-parse", "HEAD"))
    )


def test_where_leaves_every_unusual_repository_to_git(work_tree, tmp_path, monkeypatch):
    store = work_tree / "a" / "store"
    _git(work_tree, "commit", "-q", "--allow-empty", "-m", "one")
    assert git.where(store) is not None
    # a linked work tree: its .git is a file naming the repository's own folder for it
    _git(work_tree, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = tmp_path / "linked" / "a" / "store"
    linked.mkdir(parents=True)
    assert git.where(linked) is None and _told_by_git(linked) is not None
    # a branch that is a symbolic ref to another: HEAD -> alias -> main
    _git(work_tree, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    _git(work_tree, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert git.where(store) is None and _told_by_git(store)[2] == _git(work_tree, "rev-parse", "main")
    _git(work_tree, "symbolic-ref", "HEAD", "refs/heads/main")
    # a repository named outright
    monkeypatch.setenv("GIT_DIR", str(work_tree / ".git"))
    assert git.where(store) is None
    monkeypatch.delenv("GIT_DIR")
    # a work tree set in the config, and an extension (git 2.39 refuses the repository: git's answer is None)
    config = work_tree / ".git" / "config"
    plain = config.read_text()
    config.write_text(plain + f"\tworktree = {work_tree}\n")
    assert git.where(store) is None and _told_by_git(store) is not None
    config.write_text(plain.replace("repositoryformatversion = 0", "repositoryformatversion = 1")
                      + "[extensions]\n\trefStorage = reftable\n")  # fmt: skip
    assert git.where(store) is None and _told_by_git(store) is None
    config.write_text(plain)
    # a ceiling between the store and its repository: git finds none, nor does where
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(work_tree / "a"))
    assert git.where(store) is None and _told_by_git(store) is None
    monkeypatch.delenv("GIT_CEILING_DIRECTORIES")
    # a HEAD that git could not read either
    (work_tree / ".git" / "HEAD").write_text("ref: refs/heads/../../config\n")
    assert git.where(store) is None


def test_an_index_run_with_no_new_commit_starts_no_git_process_and_status_one(work_tree, tmp_path, monkeypatch):
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
    assert not log.exists(), log.read_text()
    assert CliRunner().invoke(cli, ["status", str(store), "--db", str(db)]).exit_code == 0
    assert log.read_text().split() == ["status"]  # the store's place in the work tree read as HEAD is
    log.unlink()
    _git(work_tree, "commit", "-q", "--allow-empty", "-m", "two")  # a new commit: git reads the history
    log.unlink()
    assert CliRunner().invoke(cli, ["index", str(store), "--db", str(db)]).exit_code == 0
    assert log.read_text().split() == ["rev-parse", "log"]
