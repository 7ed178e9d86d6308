"""The store's file of the gardener's dismissals (SPEC section 12), `gardener/dismissed.jsonl`, written and read (an
index run's plan reads it when it changed): a JSON line for each proposal answered "leave it" (FIELDS), merged by
git's union merge so that every host keeps every line."""

import json
import os
from dataclasses import dataclass
from pathlib import Path

from indexer.sql.canned import ANSWERABLE
from indexer.store import timestamps
from indexer.store.problems import Problem, error, warning
from indexer.store.rules import ULID_TEXT
from indexer.store.walk import FolderFds

FILE = "gardener/dismissed.jsonl"  # store-relative
FIELDS = ("kind", "ids", "updated", "why", "by", "at")


def line(kind: str, ids: list[str], updated: dict[str, str | None], why: str, by: str, at: str) -> bytes:
    """One dismissal as its line of the file."""
    record = {"kind": kind, "ids": ids, "updated": updated, "why": why, "by": by, "at": at}
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass(slots=True)
class Read:
    """The file as it was read."""

    seen: str  # its stat (`stat`): while that is the same, the file need not be read again
    found: list[dict]  # its dismissals, each with its `line`
    problems: list[Problem]


def stat(root: Path) -> str:
    """The file's size and times as one text ('' when there is none)."""
    try:
        st = os.stat(root / FILE, follow_symlinks=False)
    except OSError:
        return ""
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


def load(root: Path, unless_seen: str | None = None) -> Read | None:
    """The file's dismissals, and a problem for each line that is no dismissal (a `bad-dismissal` warning: the other
    lines count) or for a file that cannot be read; None when its stat is still `unless_seen`."""
    seen = stat(root)
    if seen == unless_seen:
        return None
    try:
        with FolderFds(str(root)) as folders:  # no symlink followed
            data = folders.read(FILE, 1 << 40)
    except FileNotFoundError:
        return Read(seen, [], [])
    except OSError as e:
        return Read(seen, [], [error(FILE, 1, "unreadable", f"{e.strerror or e}: no dismissal is read")])
    found, problems = [], []
    for number, text in enumerate(data.split(b"\n"), 1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
            fault = _fault(record)
        except ValueError as e:  # (UnicodeDecodeError is one)
            fault = f"not JSON ({e})"
        if fault:
            problems.append(warning(FILE, number, "bad-dismissal", f"{fault}: this line is not read"))
        else:
            found.append(record | {"line": number})
    return Read(seen, found, problems)


def _fault(record) -> str | None:
    """What makes a parsed line no dismissal, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if missing := [name for name in FIELDS if name not in record]:
        return f"no {', '.join(missing)}"
    if record["kind"] not in ANSWERABLE:
        return f"kind {record['kind']!r} is not one of {', '.join(ANSWERABLE)}"
    ids, updated = record["ids"], record["updated"]
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and ULID_TEXT.match(i) for i in ids):
        return "ids is not a list of memory ids"
    if not isinstance(updated, dict) or any(not isinstance(updated.get(i, 0), str | None) for i in ids):
        return "updated does not give each id's `updated` (a time, or null)"
    if not all(isinstance(record[name], str) for name in ("why", "by", "at")):
        return "why, by and at are not all text"
    try:
        timestamps.normalize(record["at"])
    except ValueError as e:
        return f"at: {e}"
    return None
