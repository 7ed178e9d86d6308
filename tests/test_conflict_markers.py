"""Conflict markers a git merge leaves in a file are their own error, `conflict-markers`, naming their lines
(SPEC section 10): not a `yaml-error` that says nothing of a merge."""

import subprocess

from indexer.store import conflict_markers
from indexer.store.parse import parse_bytes

MEMORY = """---
id: 01K0000000000000000000AAA1
kind: gotcha
name: chroma-port
description: Chroma listens on 8000
{lifecycle}---
Seen on boot.
"""


def merged_by_git(tmp_path, ours: str, theirs: str, base: str) -> str:
    """What git's own line merge writes for a conflict: the real markers, labels and all."""
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        ["git", "merge-file", "-p", "-L", "HEAD", "-L", "base", "-L", "origin/main", "ours", "base", "theirs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1  # one conflict
    return done.stdout


def test_a_superseded_memory_merged_by_plain_git_names_the_marker_lines(tmp_path):
    base = MEMORY.format(lifecycle="")
    ours = MEMORY.format(lifecycle="invalid_at: 2026-01-02T00:00:00Z\nsuperseded_by: 01K0000000000000000000BBB1\n")
    theirs = MEMORY.format(lifecycle="invalid_at: 2026-01-03T00:00:00Z\nsuperseded_by: 01K0000000000000000000CCC1\n")
    text = merged_by_git(tmp_path, ours, theirs, base)
    parsed = parse_bytes("memories/p/chroma-port.md", text.encode(), 1 << 20)
    (problem,) = parsed.problems
    assert (problem.severity, problem.code, problem.line) == ("error", "conflict-markers", 6)
    assert "<<<<<<< at line 6, ======= at line 9, >>>>>>> at line 12" in problem.message
    assert "delete the marker lines" in problem.message
    assert parsed.meta is None  # not indexed


def test_markers_in_the_body_and_diff3_style_and_many_conflicts():
    body = "".join(
        f"<<<<<<< HEAD\nmine {n}\n||||||| base\nold {n}\n=======\nyours {n}\n>>>>>>> theirs\ntext\n" for n in range(5)
    )
    found = conflict_markers.find(MEMORY.format(lifecycle="") + body)
    assert [(c.start, c.middle, c.end) for c in found][:2] == [(8, 12, 14), (16, 20, 22)]
    assert conflict_markers.describe(found).endswith("; and 2 more conflicts")


def test_what_only_looks_like_a_marker_is_none():
    heading = "Title\n=======\n\nA <<<<<<< in a sentence, and >>>>>>> too.\n<<<<<<<<< eight is not seven\n"
    assert conflict_markers.find(heading) == []
    unclosed = "<<<<<<< HEAD\nmine\n=======\nyours\n"
    assert conflict_markers.find(unclosed) == []
    assert parse_bytes("notes/n.md", heading.encode(), 1 << 20).problems == []
    assert conflict_markers.find_bytes(b"<<<<<<< a\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\n") != []
