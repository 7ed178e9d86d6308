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
