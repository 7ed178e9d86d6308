"""indexer.store.git: git runs in a known environment, and a failure is one line."""

import subprocess

import pytest

from indexer.store import git


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
    with git.TreeMaker(tmp_path) as maker:
        inner = maker.make(b"100644 blob %s\tx.md\0" % blob.encode())
        outer = maker.make(b"040000 tree %s\tmemories\0" % inner.encode())
        empty = maker.make(b"")
    assert git.run(tmp_path, "ls-tree", "-r", "--name-only", outer).stdout == "memories/x.md\n"
    assert empty == git.run(tmp_path, "mktree", input="").stdout.strip()
    with pytest.raises(git.GitError) as raised, git.TreeMaker(tmp_path) as maker:
        maker.make(b"100644 blob %s\tx.md\0" % (b"1" * 40))  # no such object
    assert str(raised.value).startswith("git mktree failed: ") and "\n" not in str(raised.value)
