"""The FTS5 indexes over `memories` and `notes`, external-content tables kept in step without triggers
(docs/development.md#sqlite): whatever writes them calls `index_rows` after inserting, `unindex_paths` before deleting.
"""

from indexer.sqlite import sqlite3

COLUMNS = {"memories": ("name", "description", "tags", "body"), "notes": ("title", "tags", "body")}


def _columns(table: str) -> str:
    return ", ".join(COLUMNS[table])


def create(conn: sqlite3.Connection) -> None:
    """Create the FTS5 tables (if missing) and fill them from their content tables."""
    for table in COLUMNS:
        if not conn.execute("select 1 from sqlite_master where name = ?", (f"{table}_fts",)).fetchone():
            conn.execute(
                f"create virtual table {table}_fts using fts5({_columns(table)}, tokenize='porter', content={table})"
            )
            conn.execute(f"insert into {table}_fts ({table}_fts) values ('rebuild')")


def drop_triggers(conn: sqlite3.Connection) -> None:
    """Remove the triggers indexes before schema version 3 kept their FTS tables in step with."""
    for table in COLUMNS:
        for suffix in ("ai", "ad", "au"):
            conn.execute(f"drop trigger if exists {table}_{suffix}")


def last_rowid(conn: sqlite3.Connection, table: str) -> int:
    """The largest rowid in `table`: rows inserted after this call have larger ones."""
    return conn.execute(f"select coalesce(max(rowid), 0) from {table}").fetchone()[0]


def index_rows(conn: sqlite3.Connection, table: str, after_rowid: int) -> None:
    """Add the rows of `table` inserted since `last_rowid` returned `after_rowid` to its FTS index."""
    columns = _columns(table)
    conn.execute(
        f"insert into {table}_fts (rowid, {columns}) select rowid, {columns} from {table} where rowid > ?",
        (after_rowid,),
    )


def unindex_paths(conn: sqlite3.Connection, table: str, paths) -> None:
    """Take the rows of `table` at `paths` out of its FTS index (before they are deleted)."""
    columns = _columns(table)
    conn.executemany(
        f"insert into {table}_fts ({table}_fts, rowid, {columns}) "
        f"select 'delete', rowid, {columns} from {table} where path = ?",
        ((p,) for p in paths),
    )


# FTS5 merges its segments as it goes (automerge, crisismerge); while every row is indexed anew
# that merging is done again and again. Off during a rebuild, then one 'optimize' merge at the
# end, into one segment (fastest to query; docs/performance.md).
DEFAULTS = {"automerge": 4, "crisismerge": 16}
BULK = {"automerge": 0, "crisismerge": 2000}


def _configure(conn: sqlite3.Connection, settings: dict[str, int]) -> None:
    for table in COLUMNS:
        for key, value in settings.items():
            conn.execute(f"insert into {table}_fts ({table}_fts, rank) values (?, ?)", (key, value))


def begin_rebuild(conn: sqlite3.Connection) -> None:
    """Empty both FTS indexes and stop merging until `end_rebuild` (before every row is indexed anew)."""
    for table in COLUMNS:
        conn.execute(f"insert into {table}_fts ({table}_fts) values ('delete-all')")
    _configure(conn, BULK)


def end_rebuild(conn: sqlite3.Connection) -> None:
    """Merge each FTS index into one segment and merge as usual from now on."""
    for table in COLUMNS:
        conn.execute(f"insert into {table}_fts ({table}_fts) values ('optimize')")
    _configure(conn, DEFAULTS)
