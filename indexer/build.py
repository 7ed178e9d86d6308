"""Building the index: store files -> parsed records + problems -> seamless.db, in one transaction.

Incremental by default: a file whose size and mtime are unchanged is not read; one
whose content hash is unchanged is not re-parsed. Every write happens inside one
SQLite transaction on the database in place, so a reader sees the old index or
the new one, never a mix.
"""

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import click
import sqlite_utils

from . import crossfile, database, timestamps
from .crossfile import Entry
from .parse import ParsedFile, read_store_file
from .problems import Problem
from .settings import FILE as SETTINGS_FILE
from .settings import load_settings
from .validate import memory_record, note_record
from .walk import StoreFile, walk_store

PROGRESS_THRESHOLD = 2000  # files to parse before a progress bar is worth showing
LINE_KEYS = ("id", "name", "superseded_by")


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


def index_store(root: Path, db_path: str | Path, full: bool = False, progress: bool = False) -> RunSummary:
    """Bring the index at `db_path` in step with the store at `root`; return what was done."""
    with database.writer_lock(db_path):
        db = database.open_db(db_path)
        try:
            return _run(db, Path(root), full, progress)
        finally:
            db.close()


def _run(db: sqlite_utils.Database, root: Path, full: bool, progress: bool) -> RunSummary:
    started = time.perf_counter()
    started_at = timestamps.now()
    settings, settings_problems = load_settings(root)
    files = walk_store(root)
    known = {} if full else {row[0]: row[1:] for row in db.execute("select path, type, size, mtime_ns, digest from index_files")}
    full = full or not known
    stat_changed = [f for p, f in files.items() if known.get(p, (None,))[:3] != (f.type, f.size, f.mtime_ns)]
    deleted = [p for p in known if p not in files]
    if stat_changed or deleted:
        # a file that lost a duplicate contest is read again whenever anything else changed
        stat_changed += [files[p] for p in _conflict_losers(db) if p in files and files[p] not in stat_changed]

    parsed: dict[str, ParsedFile] = {}
    touched: list[StoreFile] = []
    for sf, pf in _read_all(root, stat_changed, settings["index.max_file_bytes"], progress):
        if pf is None:
            deleted.append(sf.path)  # vanished between the walk and the read
            files.pop(sf.path)
        elif not full and pf.digest == known.get(sf.path, (None,) * 4)[3] and not _has_conflict(db, sf.path):
            touched.append(sf)
        else:
            parsed[sf.path] = pf

    settings_changed = _stored_settings(db) != settings or _stored_problems(db, SETTINGS_FILE) != settings_problems
    mode = "full" if full else ("incremental" if parsed or deleted or settings_changed else "no-op")
    with db.atomic():
        if full:
            _clear(db)
        else:
            _forget(db, list(parsed) + deleted)
        if mode != "no-op":
            _write(db, files, parsed)
            _write_settings(db, settings, settings_problems)
        db.conn.executemany(
            "update index_files set size = ?, mtime_ns = ? where path = ?",
            ((f.size, f.mtime_ns, f.path) for f in touched),
        )
        if full:
            database.enable_fts(db)
        summary = _summary(db, mode, files, len(parsed), len(deleted))
        summary.seconds = round(time.perf_counter() - started, 3)
        db["index_runs"].insert({
            "started": started_at, "mode": mode, "files_seen": summary.files_seen,
            "files_changed": summary.files_changed, "files_deleted": summary.files_deleted,
            "memories": summary.memories, "notes": summary.notes, "errors": summary.errors,
            "warnings": summary.warnings, "seconds": summary.seconds,
        })
    return summary


def _read_all(root: Path, store_files: list[StoreFile], max_bytes: int, progress: bool):
    """Yield (store file, parsed file or None if it vanished), with a progress bar on a terminal."""
    def read(sf: StoreFile):
        if not (root / sf.path).exists():
            return sf, None
        return sf, read_store_file(root, sf.path, max_bytes)

    if progress and len(store_files) >= PROGRESS_THRESHOLD:
        with click.progressbar(store_files, label="indexing", file=click.get_text_stream("stderr")) as bar:
            for sf in bar:
                yield read(sf)
    else:
        for sf in store_files:
            yield read(sf)


def _conflict_losers(db: sqlite_utils.Database) -> list[str]:
    codes = crossfile.CONFLICT_CODES
    return [r[0] for r in db.execute(
        f"select distinct path from problems where code in ({','.join('?' * len(codes))})", codes)]


def _has_conflict(db: sqlite_utils.Database, path: str) -> bool:
    codes = crossfile.CONFLICT_CODES
    return bool(db.execute(
        f"select 1 from problems where path = ? and code in ({','.join('?' * len(codes))})", (path, *codes)
    ).fetchone())


def _clear(db: sqlite_utils.Database) -> None:
    database.disable_fts(db)
    for table in ("memories", "notes", "problems", "index_files"):
        db.execute(f"delete from {table}")


