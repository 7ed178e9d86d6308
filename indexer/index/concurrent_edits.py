"""The merge commits' `Seamless-Concurrent-Edit` trailers in the index (table `concurrent_edits`, SPEC section 10).

`seamless sync` records the trailers of the merge commits it brings in, its own among them; "Needs a human"
lists each memory they name until it is written again.
"""

import contextlib
from pathlib import Path

from indexer.index import database


def record(db_path: str | Path, rows: list[tuple[str, str, str]]) -> None:
    """Put (commit, committed_at, id) rows in the index, each commit's rows replacing what it had."""
    if not rows:
        return
    with database.writer_lock(db_path), contextlib.closing(database.open_db(db_path)) as db, db.atomic():
        db.executemany('delete from concurrent_edits where "commit" = ?', {(row[0],) for row in rows})
        db.executemany('insert into concurrent_edits ("commit", committed_at, id) values (?, ?, ?)', rows)
