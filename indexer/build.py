"""Building the index: store files -> parsed records + problems -> seamless.db, in one transaction.

Incremental by default: a file whose size and mtime are unchanged is not read; one
whose content hash is unchanged is not parsed again. Every write happens inside
one SQLite transaction on the database in place, so a reader sees the old index
or the new one, never a mix.
"""

import time
from dataclasses import dataclass, field
from pathlib import Path

import click
import sqlite_utils

from . import crossfile, database, timestamps
from .crossfile import Entry
from .parse import ParsedFile, read_store_file
from .prepare import Prepared, prepare_all
from .problems import Problem
from .settings import FILE as SETTINGS_FILE
from .settings import load_settings
from .walk import StoreFile, walk_store

PROGRESS_THRESHOLD = 2000  # files to read before a progress bar is worth showing
# A file written this close to the walk may be rewritten at the same size within the same mtime
# tick; its mtime is stored as -1 so the next run reads it again and compares hashes ("racy clean").
RACY_NS = 2_000_000_000
MEMORY_COLUMNS = ("id", "kind", "name", "description", "project", "status", "stage_status", "stage_gate",
                  "pinned", "created", "updated", "valid_from", "invalid_at", "superseded_by",
                  "source_session", "model", "tags", "body", "path")
NOTE_COLUMNS = ("path", "id", "title", "project", "created", "updated", "tags", "body")
PROBLEM_COLUMNS = ("path", "line", "severity", "code", "message")


@dataclass
class RunSummary:
    """What one index run did, as recorded in `index_runs`."""

    mode: str
    files_seen: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    memories: int = 0
    notes: int = 0
    errors: int = 0
    warnings: int = 0
    seconds: float = 0.0
    problems: list[Problem] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.memories} memories, {self.notes} notes; problems: {self.errors} errors, "
            f"{self.warnings} warnings; {self.files_changed} changed, {self.files_deleted} deleted "
            f"of {self.files_seen} files ({self.mode}) in {self.seconds:.2f} s"
        )


@dataclass
class Changes:
    """What a run has to do: files to (re)index, files whose stat alone changed, files gone."""

    parsed: dict[str, Prepared] = field(default_factory=dict)
    touched: list[StoreFile] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def index_store(root: Path | str, db_path: str | Path, full: bool = False, progress: bool = False) -> RunSummary:
    """Bring the index at `db_path` in step with the store at `root`; return what was done."""
    with database.writer_lock(db_path):
        db = database.open_db(db_path)
        try:
            return _run(db, str(root), full, progress)
        finally:
            db.close()


def _run(db: sqlite_utils.Database, root: str, full: bool, progress: bool) -> RunSummary:
    started, started_at = time.perf_counter(), timestamps.now()
    settings, settings_problems = load_settings(Path(root))
    racy_after = time.time_ns() - RACY_NS
    files = walk_store(Path(root))
    known = {} if full else {row[0]: row[1:] for row in db.execute(
        "select path, type, size, mtime_ns, digest from index_files")}
    full = full or not known
    changes = _changes(db, root, files, known, settings["index.max_file_bytes"], progress)
    settings_changed = (dict(db.execute("select key, value from settings").fetchall()) != settings
                        or _problems_of(db, SETTINGS_FILE) != settings_problems)
    if full:
        mode = "full"
    elif changes.parsed or changes.deleted or settings_changed:
        mode = "incremental"
    else:
        mode = "no-op"
    with db.atomic():
        if full:
            database.disable_fts(db)
            for table in ("memories", "notes", "problems", "index_files"):
                db.execute(f"delete from {table}")
        elif mode == "incremental":
            for table in ("memories", "notes", "problems", "index_files"):
                db.conn.executemany(f"delete from {table} where path = ?",
                                    ((p,) for p in [*changes.parsed, *changes.deleted]))
        if mode != "no-op":
            _write(db, root, files, changes.parsed, settings["index.max_file_bytes"], racy_after)
            _write_settings(db, settings, settings_problems)
        db.conn.executemany("update index_files set size = ?, mtime_ns = ? where path = ?",
                            ((f.size, _mtime(f, racy_after), f.path) for f in changes.touched))
        if full:
            database.enable_fts(db)
        summary = _summary(db, mode, len(files), len(changes.parsed), len(changes.deleted))
        summary.seconds = round(time.perf_counter() - started, 3)
        db["index_runs"].insert({"started": started_at, "mode": mode, "files_seen": summary.files_seen,
                                 "files_changed": summary.files_changed, "files_deleted": summary.files_deleted,
                                 "memories": summary.memories, "notes": summary.notes, "errors": summary.errors,
                                 "warnings": summary.warnings, "seconds": summary.seconds})
    return summary


def _changes(db, root: str, files: dict[str, StoreFile], known: dict, max_bytes: int, progress: bool) -> Changes:
    """Compare the walk with `index_files` and read what may have changed."""
    changes = Changes(deleted=[p for p in known if p not in files])
    stale = [f for p, f in files.items() if known.get(p, (None,))[:3] != (f.type, f.size, f.mtime_ns)]
    if not stale and not changes.deleted:
        return changes
    # a file that lost a duplicate contest is read again whenever anything else changed
    losers = _conflict_losers(db)
    stale += [files[p] for p in losers if p in files and p not in {f.path for f in stale}]
    jobs = [(sf, None if sf.path in losers else known.get(sf.path, (None,) * 4)[3]) for sf in stale]
    for (sf, _), prepared in zip(jobs, _progress(prepare_all(root, jobs, max_bytes), len(jobs), progress)):
        if prepared is None:  # vanished between the walk and the read
            changes.deleted.append(sf.path)
            del files[sf.path]
        elif prepared.unchanged:
            changes.touched.append(sf)
        else:
            changes.parsed[sf.path] = prepared
    return changes


