"""The index's floor: what any index of a store does, and nothing else. Walk the store, read every file, parse it
(frontmatter and fields, as the indexer does), insert the rows into the index's `memories` and `notes` tables as
schema.sql makes them (their keys, none of the indexes the queries read), in one transaction, and index them for
full-text search (fts.py). No problems, no bookkeeping of files, no cross-file rules, no history, no gardener, no
second thread; a new file with no journal, as the first run of `seamless index` writes it.

    python -m bench.index_floor STORE DB    # prints {"seconds": ..., "memories": ..., "notes": ...}

The bench runs it as a whole process beside `seamless index` of the same store, in turn (bench/gardener.py): the
index run from nothing is given as a ratio to it.
"""

import gc
import json
import sys
import time
from pathlib import Path

from indexer import sql
from indexer.index import fts
from indexer.index.plan import store_files
from indexer.index.writer import row_of
from indexer.sqlite import sqlite3
from indexer.store.parse import parse_bytes
from indexer.store.settings import DEFAULTS
from indexer.store.validate import memory_record, note_record
from indexer.store.walk import read_regular_file, walk_folders

BATCH = 2_000


def index_floor(root: str, db_path: str) -> dict:
    """Index the store at `root` into a new database at `db_path`, the least an index does."""
    limit = DEFAULTS["index.max_file_bytes"]
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=MEMORY")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size = -65536")  # (as database.open_db)
    for statement in sql.statements(sql.source("schema")):
        statement = "\n".join(line for line in statement.splitlines() if not line.startswith("--")).strip()
        if statement.startswith(("CREATE TABLE IF NOT EXISTS memories ", "CREATE TABLE IF NOT EXISTS notes ")):
            conn.execute(statement)
    fts.create(conn)
    rows: dict[str, list] = {"memories": [], "notes": []}
    columns = {table: sql.columns(table) for table in ("memories", "notes")}
    memory_row, note_row = row_of("memories"), row_of("notes")
    inserts = {
        table: f"insert into {table} ({', '.join(names)}) values ({', '.join('?' * len(names))})"
        for table, names in columns.items()
    }
    counts = {"memories": 0, "notes": 0}
    fts.begin_rebuild(conn)

    def flush(table: str) -> None:
        after = fts.last_rowid(conn, table)
        conn.executemany(inserts[table], rows[table])
        fts.index_rows(conn, table, after)
        counts[table] += len(rows[table])
        rows[table].clear()

    conn.execute("begin")
    for path, sf in store_files(walk_folders(Path(root))).items():
        parsed = parse_bytes(path, read_regular_file(f"{root}/{path}", limit + 1), limit)
        table = "memories" if sf.type == "memory" else "notes"
        record, _ = (memory_record if table == "memories" else note_record)(parsed)
        if record is not None:
            rows[table].append(memory_row(record) if table == "memories" else note_row(record))
            if len(rows[table]) >= BATCH:
                flush(table)
    for table in rows:
        flush(table)
    fts.end_rebuild(conn)
    conn.execute("commit")
    conn.close()
    return counts


if __name__ == "__main__":
    gc.disable()  # as the index run
    started = time.perf_counter()
    found = index_floor(sys.argv[1], sys.argv[2])
    print(json.dumps({"seconds": time.perf_counter() - started, **found}))
