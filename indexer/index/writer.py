"""Writing prepared files into the index in batches as they arrive, then the cross-file rules: a record whose id, or
active (project, name), is taken is held back as *contested*, and settled at the end over the index and the held-back
records together, so the earliest `created` wins whatever order the files arrived in.
"""

import functools
import operator
from dataclasses import fields
from typing import TYPE_CHECKING

from indexer import sql
from indexer.index import fts, memory_tags
from indexer.index.prepare import Prepared
from indexer.store import crossfile
from indexer.store.crossfile import Entry
from indexer.store.parse import ParsedFile, read_store_file
from indexer.store.problems import Problem
from indexer.store.walk import StoreFile

if TYPE_CHECKING:  # imported by the first run of more than one batch: concurrent.futures costs a write 10-20 ms
    from concurrent.futures import Future, ThreadPoolExecutor

PROBLEM_COLUMNS = tuple(column.name for column in fields(Problem))  # Problem.row's columns
FILE_COLUMNS = ("path", "type", "size", "mtime_ns", "ctime_ns", "digest")
# files per batch; each batch's FTS rows are one statement, and so one FTS5 segment to merge at the end.
# Small, because the last batch is moved and indexed while nothing else runs (docs/performance.md)
BATCH = 2000
LINKS = f"code in ({', '.join('?' * len(crossfile.LINK_CODES))})"  # the link warnings' codes, as parameters


def insert_sql(table: str, columns: tuple[str, ...], verb: str = "insert") -> str:
    return f"{verb} into {table} ({', '.join(columns)}) values ({', '.join('?' * len(columns))})"


def insert_problems(conn, problems) -> None:
    conn.executemany(insert_sql("problems", PROBLEM_COLUMNS), (p.row for p in problems))


# Rows are first inserted into a temporary table with no indexes (`temp.<table>_stage`), and the writer thread moves
# each batch into its table with one INSERT ... SELECT (and indexes it for FTS5): the B-tree work runs on the second
# core while the next batch is parsed, and the rows keep the rowids a direct insert gives them. A run whose rows fit
# in one batch has nothing to overlap: it inserts them directly, with no staging table and no thread (`_insert_batch`).
@functools.cache
def staged() -> dict[str, tuple[tuple[str, ...], str]]:
    """table: (columns, verb). A record's keys are its table's columns, as indexer/sql/schema.sql defines them:
    read when a run first writes (sql.columns runs the schema in memory), not when this module is imported."""
    return {
        "memories": (sql.columns("memories"), "insert"),
        "notes": (sql.columns("notes"), "insert"),
        "index_files": (FILE_COLUMNS, "insert or replace"),
    }


def row_of(table: str) -> operator.itemgetter:
    """A record of `table` (memories or notes) -> its values in column order."""
    return operator.itemgetter(*staged()[table][0])


def create_stages(conn) -> None:
    """Create this connection's staging tables: the columns (and so the affinities) of their tables."""
    for table in staged():
        conn.execute(f"create temp table if not exists {table}_stage as select * from main.{table} where 0")


def _write_batch(conn, forgotten: list[str], rows: dict[str, list]) -> dict[str, int]:
    """Delete the rows of `forgotten` paths, then stage `rows` for `_move_batch` (on the writer thread); return each
    FTS table's last rowid."""
    _delete_paths(conn, forgotten)
    after = {table: fts.last_rowid(conn, table) for table in fts.COLUMNS}
    for table, (columns, _) in staged().items():
        conn.executemany(insert_sql(f"temp.{table}_stage", columns), rows[table])
    conn.executemany(insert_sql("problems", PROBLEM_COLUMNS), rows["problems"])
    return after


def _insert_batch(conn, forgotten: list[str], rows: dict[str, list]) -> None:
    """Delete the rows of `forgotten` paths, then insert `rows` into their tables and index them, here: what
    `_write_batch` and `_move_batch` do together, without the staging tables in between."""
    _delete_paths(conn, forgotten)
    for table, (columns, verb) in staged().items():
        after = fts.last_rowid(conn, table) if table in fts.COLUMNS else 0
        conn.executemany(insert_sql(f"main.{table}", columns, verb), rows[table])
        if table in fts.COLUMNS:
            fts.index_rows(conn, table, after)
        if table == "memories":
            memory_tags.add_rows(conn, after)
    conn.executemany(insert_sql("problems", PROBLEM_COLUMNS), rows["problems"])