def _forget(db: sqlite_utils.Database, paths: list[str]) -> None:
    """Remove every row that came from `paths` (edited or deleted files)."""
    for table in ("memories", "notes", "problems", "index_files"):
        db.conn.executemany(f"delete from {table} where path = ?", ((p,) for p in paths))


def _write(db: sqlite_utils.Database, files: dict[str, StoreFile], parsed: dict[str, ParsedFile]) -> None:
    """Validate the parsed files, settle cross-file rules, and write rows and problems."""
    problems: list[Problem] = []
    memories: dict[str, dict] = {}
    notes: dict[str, dict] = {}
    for path, pf in parsed.items():
        record, file_problems = (memory_record if files[path].type == "memory" else note_record)(pf)
        problems.extend(file_problems)
        if record is not None:
            (memories if files[path].type == "memory" else notes)[path] = record

    entries = [Entry(r["id"], r["project"], r["name"], r["status"] == "active", r["created"], p,
                     parsed[p].line_of("id"), parsed[p].line_of("name")) for p, r in memories.items()]
    existing = _existing_entries(db)
    losers = crossfile.duplicate_losers(entries + existing)
    note_entries = [Entry(r["id"], None, p, False, r["created"], p, parsed[p].line_of("id"))
                    for p, r in notes.items() if r["id"]]
    for note_id, created, path, lines in db.execute(
        "select n.id, n.created, n.path, f.lines from notes n join index_files f using (path) where n.id is not null"
    ):
        note_entries.append(Entry(note_id, None, path, False, created, path, json.loads(lines).get("id", 1)))
    losers.update(crossfile.duplicate_losers(note_entries))
    for path in losers:
        memories.pop(path, None)
        notes.pop(path, None)
    demoted = [p for p in losers if p not in parsed]
    db.conn.executemany("delete from memories where path = ?", ((p,) for p in demoted))
    db.conn.executemany("delete from notes where path = ?", ((p,) for p in demoted))
    problems.extend(losers.values())

    db["index_files"].insert_all(
        ({"path": p, "type": files[p].type, "size": files[p].size, "mtime_ns": files[p].mtime_ns,
          "digest": pf.digest, "lines": json.dumps({k: pf.key_lines[k] for k in LINE_KEYS if k in pf.key_lines})}
         for p, pf in parsed.items()),
        batch_size=500,
    )
    db["memories"].insert_all(memories.values(), batch_size=500)
    db["notes"].insert_all(notes.values(), batch_size=500)
    db.execute(f"delete from problems where code in ({','.join('?' * len(crossfile.LINK_CODES))})",
               crossfile.LINK_CODES)
    problems.extend(crossfile.link_problems(_links(db)))
    db["problems"].insert_all((vars(p) for p in sorted(set(problems))), batch_size=500)



def _existing_entries(db: sqlite_utils.Database) -> list[Entry]:
    rows = db.execute(
        "select m.id, m.project, m.name, m.status = 'active', m.created, m.path, f.lines "
        "from memories m join index_files f using (path)"
    ).fetchall()
    entries = []
    for memory_id, project, name, active, created, path, lines in rows:
        lines = json.loads(lines)
        entries.append(Entry(memory_id, project, name, bool(active), created, path,
                             lines.get("id", 1), lines.get("name", 1)))
    return entries


def _links(db: sqlite_utils.Database) -> dict[str, tuple[str | None, str, int]]:
    return {
        memory_id: (target, path, json.loads(lines).get("superseded_by", 1))
        for memory_id, target, path, lines in db.execute(
            "select m.id, m.superseded_by, m.path, f.lines from memories m join index_files f using (path)")
    }


def _stored_settings(db: sqlite_utils.Database) -> dict:
    return dict(db.execute("select key, value from settings").fetchall())


def _stored_problems(db: sqlite_utils.Database, path: str) -> list[Problem]:
    return [Problem(*row) for row in db.execute(
        "select path, line, severity, code, message from problems where path = ? order by line", (path,))]


def _write_settings(db: sqlite_utils.Database, settings: dict, problems: list[Problem]) -> None:
    db.execute("delete from settings")
    db["settings"].insert_all({"key": k, "value": v} for k, v in settings.items())
    db.execute("delete from problems where path = ?", (SETTINGS_FILE,))
    db["problems"].insert_all(vars(p) for p in problems)


def _summary(db, mode, files, changed, deleted) -> RunSummary:
    counts = dict(db.execute("select severity, count(*) from problems group by severity").fetchall())
    return RunSummary(
        mode=mode,
        files_seen=len(files),
        files_changed=changed,
        files_deleted=deleted,
        memories=db.execute("select count(*) from memories").fetchone()[0],
        notes=db.execute("select count(*) from notes").fetchone()[0],
        errors=counts.get("error", 0),
        warnings=counts.get("warning", 0),
        problems=[Problem(*row) for row in db.execute(
            "select path, line, severity, code, message from problems order by path, line, code")],
    )
