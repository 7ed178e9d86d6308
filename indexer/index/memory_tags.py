"""`memory_tags`: each memory's tags, one row a tag, for the explorer's tags facet, kept in step as the FTS indexes
are: whatever writes `memories` calls `add_rows` after inserting and `remove_paths` before deleting."""

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
