"""`seamless export` (SPEC 11): the briefing between two marker lines in a file, every byte outside them kept,
an unchanged briefing leaving the file untouched, `--check` for CI, malformed markers refused."""

import os
import re

import pytest
from click.testing import CliRunner

from indexer.front.briefing_block import BEGIN, END, NOTE, BlockError, remove, splice
from indexer.front.cli import cli

OLD_MTIME = 1_700_000_000_000_000_000


def export(store, target, *options, ok=True, project="seamless"):
    result = CliRunner().invoke(
        cli,
        ["export", str(store.root), "--project", project, "--to", str(target), "--db", str(store.db_path), *options],
    )
    assert result.exit_code == (0 if ok else 1), result.output
    assert "Traceback" not in result.output
    return result


def block(store, project="seamless") -> bytes:
    """What the block holds: the undated briefing, as `seamless briefing` gives it less its `As of` time."""
    result = CliRunner().invoke(cli, ["briefing", "--project", project, "--db", str(store.db_path)])
    text = re.sub(r"^As of \S+: ", "", result.output, count=1, flags=re.MULTILINE)
    return BEGIN + b"\n" + NOTE + b"\n" + text.encode() + END + b"\n"


def test_a_missing_file_is_created_with_the_block_and_the_block_has_no_time(briefed, tmp_path):
    target = tmp_path / "AGENTS.md"
    assert "created" in export(briefed, target).output
    assert target.read_bytes() == block(briefed)
    assert b"As of" not in target.read_bytes() and b"# Briefing: seamless\n" in target.read_bytes()


@pytest.mark.parametrize(
    "outside",
    [
        b"# Agents\n\nBuild with make.\n",
        b"no final newline",
        b"# CRLF\r\n\r\nline\r\n",
        b"\xef\xbb\xbf# BOM\n\xff not UTF-8\n",
    ],
)
def test_the_block_is_appended_then_replaced_and_every_byte_outside_it_is_kept(briefed, tmp_path, outside):
    target = tmp_path / "AGENTS.md"
    target.write_bytes(outside)
    export(briefed, target)
    data = target.read_bytes()
    assert data.startswith(outside) and data.count(BEGIN) == 1
    crlf = outside.count(b"\r\n") == outside.count(b"\n") > 0
    assert data.endswith(END + (b"\r\n" if crlf else b"\n"))
    # text added after the block, then a changed store: only what is between the markers changes
    target.write_bytes(data + b"\nAfter the block.\n")
    briefed.memory("boot-race", description="Boot race: wait for the port")
    briefed.index()
    assert "updated" in export(briefed, target).output
    after = target.read_bytes()
    head, rest = after.split(BEGIN, 1)
    assert (
        head == data.split(BEGIN, 1)[0]
        and rest.split(END, 1)[1] == (b"\r\n" if crlf else b"\n") + b"\nAfter the block.\n"
    )
    assert b"boot-race" in rest.split(END, 1)[0]


def test_an_unchanged_briefing_leaves_the_file_untouched_and_check_says_current(briefed, tmp_path):
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(b"Intro.\n")
    export(briefed, target)
    os.utime(target, ns=(OLD_MTIME, OLD_MTIME))
    data = target.read_bytes()
    assert "unchanged" in export(briefed, target).output
    assert "is current" in export(briefed, target, "--check").output
    assert target.read_bytes() == data and target.stat().st_mtime_ns == OLD_MTIME


def test_check_exits_1_on_a_stale_or_missing_block_and_writes_nothing(briefed, tmp_path):
    target = tmp_path / "AGENTS.md"
    result = export(briefed, target, "--check", ok=False)
    assert "stale or missing" in result.output and "seamless export" in result.output and not target.exists()
    export(briefed, target)
    briefed.memory("boot-race", description="Boot race: wait for the port")  # the index follows the store
    data = target.read_bytes()
    export(briefed, target, "--check", ok=False)
    assert target.read_bytes() == data
    export(briefed, target)
    export(briefed, target, "--check")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"a\n<!-- seamless:begin -->\nb\n", "a begin marker on line 2 but no <!-- seamless:end --> line"),
        (b"<!-- seamless:end -->\n", "an end marker on line 1 but no <!-- seamless:begin --> line"),
        (b"<!-- seamless:end -->\n<!-- seamless:begin -->\n", "the end marker (line 1) comes before the begin"),
        (b"<!-- seamless:begin -->\n<!-- seamless:end -->\n" * 2, "2 begin and 2 end markers (lines 1, 2, 3, 4)"),
    ],
)
def test_malformed_markers_are_refused_in_one_line_and_nothing_is_written(briefed, tmp_path, text, message):
    target = tmp_path / "AGENTS.md"
    target.write_bytes(text)
    result = export(briefed, target, ok=False)
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert target.read_bytes() == text


def test_a_symlinked_file_is_written_through_and_stays_a_symlink(briefed, tmp_path):
    real = tmp_path / "docs" / "AGENTS.md"
    real.parent.mkdir()
    real.write_bytes(b"Real.\n")
    link = tmp_path / "AGENTS.md"
    link.symlink_to(real)
    export(briefed, link)
    assert link.is_symlink() and real.read_bytes().startswith(b"Real.\n\n" + BEGIN)


def test_bad_arguments_are_one_line_errors(briefed, tmp_path):
    result = export(briefed, tmp_path / "no-such-folder" / "AGENTS.md", ok=False)
    assert "no folder" in result.output
    result = export(briefed, tmp_path / "AGENTS.md", ok=False, project="../etc")
    assert "not a safe folder name" in result.output and not (tmp_path / "AGENTS.md").exists()


def test_a_project_the_store_does_not_have_is_refused_naming_the_closest_and_nothing_is_written(briefed, tmp_path):
    target = tmp_path / "AGENTS.md"
    target.write_bytes(b"Intro.\n")
    for options in ((), ("--check",)):
        result = export(briefed, target, *options, ok=False, project="seamles")
        assert result.output == (
            "Error: the store has no project 'seamles': did you mean 'seamless'? Its projects: console, seamless. "
            f"`--project global` exports the global memories alone; nothing was written to {target}\n"
        )
        assert target.read_bytes() == b"Intro.\n"
    # a project new to the store is one once its first memory is written, before any index run
    briefed.memory("seamles-port", project="seamles", description="Seamles listens on 9000")
    assert "updated" in export(briefed, target, project="seamles").output
    assert "created" in export(briefed, tmp_path / "GLOBAL.md", project="global").output


def test_splice_and_remove_keep_the_outside_and_the_markers_own_bytes():
    data = b"top\r\n  <!-- seamless:begin -->  \r\nold\r\n<!-- seamless:end -->\r\nbottom"
    spliced = splice(data, "new\ntext\n")
    assert (
        spliced
        == b"top\r\n  <!-- seamless:begin -->  \r\n" + NOTE + b"\r\nnew\r\ntext\r\n<!-- seamless:end -->\r\nbottom"
    )
    assert splice(spliced, "new\ntext\n") == spliced
    assert remove(spliced) == b"top\r\nbottom"
    appended = splice(b"top\n", "x\n")
    assert remove(appended) == b"top\n" and splice(None, "x\n") == BEGIN + b"\n" + NOTE + b"\nx\n" + END + b"\n"
    with pytest.raises(BlockError):
        splice(b"<!-- seamless:begin -->\n", "x")
