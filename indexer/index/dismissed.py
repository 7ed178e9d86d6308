"""The gardener's dismissals in the index: the store's gardener/dismissed.jsonl (indexer/store/dismissals.py) read into
`gardener_dismissed`, with its problems, by every run that finds the file changed since it was last read (its size and
times, in index_meta; one stat when it did not) and by every full run. gardener.sql reads the table."""

import json
import os
from pathlib import Path

from indexer.index import database
from indexer.store import dismissals

KEY = "gardener_dismissed"  # index_meta: the file's stat as last read


def update(db, root: Path, full: bool, racy_after: int) -> bool:
    """Read the file again when it changed (or `full`), in the caller's transaction; whether it was read. A file
    changed after `racy_after` (ns) is read again by the next run too: its times may not show a change to come."""
    seen = _stat(root)
    if not full and seen == database.meta_value(db, KEY):
        return False
    found, problems = dismissals.load(root)
    db.execute("delete from gardener_dismissed")
    db.executemany(
        "insert into gardener_dismissed (line, kind, ids, updated, why, by, at) values (?, ?, ?, ?, ?, ?, ?)",
        [
            (d["line"], d["kind"], json.dumps(d["ids"]), json.dumps({i: d["updated"].get(i) for i in d["ids"]}),
             d["why"], d["by"], d["at"])
            for d in found
        ],
    )  # fmt: skip
    db.execute("delete from problems where path = ?", (dismissals.FILE,))
    db.executemany("insert into problems values (?, ?, ?, ?, ?)", [p.row for p in problems])
    recent = seen and max(map(int, seen.split()[1:])) > racy_after
    database.set_meta(db, KEY, f"recent {seen}" if recent else seen)
    return True


def changed(conn, root: Path) -> bool:
    """Whether the file differs from what the index open on `conn` last read, as far as its stat tells."""
    return _stat(root) != (database.meta_value(conn, KEY) or "").removeprefix("recent ")


def _stat(root: Path) -> str:
    try:
        st = os.stat(root / dismissals.FILE, follow_symlinks=False)
    except OSError:
        return ""
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"
