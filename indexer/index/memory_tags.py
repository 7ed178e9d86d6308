"""`memory_tags`: each memory's tags, one row a tag, kept in step with `memories` by the indexer itself.

The explorer's tags facet counts the whole table's tags from it in tag order (plugins/array_facet.py). Like the
FTS indexes (fts.py), whatever writes `memories` calls `add_rows` after inserting and `remove_paths` before
deleting; no triggers, so a batch is one statement. The indexer stores each memory's tags as a JSON array of
distinct strings.
"""

from indexer.sqlite import sqlite3


def add_rows(conn: sqlite3.Connection, after_rowid: int) -> None:
    """Add the tags of the memories inserted since fts.last_rowid returned `after_rowid`."""
    conn.execute(
        "insert or ignore into memory_tags (tag, memory) "
        "select j.value, m.rowid from memories as m, json_each(m.tags) as j where m.rowid > ?",
        (after_rowid,),
    )


def remove_paths(conn: sqlite3.Connection, paths) -> None:
    """Remove the tags of the memories at `paths` (before they are deleted)."""
    conn.executemany(
        "delete from memory_tags where (tag, memory) in "
        "(select j.value, m.rowid from memories as m, json_each(m.tags) as j where m.path = ?)",
        ((p,) for p in paths),
    )
