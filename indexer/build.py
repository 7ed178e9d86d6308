"""Building the index: store files -> parsed records + problems -> seamless.db, in one transaction.

Incremental by default: a file whose size, mtime and ctime are unchanged is not read; one
whose content hash is unchanged is not parsed again. Every write happens inside
one SQLite transaction on the database in place, so a reader sees the old index
or the new one, never a mix.
"""

import gc
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import click

from . import changes, crossfile, database, fts, timestamps
from .problems import Problem, error
from .settings import FILE as SETTINGS_FILE
from .settings import FILE_SETTINGS, load_settings
from .walk import Folder, FolderFds, StoreFile, store_files, walk_folders

PROGRESS_THRESHOLD = 2000  # files to read before a progress bar is worth showing
# A file written this close to the walk may be rewritten at the same size within the same mtime
# tick; its mtime is stored as -1 so the next run reads it again and compares hashes ("racy clean").
RACY_NS = 2_000_000_000


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


def index_store(root: Path | str, db_path: str | Path, full: bool = False, progress: bool = False) -> RunSummary:
    """Bring the index at `db_path` in step with the store at `root`; return what was done."""
    with database.writer_lock(db_path):
        gc.disable()  # records hold no cycles; collecting while creating 100,000s of them costs a fifth
        try:
            if str(db_path) != ":memory:" and not os.path.exists(db_path):  # the first run: no reader to protect
                with database.fresh_db(db_path) as db:
                    return _run(db, str(root), True, progress)
            db = database.open_db(db_path)
            try:
                return _run(db, str(root), full, progress)
            finally:
                db.close()
        finally:
            gc.enable()


@dataclass
class Plan:
    """What a run has to do, worked out from the walk and the index before anything is read."""

    full: bool
    stale: list[StoreFile]  # to read, in this order
    deleted: list[str]
    losers: set[str]  # paths that lost a duplicate contest: read again, whatever their hash, if anything changed
    digests: dict[str, str]  # content hashes the index holds for stale paths
    settings_changed: bool
    files: dict[str, StoreFile]  # the walk's records of the files looked into (and of the losers)

    @property
    def nothing(self) -> bool:
        return not (self.full or self.stale or self.deleted or self.settings_changed)


def _run(db: database.IndexConnection, root: str, full: bool, progress: bool) -> RunSummary:
    started, started_at = time.perf_counter(), timestamps.now()
    settings, settings_problems = load_settings(Path(root))
    max_bytes = settings["index.max_file_bytes"]
    racy_after = time.time_ns() - RACY_NS
    walked = walk_folders(Path(root))
    folders = changes.fingerprints(walked)
    seen = sum(len(folder.paths) for folder in walked.values())
    plan = _plan(db, walked, folders, full, settings, settings_problems)
    if plan.nothing:
        with db.atomic():
            changes.remember(db, folders, set())
            return _record(db, "no-op", started, started_at, seen, 0, 0)
    # imported here: a run with nothing to read (the usual `make index`) never loads YAML or the writer
    from .prepare import prepare
    from .write import IndexWriter, insert_problems

    files = plan.files
    touched: list[StoreFile] = []
    deleted, vanished = plan.deleted, []
    # the writer's thread is stopped before the transaction commits or rolls back
    # files are read through folders opened without following a symlink (walk.FolderFds)
    with db.atomic(), IndexWriter(db, root, max_bytes, racy_after, empty=plan.full) as writer, FolderFds(root) as dirs:
        if plan.full:
            fts.begin_rebuild(db)
            for table in ("memories", "notes", "problems", "index_files"):
                db.execute(f"delete from {table}")
        for path in deleted:
            writer.forget(path)

        def read(sf: StoreFile, digest: str | None) -> None:
            prepared = prepare(root, sf, digest, max_bytes, dirs)
            if prepared is None:  # vanished between the walk and the read
                vanished.append(sf)
                deleted.append(sf.path)
                writer.forget(sf.path)
                del files[sf.path]
            elif prepared.unchanged:
                touched.append(sf)
            else:
                writer.add(prepared)

        for sf in _progress([sf for sf in plan.stale if sf.path not in plan.losers], progress):
            read(sf, plan.digests.get(sf.path))
        # a file that lost a duplicate contest may win it now: read again whatever its hash if anything changed
        again, stale_paths = writer.changed or deleted, {sf.path for sf in plan.stale}
        for path in sorted(plan.losers):
            if path in files and (again or path in stale_paths):
                read(files[path], None if again else plan.digests.get(path))
        folder_problems = _folder_problems(walked)
        if plan.full:
            mode = "full"
        else:
            folders_changed = folder_problems != _problems_of(db, code="unreadable-folder")
            mode = "incremental" if writer.changed or deleted or plan.settings_changed or folders_changed else "no-op"
        if mode == "no-op":
            writer.flush()
            writer.wait()
        else:
            writer.finish()
            if plan.full:
                fts.end_rebuild(db)
            _write_settings(db, settings, settings_problems)
        db.execute("delete from problems where code = 'unreadable-folder'")
        insert_problems(db, folder_problems)
        db.executemany(
            "update index_files set size = ?, mtime_ns = ?, ctime_ns = ? where path = ?",
            ((f.size, writer.mtime(f), f.ctime_ns, f.path) for f in touched),
        )
        # a folder holding a file too recent to trust, or one that vanished during the run, is looked into again
        changes.remember(db, folders, {f.folder for f in writer.racy + vanished})
        return _record(db, mode, started, started_at, seen - len(vanished), writer.changed, len(deleted))


