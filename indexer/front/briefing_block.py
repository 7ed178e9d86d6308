"""The briefing block in a file of the user's (AGENTS.md, CLAUDE.md), between two marker lines (SPEC 11), kept by
`seamless export` and `seamless init --harness codex`: every byte outside the block stays as it was, and a briefing
that did not change leaves the file untouched (bytes and mtime), so the block holds no time of its own.
"""

import contextlib
from dataclasses import dataclass
from pathlib import Path

from indexer.edit import atomic
from indexer.front.hook import MAX_CHARS
from indexer.index import database
from indexer.index.build import index_store
from indexer.query import projects, queries
from indexer.query.briefing_text import briefing_within
from indexer.sqlite import sqlite3

BEGIN = b"<!-- seamless:begin -->"
END = b"<!-- seamless:end -->"
NOTE = b"<!-- written by `seamless export` from the memory store: change the store, not this block -->"


class BlockError(ValueError):
    """The file's markers are not one begin line followed by one end line; the message says where."""


class UnknownProject(ValueError):
    """`seamless export` named a project the store does not have; the message names the closest and its projects."""


def _markers(lines: list[bytes]) -> tuple[int, int] | None:
    """The lines of the begin and end markers, None when there are neither; BlockError when they are malformed."""
    begins = [n for n, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [n for n, line in enumerate(lines) if line.strip() == END]
    if not begins and not ends:
        return None
    if len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]:
        return begins[0], ends[0]
    if len(begins) > 1 or len(ends) > 1:
        where = ", ".join(str(n + 1) for n in sorted(begins + ends))
        raise BlockError(f"{len(begins)} begin and {len(ends)} end markers (lines {where}): keep one block")
    if not ends:
        raise BlockError(f"a begin marker on line {begins[0] + 1} but no {END.decode()} line")
    if not begins:
        raise BlockError(f"an end marker on line {ends[0] + 1} but no {BEGIN.decode()} line")
    raise BlockError(f"the end marker (line {ends[0] + 1}) comes before the begin marker (line {begins[0] + 1})")


def _newline(data: bytes) -> bytes:
    """The file's line end: CRLF when every line ends so, else LF."""
    return b"\r\n" if b"\r\n" in data and data.count(b"\r\n") == data.count(b"\n") else b"\n"


def splice(data: bytes | None, text: str) -> bytes:
    """`data` (None: no file yet) with `text` between its markers, or the block appended when it has none."""
    data = data or b""
    lines = data.splitlines(keepends=True)
    found = _markers(lines)
    # the begin marker's own line end (an end marker follows it, so it has one), else the file's
    nl = (b"\r\n" if lines[found[0]].endswith(b"\r\n") else b"\n") if found else _newline(data)
    inside = [NOTE + nl] + [line.encode("utf-8") + nl for line in text.splitlines()]
    if found:
        begin, end = found
        return b"".join(lines[: begin + 1] + inside + lines[end:])
    head = data + (nl if data and not data.endswith(b"\n") else b"") + (nl if data.strip() else b"")
    return head + b"".join([BEGIN + nl, *inside, END + nl])


def remove(data: bytes) -> bytes:
    """`data` without its block (the marker lines included) and the blank line an append put before it."""
    lines = data.splitlines(keepends=True)
    found = _markers(lines)
    if not found:
        return data
    begin, end = found
    if begin > 0 and not lines[begin - 1].strip() and end == len(lines) - 1:
        begin -= 1
    return b"".join(lines[:begin] + lines[end + 1 :])


@dataclass
class Exported:
    """What `export_briefing` did to the file: created, updated, unchanged; or, checking, current or stale."""

    action: str
    path: Path
    memories: int


def block_text(store: Path, db_path: str | Path, project: str, max_chars: int = MAX_CHARS) -> tuple[str, int]:
    """`project`'s briefing as the block holds it, and how many memories it has, once the index at `db_path` is
    brought in step with `store` (an index of another store is refused: OtherStoreError)."""
    if Path(db_path).is_file():  # as the write path, never mix two stores in one index
        with contextlib.closing(sqlite3.connect(db_path)) as conn:
            if database.is_index(conn):
                database.check_store(conn, store, db_path)
    index_store(store, db_path)
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        rows = queries.run(conn, "briefing", project=project)
    # undated, and no --db in the command: the same block on every machine, whatever the path of its index
    text = briefing_within(rows, project, None, max_chars, f"seamless briefing --project {project}", dated=False)
    return text, len(rows)


def export_briefing(store: Path, db_path: str | Path, project: str, target: Path, max_chars: int, check: bool):
    """Put `project`'s briefing in `target`'s block (`block_text`); checking, nothing is written to `target`.

    Raises BlockError (malformed markers), UnknownProject, OtherStoreError, and OSError for a file that cannot be
    read or written, before anything is written to `target`.
    """
    text, memories = block_text(store, db_path, project, max_chars)
    with contextlib.closing(sqlite3.connect(db_path)) as conn:  # the index in step: a project just written is known
        said = projects.unknown(conn, project)
    if said:
        raise UnknownProject(f"the store {said} `--project global` exports the global memories alone")
    target = target.resolve()  # a symlink's target is written, never replaced by a file
    old = target.read_bytes() if target.exists() else None
    new = splice(old, text)
    if new == old:
        return Exported("current" if check else "unchanged", target, memories)
    if check:
        return Exported("stale", target, memories)
    if old is None:
        if not target.parent.is_dir():
            raise FileNotFoundError(f"no folder {target.parent} to write {target.name} in")
        atomic.create(target, new)
    else:
        atomic.replace(target, new)
    return Exported("created" if old is None else "updated", target, memories)