def _move_batch(conn, after: dict[str, int]) -> None:
    """Move the staged rows into their tables; add new memories and notes to the FTS indexes."""
    for table, (columns, verb) in staged().items():
        names = ", ".join(columns)
        conn.execute(f"{verb} into main.{table} ({names}) select {names} from temp.{table}_stage")
        conn.execute(f"delete from temp.{table}_stage")
        if table in after:
            fts.index_rows(conn, table, after[table])
        if table == "memories":
            memory_tags.add_rows(conn, after[table])


def _delete_paths(conn, paths: list[str], tables=("memories", "notes", "problems", "index_files")) -> None:
    for table in tables:
        if table in fts.COLUMNS:
            fts.unindex_paths(conn, table, paths)
        if table == "memories":
            memory_tags.remove_paths(conn, paths)
        conn.executemany(f"delete from {table} where path = ?", ((p,) for p in paths))


class LineFinder:
    """Where a key stands in a file: the files drawn into a cross-file problem are read again, once each."""

    def __init__(self, root: str, max_bytes: int):
        self.root, self.max_bytes = root, max_bytes
        self.read: dict[str, ParsedFile] = {}

    def __call__(self, path: str, key: str) -> int:
        if path not in self.read:
            try:
                self.read[path] = read_store_file(self.root, path, self.max_bytes)
            except FileNotFoundError:
                return 1
        return self.read[path].line_of(key)