def _plan(
    db: database.IndexConnection,
    walked: dict[str, Folder],
    folders: dict[str, str],
    full: bool,
    settings: dict,
    settings_problems: list[Problem],
) -> Plan:
    """Compare the walk with the index: only folders whose fingerprint changed are looked into."""
    full = full or not db.execute("select 1 from index_files limit 1").fetchone()
    stored = dict(db.execute("select key, value from settings").fetchall())
    settings_changed = stored != settings or _problems_of(db, SETTINGS_FILE) != settings_problems
    # a new size limit changes the verdict on files that did not change: read them all again
    full = full or any(stored.get(key) != settings[key] for key in FILE_SETTINGS)
    if full:
        files = store_files(walked)
        return Plan(True, [files[path] for path in sorted(files)], [], set(), {}, settings_changed, files)
    changed = changes.changed_folders(db, folders)
    if not changed:
        return Plan(False, [], [], set(), {}, settings_changed, {})
    # in changed folders, compare (path, type, size, mtime_ns, ctime_ns) with what the index holds
    known = changes.known_files(db, changed)
    files = store_files(walked, changes.covered(changed, walked))
    deleted = sorted({k[0] for k in known} - files.keys())
    stale = [files[k[0]] for k in sorted({f[:5] for f in files.values() if f.folder in changed} - known)]
    losers = _conflict_losers(db) if stale or deleted else set()
    files.update(store_files(walked, {path.rpartition("/")[0] for path in losers}))  # to read them again
    return Plan(False, stale, deleted, losers, _digests(db, [f.path for f in stale]), settings_changed, files)


def _record(
    db: database.IndexConnection, mode: str, started: float, started_at: str, seen: int, changed: int, deleted: int
) -> RunSummary:
    """Sum up the run and add it to `index_runs`."""
    summary = _summary(db, mode, seen, changed, deleted)
    summary.seconds = round(time.perf_counter() - started, 3)
    db.execute(
        "insert into index_runs (started, mode, files_seen, files_changed, files_deleted, memories, "
        "notes, errors, warnings, seconds) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            started_at,
            mode,
            summary.files_seen,
            summary.files_changed,
            summary.files_deleted,
            summary.memories,
            summary.notes,
            summary.errors,
            summary.warnings,
            summary.seconds,
        ),
    )
    return summary


def _progress(items: list, enabled: bool):
    if enabled and len(items) >= PROGRESS_THRESHOLD:
        with click.progressbar(items, label="indexing", file=click.get_text_stream("stderr")) as bar:
            yield from bar
    else:
        yield from items


def _digests(db: database.IndexConnection, paths: list[str]) -> dict[str, str]:
    """The content hashes the index holds for `paths` (all of them at once when there are many)."""
    if len(paths) > 1000:
        return dict(db.execute("select path, digest from index_files"))
    return dict(row for p in paths for row in db.execute("select path, digest from index_files where path = ?", (p,)))


def _conflict_losers(db: database.IndexConnection) -> set[str]:
    codes = crossfile.CONFLICT_CODES
    return {
        r[0]
        for r in db.execute(f"select distinct path from problems where code in ({','.join('?' * len(codes))})", codes)
    }


def _problems_of(db: database.IndexConnection, path: str | None = None, code: str | None = None) -> list[Problem]:
    """The problems the index holds for `path`, or of `code`, in order."""
    column, value = ("path", path) if code is None else ("code", code)
    return [
        Problem(*row)
        for row in db.execute(
            f"select path, line, severity, code, message from problems where {column} = ? order by path, line", (value,)
        )
    ]


def _write_settings(db: database.IndexConnection, settings: dict, problems: list[Problem]) -> None:
    from .write import insert_problems

    db.execute("delete from settings")
    db.executemany("insert into settings (key, value) values (?, ?)", settings.items())
    db.execute("delete from problems where path = ?", (SETTINGS_FILE,))
    insert_problems(db, problems)


def _folder_problems(walked: dict[str, Folder]) -> list[Problem]:
    """An `unreadable-folder` error for each folder the walk could not list (its files are not indexed)."""
    return sorted(
        error(name, 1, "unreadable-folder", f"{folder.error}: the files in it are not indexed")
        for name, folder in walked.items()
        if folder.error
    )


def _summary(db: database.IndexConnection, mode: str, seen: int, changed: int, deleted: int) -> RunSummary:
    counts = dict(db.execute("select severity, count(*) from problems group by severity").fetchall())
    return RunSummary(
        mode=mode,
        files_seen=seen,
        files_changed=changed,
        files_deleted=deleted,
        memories=db.execute("select count(*) from memories").fetchone()[0],
        notes=db.execute("select count(*) from notes").fetchone()[0],
        errors=counts.get("error", 0),
        warnings=counts.get("warning", 0),
        problems=[
            Problem(*row)
            for row in db.execute("select path, line, severity, code, message from problems order by path, line, code")
        ],
    )