def _progress(items, length: int, enabled: bool):
    if enabled and length >= PROGRESS_THRESHOLD:
        with click.progressbar(items, length=length, label="indexing",
                               file=click.get_text_stream("stderr")) as bar:
            yield from bar
    else:
        yield from items


def _conflict_losers(db: sqlite_utils.Database) -> set[str]:
    codes = crossfile.CONFLICT_CODES
    return {r[0] for r in db.execute(
        f"select distinct path from problems where code in ({','.join('?' * len(codes))})", codes)}


def _mtime(f: StoreFile, racy_after: int) -> int:
    """The mtime to remember for `f`: -1 when it is too recent to trust (see RACY_NS)."""
    return -1 if f.mtime_ns >= racy_after else f.mtime_ns


def _write(db: sqlite_utils.Database, root: str, files: dict[str, StoreFile],
           parsed: dict[str, Prepared], max_bytes: int, racy_after: int) -> None:
    """Settle the cross-file rules over the prepared files and the index, and write rows and problems."""
    reread: dict[str, ParsedFile] = {}

    def line_of(path: str, key: str) -> int:
        """Where `key` stands in `path`: files drawn into a cross-file problem are read again."""
        if path not in reread:
            try:
                reread[path] = read_store_file(root, path, max_bytes)
            except FileNotFoundError:
                return 1
        return reread[path].line_of(key)

    problems: list[Problem] = []
    memories: dict[str, dict] = {}
    notes: dict[str, dict] = {}
    for path, prepared in parsed.items():
        problems.extend(prepared.problems)
        if prepared.record is not None:
            (memories if prepared.file.type == "memory" else notes)[path] = prepared.record

    entries = [Entry(r["id"], r["project"], r["name"], r["status"] == "active", r["created"], p)
               for p, r in memories.items()]
    entries += [Entry(*row[:3], bool(row[3]), *row[4:]) for row in db.execute(
        "select id, project, name, status = 'active', created, path from memories")]
    note_entries = [Entry(r["id"], None, p, False, r["created"], p) for p, r in notes.items() if r["id"]]
    note_entries += [Entry(row[0], None, row[2], False, row[1], row[2]) for row in db.execute(
        "select id, created, path from notes where id is not null")]
    losers = crossfile.duplicate_losers(entries, line_of)
    losers.update(crossfile.duplicate_losers(note_entries, line_of))
    for path in losers:  # a loser may be a new file or one indexed by an earlier run
        memories.pop(path, None)
        notes.pop(path, None)
        db.execute("delete from memories where path = ?", (path,))
        db.execute("delete from notes where path = ?", (path,))
    problems.extend(losers.values())

    _insert(db, "memories", MEMORY_COLUMNS, memories.values())
    _insert(db, "notes", NOTE_COLUMNS, notes.values())
    _insert(db, "index_files", ("path", "type", "size", "mtime_ns", "digest"),
            ({"path": p, "type": files[p].type, "size": files[p].size, "mtime_ns": _mtime(files[p], racy_after),
              "digest": pf.digest} for p, pf in parsed.items() if p in files))
    codes = crossfile.LINK_CODES
    db.execute(f"delete from problems where code in ({','.join('?' * len(codes))})", codes)
    linked = db.execute(
        "select m.id, m.superseded_by, m.path, s.id is null from memories m "
        "left join memories s on s.id = m.superseded_by where m.superseded_by is not null").fetchall()
    problems.extend(crossfile.link_problems(
        {row[0]: (row[1], row[2]) for row in linked}, {row[0] for row in linked if row[3]}, line_of))
    _insert(db, "problems", PROBLEM_COLUMNS, (vars(p) for p in sorted(set(problems))))


def _insert(db: sqlite_utils.Database, table: str, columns: tuple[str, ...], records) -> None:
    """Bulk insert: one prepared statement, rows as tuples."""
    sql = f"insert into {table} ({', '.join(columns)}) values ({', '.join('?' * len(columns))})"
    db.conn.executemany(sql, ([r[c] for c in columns] for r in records))


def _problems_of(db: sqlite_utils.Database, path: str) -> list[Problem]:
    return [Problem(*row) for row in db.execute(
        "select path, line, severity, code, message from problems where path = ? order by line", (path,))]


def _write_settings(db: sqlite_utils.Database, settings: dict, problems: list[Problem]) -> None:
    db.execute("delete from settings")
    db.conn.executemany("insert into settings (key, value) values (?, ?)", settings.items())
    db.execute("delete from problems where path = ?", (SETTINGS_FILE,))
    _insert(db, "problems", PROBLEM_COLUMNS, (vars(p) for p in problems))


def _summary(db: sqlite_utils.Database, mode: str, seen: int, changed: int, deleted: int) -> RunSummary:
    counts = dict(db.execute("select severity, count(*) from problems group by severity").fetchall())
    return RunSummary(
        mode=mode, files_seen=seen, files_changed=changed, files_deleted=deleted,
        memories=db.execute("select count(*) from memories").fetchone()[0],
        notes=db.execute("select count(*) from notes").fetchone()[0],
        errors=counts.get("error", 0), warnings=counts.get("warning", 0),
        problems=[Problem(*row) for row in db.execute(
            "select path, line, severity, code, message from problems order by path, line, code")],
    )