class IndexWriter:
    """Streams prepared files into the index inside the caller's transaction."""

    def __init__(self, db, root: str, max_bytes: int, racy_after: int, empty: bool):
        self.db, self.root, self.max_bytes, self.racy_after = db, root, max_bytes, racy_after
        self.empty = empty  # a full rebuild starts from empty tables: nothing to look up
        self.ids: set[str] = set()  # taken in this run
        self.names: set[tuple] = set()
        self.note_ids: set[str] = set()
        self.contested: list[Prepared] = []
        self.forgotten: list[str] = []
        self.rows: dict[str, list] = {"memories": [], "notes": [], "problems": [], "index_files": []}
        self.changed = 0
        self.racy: list[StoreFile] = []  # files too recent to trust their mtimes
        # for the link rules (_relink): ids of memories added or removed, and paths of memories removed
        self.link_ids: set[str] = set()
        self.unlinked_paths: set[str] = set()
        self.memory_row, self.note_row = row_of("memories"), row_of("notes")
        # the writer thread, started by the first full batch (a run of one batch has none), and the batch it moves
        self.background: ThreadPoolExecutor | None = None
        self.moving: Future | None = None

    def __enter__(self) -> "IndexWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.background is not None:
            self.background.shutdown(cancel_futures=exc_type is not None)

    def forget(self, path: str) -> None:
        """Remove what the index holds for `path` (edited, deleted or vanished)."""
        self.forgotten.append(path)

    def add(self, prepared: Prepared) -> None:
        """Write one changed file: its problems, its row unless its keys are taken, its bookkeeping."""
        sf, record = prepared.file, prepared.record
        self.changed += 1
        if not self.empty:
            self.forget(sf.path)
        self.rows["problems"].extend(p.row for p in prepared.problems)
        self.rows["index_files"].append((sf.path, sf.type, sf.size, self.mtime(sf), sf.ctime_ns, prepared.digest))
        if record is not None:
            if sf.type == "memory":
                self.link_ids.add(record["id"])
                key = (record["project"], record["name"]) if record["status"] == "active" else None
                if record["id"] in self.ids or key in self.names or self._taken("memories", record["id"], sf.path, key):
                    self.contested.append(prepared)
                else:
                    self.ids.add(record["id"])
                    if key:
                        self.names.add(key)
                    self.rows["memories"].append(self.memory_row(record))
            elif record["id"] and (record["id"] in self.note_ids or self._taken("notes", record["id"], sf.path)):
                self.contested.append(prepared)
            else:
                if record["id"]:
                    self.note_ids.add(record["id"])
                self.rows["notes"].append(self.note_row(record))
        if len(self.rows["index_files"]) >= BATCH:
            self._hand_over()

    def mtime(self, sf) -> int:
        """The mtime to remember: -1 for a file too recent to trust (see build.RACY_NS) by both times (a file dated
        in the future but changed long ago is trusted by its ctime, which only the system sets)."""
        if min(sf.mtime_ns, sf.ctime_ns) >= self.racy_after:
            self.racy.append(sf)
            return -1
        return sf.mtime_ns

    def _taken(self, table: str, record_id: str, path: str, key: tuple | None = None) -> bool:
        """Whether the index holds `record_id`, or a memory's active (project, name) `key`, at another path."""
        if self.empty:
            return False
        self.wait()
        if self.db.execute(f"select 1 from {table} where id = ? and path != ?", (record_id, path)).fetchone():
            return True
        return key is not None and bool(
            self.db.execute(
                "select 1 from memories where project is ? and name = ? and status = 'active' and path != ?",
                (*key, path),
            ).fetchone()
        )

    def flush(self) -> None:
        """Write the pending deletes and rows: through the writer thread once one runs (after it), else here."""
        if self.background is not None:
            self._hand_over()
            return
        self._note_removed(self.forgotten)
        _insert_batch(self.db, self.forgotten, self.rows)
        self._clear()

    def _hand_over(self) -> None:
        """Hand the pending deletes and batched rows to the writer thread (started, with its staging tables, the
        first time), while the next batch is read."""
        if self.background is None:
            from concurrent.futures import ThreadPoolExecutor

            create_stages(self.db)
            self.background = ThreadPoolExecutor(1, thread_name_prefix="seamless-fts")
        self.wait()  # the connection is free again
        self._note_removed(self.forgotten)
        after = _write_batch(self.db, self.forgotten, self.rows)
        self._clear()
        self.moving = self.background.submit(_move_batch, self.db, after)

    def _clear(self) -> None:
        self.forgotten.clear()
        for rows in self.rows.values():
            rows.clear()

    def _note_removed(self, paths) -> None:
        """Remember the memories at `paths` as removed, for the link rules."""
        if self.empty:
            return
        for path in paths:
            for row in self.db.execute("select id from memories where path = ?", (path,)):
                self.link_ids.add(row[0])
                self.unlinked_paths.add(path)

    def wait(self) -> None:
        """Return once every batch handed over is written; raise what writing it raised."""
        if self.moving is not None:
            moving, self.moving = self.moving, None
            moving.result()

    def finish(self) -> None:
        """Flush, settle the contested records, and recompute dangling links and cycles."""
        self.flush()
        self.wait()
        line_of = LineFinder(self.root, self.max_bytes)
        losers = self._settle(line_of)
        insert_problems(self.db, losers.values())
        insert_problems(self.db, self._relink_all(line_of) if self.empty else self._relink(line_of))
        insert_problems(self.db, self._refork(line_of))

    def _relink_all(self, line_of) -> list[Problem]:
        """Every memory's dangling-link and cycle warnings, worked out afresh."""
        self.db.execute(f"delete from problems where {LINKS}", crossfile.LINK_CODES)
        linked = self.db.execute(
            "select m.id, m.superseded_by, m.path, s.id is null from memories m "
            "left join memories s on s.id = m.superseded_by where m.superseded_by is not null"
        ).fetchall()
        return crossfile.link_problems(
            {row[0]: (row[1], row[2]) for row in linked}, {row[0] for row in linked if row[3]}, line_of
        )

    def _relink(self, line_of) -> list[Problem]:
        """The link warnings, worked out afresh, of the memories added or removed, those that point to one of them (a
        link that dangles now, or no longer), the members of a cycle before (it may be broken) and every memory on a
        chain from any of these (a new link may close a cycle). The rest keep their warnings."""
        db, changed = self.db, self.link_ids
        near = "select id from memories where id = ? or superseded_by = ?"
        recheck = {row[0] for memory_id in changed for row in db.execute(near, (memory_id, memory_id))}
        cycles = "select m.id from problems p join memories m on m.path = p.path where p.code = 'supersession-cycle'"
        recheck |= {row[0] for row in db.execute(cycles)}
        links: dict[str, tuple[str, str]] = {}  # every memory on a chain from one to recheck: (superseded_by, path)
        dangling: set[str] = set()
        pending = list(recheck | changed)
        while pending:
            memory_id = pending.pop()
            if memory_id in links:
                continue
            row = db.execute(
                "select m.superseded_by, m.path, s.id is null from memories m "
                "left join memories s on s.id = m.superseded_by where m.id = ? and m.superseded_by is not null",
                (memory_id,),
            ).fetchone()
            if row:
                links[memory_id] = (row[0], row[1])
                if row[2]:
                    dangling.add(memory_id)
                pending.append(row[0])
        # every memory on those chains: its whole chain is in `links`, so its warnings are known (one a new link puts in
        # a cycle is on the chain from that link)
        paths = {path for _, path in links.values()} | self.unlinked_paths
        db.executemany(f"delete from problems where path = ? and {LINKS}", ((p, *crossfile.LINK_CODES) for p in paths))
        return [p for p in crossfile.link_problems(links, dangling, line_of) if p.path in paths]

    def _refork(self, line_of) -> list[Problem]:
        """The supersession-fork warnings, worked out afresh, of the memories added or removed (every one in a full
        run) and of those that say they supersede one of them."""
        db = self.db
        claims = (
            "select m.id, m.supersedes, m.path, x.id, x.invalid_at is not null, x.superseded_by, "
            "m.status = 'active' from memories m "
            "left join memories x on x.id = m.supersedes where m.supersedes is not null"
        )
        if self.empty:
            db.execute("delete from problems where code = ?", (crossfile.FORK_CODE,))
            rows = db.execute(claims).fetchall()
            paths = None
        else:
            near = f"{claims} and (m.id = ? or m.supersedes = ?)"
            rows = [row for memory_id in self.link_ids for row in db.execute(near, (memory_id, memory_id))]
            paths = {row[2] for row in rows} | self.unlinked_paths
            forks = ((path, crossfile.FORK_CODE) for path in paths)
            db.executemany("delete from problems where path = ? and code = ?", forks)

        problems = crossfile.fork_problems(
            {row[0]: (row[1], row[2], bool(row[6])) for row in rows},
            {row[1]: (bool(row[4]), row[5]) for row in rows if row[3] is not None},
            line_of,
        )
        return problems if paths is None else [p for p in problems if p.path in paths]

    def _settle(self, line_of) -> dict[str, Problem]:
        """Decide every contested key over the index and the held-back records; return the losers."""
        if not self.contested:
            return {}
        # add() contests only a file with a record: the `is not None` drops nothing
        memories = [p.record for p in self.contested if p.file.type == "memory" and p.record is not None]
        notes = [p.record for p in self.contested if p.file.type == "note" and p.record is not None]
        entries = [
            Entry(r["id"], r["project"], r["name"], r["status"] == "active", r["created"], r["path"]) for r in memories
        ]
        for r in memories:
            entries += [
                Entry(row[0], row[1], row[2], bool(row[3]), row[4], row[5])
                for row in self.db.execute(
                    "select id, project, name, status = 'active', created, path from memories "
                    "where id = ? or (project is ? and name = ? and status = 'active')",
                    (r["id"], r["project"], r["name"]),
                )
            ]
        note_entries = [Entry(r["id"], None, r["path"], False, r["created"], r["path"]) for r in notes]
        for r in notes:
            note_entries += [
                Entry(row[0], None, row[2], False, row[1], row[2])
                for row in self.db.execute("select id, created, path from notes where id = ?", (r["id"],))
            ]
        losers = crossfile.duplicate_losers(list(set(entries)), line_of)
        losers.update(crossfile.duplicate_losers(list(set(note_entries)), line_of))
        # a loser may be held back here, or a row of the index
        self._note_removed(losers)
        _delete_paths(self.db, list(losers), ("memories", "notes"))
        self.rows["memories"] = [self.memory_row(r) for r in memories if r["path"] not in losers]
        self.rows["notes"] = [self.note_row(r) for r in notes if r["path"] not in losers]
        _insert_batch(self.db, [], self.rows)  # (the rest of self.rows is empty: finish flushed it)
        return losers
