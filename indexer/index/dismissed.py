"""The gardener's dismissals in the index: the store's gardener/dismissed.jsonl (indexer/store/dismissals.py), read by
a run's plan (indexer/index/plan.py) when its stat changed since it was last read (kept in index_meta; one stat when
it did not) and by every full run, written into `gardener_dismissed` with its problems. gardener.sql reads the table."""

import json
from pathlib import Path

from indexer.index import database
from indexer.store import dismissals

KEY = "gardener_dismissed"  # index_meta: the file's stat as last read


def write(db, read: dismissals.Read | None, racy_after: int) -> bool:
    """Write what the plan read (nothing, for None) in the caller's transaction; whether there was anything. A file
    changed after `racy_after` (ns) is read again by the next run too: its times may not show a change to come."""
    if read is None:
        return False
    db.execute("delete from gardener_dismissed")
    db.executemany(
        "insert into gardener_dismissed (line, kind, ids, updated, why, by, at) values (?, ?, ?, ?, ?, ?, ?)",
        [
            (d["line"], d["kind"], json.dumps(d["ids"]), json.dumps({i: d["updated"].get(i) for i in d["ids"]}),
             d["why"], d["by"], d["at"])
            for d in read.found
        ],
    )  # fmt: skip
    db.execute("delete from problems where path = ?", (dismissals.FILE,))
    db.executemany("insert into problems values (?, ?, ?, ?, ?)", [p.row for p in read.problems])
    recent = read.seen and max(map(int, read.seen.split()[1:])) > racy_after
    database.set_meta(db, KEY, f"recent {read.seen}" if recent else read.seen)
    return True


def changed(conn, root: Path) -> bool:
    """Whether the file differs from what the index open on `conn` last read, as far as its stat tells."""
    return dismissals.stat(root) != (database.meta_value(conn, KEY) or "").removeprefix("recent ")
