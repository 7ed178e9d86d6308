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
