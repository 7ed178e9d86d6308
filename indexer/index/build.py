"""Building the index: store files -> parsed records + problems -> seamless.db, in one transaction.

Incremental by default: a file whose size, mtime and ctime are unchanged is not read; one
whose content hash is unchanged is not parsed again. Every write happens inside
one SQLite transaction on the database in place, so a reader sees the old index
or the new one, never a mix.

A run is three steps: plan (walk once, compare with the index once, decide what to read),
read and write what the plan names, then settle and record. `index_store` plans from a walk
of the whole store; `index_paths` plans from the paths it is given and walks nothing else.
"""

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from indexer import git
from indexer.index import changes, database, fts, memory_tags, revisions
from indexer.store import timestamps
from indexer.store.problems import Problem, error
from indexer.store.settings import FILE as SETTINGS_FILE
from indexer.store.settings import FILE_SETTINGS, load_settings
from indexer.store.walk import Folder, FolderFds, StoreFile, files_at, store_files, walk_folders

# A file written this close to the walk may be rewritten at the same size within the same mtime
# tick; its mtime is stored as -1 so the next run reads it again and compares hashes ("racy clean").
# Either time older than this is enough to trust the pair (IndexWriter.mtime): a later write sets the
# ctime to its own moment, and a plain write the mtime too, so an older one cannot come back unchanged.
RACY_NS = 2_000_000_000
# The most memories a run settles the gardener's findings for itself (a write, a watcher's batch, an edit or two):
# more are left to a settle of its own, in the background (gardener_settle.py; docs/queries.md#when-the-findings-settle)
GARDENER_IN_RUN = 2_000

Progress = Callable[[list[StoreFile]], Iterable[StoreFile]]  # wraps the files to read, e.g. in a progress bar
OnWait = Callable[[], None]  # called once when another writer holds the lock


@dataclass(slots=True)
class RunSummary:
    """What one index run did, as recorded in `index_runs`."""

    mode: str
    files_seen: int
    files_changed: int
    files_deleted: int
    memories: int
    notes: int
    errors: int
    warnings: int
    seconds: float
    problems: list[Problem]  # those of the files this run read (a full run: all)
    unlisted: int  # problems on record in files this run did not read
    gardener_behind: bool = False  # the gardener's findings are left to a settle of their own (gardener_settle.py)

    def line(self) -> str:
        return (
            f"{self.memories} memories, {self.notes} notes; problems: {self.errors} errors, "
            f"{self.warnings} warnings; {self.files_changed} changed, {self.files_deleted} deleted "
            f"of {self.files_seen} files ({self.mode}) in {self.seconds:.2f} s"
        )


def index_store(
    root: Path | str,
    db_path: str | Path,
    full: bool = False,
    progress: Progress | None = None,
    on_wait: OnWait | None = None,
    gardener: int | None = GARDENER_IN_RUN,
) -> RunSummary:
    """Bring the index at `db_path` in step with the store at `root`; return what was done.

    `progress` wraps the list of files to read (the CLI draws a bar with it); `on_wait` is
    called if another writer holds the lock. `gardener`: the most memories the run settles the
    gardener's findings for itself (None: any number); more are left to a settle of their own
    (`summary.gardener_behind`, indexer/index/gardener_settle.py).
    """
    with database.writer_lock(db_path, on_wait), _no_gc():
        db_path = database.resolved(db_path)
        if db_path != ":memory:" and not os.path.exists(db_path):  # the first run: no reader to protect
            with database.fresh_db(db_path) as db:
                _ensure_views(db)
                return _run_store(db, Path(root), True, progress, gardener)
        with contextlib.closing(database.open_db(db_path)) as db:
            _ensure_views(db)
            return _run_store(db, Path(root), full, progress, gardener)


def index_paths(
    root: Path | str,
    db_path: str | Path,
    paths: Iterable[str | Path],
    progress: Progress | None = None,
    on_wait: OnWait | None = None,
    gardener: int | None = GARDENER_IN_RUN,
    repo: git.Repo | None = None,
) -> RunSummary:
    """Bring the index in step for `paths` only (store-relative, or absolute inside `root`): each one
    created, changed or deleted (a rename is both), a folder standing for every file under it.

    The cross-file rules (duplicate ids and names, dangling links, cycles) come out as a run over
    the whole store would settle them. The touched folders' fingerprints are left untrusted, so the
    next walk looks into them again. A new index, or a change of the store's settings, makes this
    a run over the whole store. Raises database.OtherStoreError for an index of another store.
    `gardener` as for index_store. `repo`: where the store sits in its git work tree, when the caller knows (a
    write that just committed); else git is asked.
    """
    with database.writer_lock(db_path, on_wait), _no_gc():
        db_path = database.resolved(db_path)
        if db_path == ":memory:" or not os.path.exists(db_path):
            return index_store(root, db_path, progress=progress, gardener=gardener)
        with contextlib.closing(database.open_db(db_path)) as db:
            database.check_store(db, root, db_path)
            _ensure_views(db)
            if database.store_of(db) is not None:
                run = Run.start(Path(root))
                if not _settings_changed(db, run.settings, run.settings_problems):
                    return _carry_out(db, run, plan_paths(db, run.root, paths), progress, gardener, repo)
        return index_store(
            root, db_path, progress=progress, gardener=gardener
        )  # the index does not say what it holds yet


def _ensure_views(db: database.IndexConnection) -> None:
    """Install the views, compared with sqlite_master each time (changed SQL sources reach old indexes); not in an
    index in memory (`seamless check`), which no one reads."""
    if not database.in_memory(db):
        from indexer.sql import views  # here: composing them is a cost `seamless check` need not pay

        views.ensure_views(db)


@contextlib.contextmanager
def _no_gc():
    gc.disable()  # records hold no cycles: collecting while a run creates them is time lost (docs/performance.md)
    try:
        yield
    finally:
        gc.enable()


@dataclass(slots=True)
class Plan:
    """What a run has to do, worked out from the walk (or the given paths) and the index before anything is read
    (made with keywords; read, never changed)."""

    mode: str  # full, incremental or paths (an incremental run that finds nothing to do records no-op)
    stale: Sequence[StoreFile] = ()  # to read, in this order
    deleted: Sequence[str] = ()
    losers: Set[str] = frozenset()  # lost a duplicate contest: read again if anything changed
    digests: Mapping[str, str] = field(default_factory=dict)  # content hashes the index holds for stale paths
    settings_changed: bool = False
    files: Mapping[str, StoreFile] = field(default_factory=dict)  # the files looked into (and the losers)
    seen: int = 0  # files in the store (a walk), or at the given paths
    # a walk's findings, stored at the end: each folder's fingerprint, and the folders it could not list
    fingerprints: dict[str, str] | None = None
    folder_problems: list[Problem] | None = None
    touched_folders: Set[str] = frozenset()  # given paths: folders whose fingerprints go stale

    @property
    def full(self) -> bool:
        return self.mode == "full"

    @property
    def nothing(self) -> bool:
        return not (self.full or self.stale or self.deleted or self.settings_changed)


@dataclass(slots=True)
class Run:
    """A run's fixed facts: the store, its settings, and when the run started."""

    root: Path
    settings: dict
    settings_problems: list[Problem]
    started: float
    started_at: str
    racy_after: int  # files modified after this (ns) are too recent to trust their mtime

    @classmethod
    def start(cls, root: Path) -> "Run":
        started, started_at = time.perf_counter(), timestamps.now()
        settings, settings_problems = load_settings(root)
        return cls(root, settings, settings_problems, started, started_at, time.time_ns() - RACY_NS)

    @property
    def max_bytes(self) -> int:
        return self.settings["index.max_file_bytes"]


def _gardener_behind(db: database.IndexConnection) -> bool:
    """Whether earlier runs left the gardener's findings to a settle that has not ended (a run that changes nothing
    reads no more: the gardener's rules are not imported for it)."""
    return not database.in_memory(db) and db.execute("select 1 from gardener_pending limit 1").fetchone() is not None


def _run_store(
    db: database.IndexConnection, root: Path, full: bool, progress: Progress | None, gardener: int | None
) -> RunSummary:
    run = Run.start(root)
    return _carry_out(db, run, plan_store(db, run, full), progress, gardener)


class _Findings(TypedDict):
    """What plan_store's walk finds, whatever the plan: the Plan fields of those names."""

    seen: int
    fingerprints: dict[str, str]
    folder_problems: list[Problem]
    settings_changed: bool


def plan_store(db: database.IndexConnection, run: Run, full: bool) -> Plan:
    """Walk the store once and compare it with the index: only folders whose fingerprint changed are looked into."""
    walked = walk_folders(run.root)
    fingerprints = changes.fingerprints(walked)
    found: _Findings = {
        "seen": sum(len(folder.paths) for folder in walked.values()),
        "fingerprints": fingerprints,
        "folder_problems": _folder_problems(walked),
        "settings_changed": _settings_changed(db, run.settings, run.settings_problems),
    }
    full = full or not db.execute("select 1 from index_files limit 1").fetchone()
    # a new size limit changes the verdict on files that did not change: read them all again
    stored = dict(db.execute("select key, value from settings").fetchall())
    if full or any(stored.get(key) != run.settings[key] for key in FILE_SETTINGS):
        files = store_files(walked)
        return Plan(mode="full", stale=[files[path] for path in sorted(files)], files=files, **found)
    changed = changes.changed_folders(db, fingerprints)
    if not changed:
        return Plan(mode="incremental", **found)
    # in changed folders, compare (path, type, size, mtime_ns, ctime_ns) with what the index holds
    known = changes.known_files(db, changed)
    files = store_files(walked, changes.covered(changed, walked))
    deleted = sorted({k[0] for k in known} - files.keys())
    stale = [files[k[0]] for k in sorted({f.row for f in files.values() if f.folder in changed} - known)]
    losers = _conflict_losers(db) if stale or deleted else set()
    files.update(store_files(walked, {path.rpartition("/")[0] for path in losers}))  # to read them again
    return Plan(
        mode="incremental",
        stale=stale,
        deleted=deleted,
        losers=losers,
        digests=changes.known_digests(db, [f.path for f in stale]),
        files=files,
        **found,
    )


def plan_paths(db: database.IndexConnection, root: Path, paths: Iterable[str | Path]) -> Plan:
    """Compare the files at `paths` (and the index's rows at and under them) with the index; walk nothing else."""
    on_disk: dict[str, StoreFile] = {}
    indexed: set[str] = set()
    folders_seen: dict[str, bool] = {}
    for path in _store_relative(root, paths):
        on_disk.update(files_at(root, path, folders_seen))
        indexed.update(
            row[0]
            for row in db.execute(
                "select path from index_files where path = ? or (path >= ? and path < ?)",
                (path, f"{path}/", f"{path}0"),
            )
        )
    known = {
        row[0]: row
        for path in on_disk
        for row in db.execute("select path, type, size, mtime_ns, ctime_ns from index_files where path = ?", (path,))
    }
    stale = [on_disk[path] for path in sorted(on_disk) if known.get(path) != on_disk[path].row]
    deleted = sorted(indexed - on_disk.keys())
    losers = _conflict_losers(db) if stale or deleted else set()
    files = dict(on_disk)
    for loser in sorted(losers - files.keys()):  # to read them again
        files.update(files_at(root, loser, folders_seen))
    return Plan(
        mode="paths",
        stale=stale,
        deleted=deleted,
        losers=losers,
        digests=changes.known_digests(db, [f.path for f in stale]),
        files=files,
        seen=len(on_disk),
        touched_folders={f.folder for f in stale} | {path.rpartition("/")[0] for path in deleted},
    )


def _store_relative(root: Path, paths: Iterable[str | Path]) -> list[str]:
    """`paths` relative to the store, normalised, with forward slashes, each once; those outside it dropped."""
    bases = [os.path.abspath(root), os.path.realpath(root)]
    found = set()
    for path in (os.fspath(p) for p in paths):
        if os.path.isabs(path):
            inside = [os.path.relpath(path, base) for base in bases]
            path = next((rel for rel in inside if rel != ".." and not rel.startswith(f"..{os.sep}")), "..")
        path = os.path.normpath(path).replace(os.sep, "/")
        if path != ".." and not path.startswith("../") and path not in (".", "/"):
            found.add(path)
    return sorted(found)


class _Reading:
    """Reads the files a plan names into the writer, noting what it found along the way."""

    def __init__(self, run: Run, plan: Plan, writer, folders: FolderFds | None = None):
        from indexer.index.prepare import prepare  # here: a run with nothing to read never loads YAML

        self.prepare = prepare
        self.run, self.plan, self.writer = run, plan, writer
        self.folders = folders  # the store's folders, opened without following a symlink
        self.unchanged: list[StoreFile] = []  # read, same content: only their stat is updated
        self.vanished: list[StoreFile] = []  # gone between the plan and the read
        self.deleted: list[str] = list(plan.deleted)  # the plan's deletions and the vanished files

    def read(self, sf: StoreFile, digest: str | None) -> None:
        prepared = self.prepare(str(self.run.root), sf, digest, self.run.max_bytes, self.folders)
        if prepared is None:  # vanished between the walk and the read
            self.vanished.append(sf)
            self.deleted.append(sf.path)
            self.writer.forget(sf.path)
        elif prepared.unchanged:
            self.unchanged.append(sf)
        else:
            self.writer.add(prepared)

    def read_stale(self, progress: Progress | None) -> None:
        """Read every file the plan found changed (the conflict losers come after)."""
        files = [sf for sf in self.plan.stale if sf.path not in self.plan.losers]
        for sf in progress(files) if progress else files:
            self.read(sf, self.plan.digests.get(sf.path))

    def read_losers(self) -> None:
        """A file that lost a duplicate contest may win it now: read again whatever its hash if anything changed.

        The losers that are stale come first, by their hashes: one edited itself changes the contests
        as much as any other edit, so the rest are then read again too.
        """
        plan = self.plan
        gone = {sf.path for sf in self.vanished}
        losers = [plan.files[path] for path in sorted(plan.losers) if path in plan.files and path not in gone]
        stale_paths = {sf.path for sf in plan.stale}
        for sf in losers:
            if sf.path in stale_paths:
                self.read(sf, plan.digests.get(sf.path))
        if self.writer.changed or self.deleted:
            for sf in losers:
                if sf.path not in stale_paths or sf in self.unchanged:
                    if sf in self.unchanged:
                        self.unchanged.remove(sf)
                    self.read(sf, None)

    def changed(self, db: database.IndexConnection) -> bool:
        """Whether the index's content changes: files, settings, or the folders that could not be listed."""
        plan = self.plan
        if plan.full or self.writer.changed or self.deleted or plan.settings_changed:
            return True
        return _folders_changed(db, plan)

    def as_before(self, db: database.IndexConnection) -> set[str]:
        """The paths read whose problems stay as the index holds them: the files found unchanged, and the
        folders that could not be listed if they are the same as last time (before they are written)."""
        return {sf.path for sf in self.unchanged} | _folders_as_before(db, self.plan)


def _folders_changed(db: database.IndexConnection, plan: Plan) -> bool:
    """Whether the walk found other folders it could not list than the index holds."""
    return plan.folder_problems is not None and plan.folder_problems != _problems_of(db, code="unreadable-folder")


def _folders_as_before(db: database.IndexConnection, plan: Plan) -> set[str]:
    return set() if _folders_changed(db, plan) else {p.path for p in plan.folder_problems or ()}


def _carry_out(
    db: database.IndexConnection,
    run: Run,
    plan: Plan,
    progress: Progress | None,
    gardener: int | None,
    repo: git.Repo | None = None,
) -> RunSummary:
    """Read and write what `plan` names, settle the cross-file rules, and record the run, in one transaction."""
    if plan.nothing:
        with db.atomic():
            revisions.update(db, run.root, run.max_bytes, repo=repo)
            _remember_folders(db, plan, set())
            database.record_store(db, run.root)
            mode = "paths" if plan.mode == "paths" else "no-op"
            summary = _record(db, run, plan, mode, 0, 0, as_before=_folders_as_before(db, plan))
            summary.gardener_behind = _gardener_behind(db)
            return summary
    # imported here: a run with nothing to read (the usual `make index`) never loads YAML or the writer
    from indexer.index.writer import IndexWriter

    # the writer's thread is stopped before the transaction commits or rolls back
    with (
        db.atomic(),
        IndexWriter(db, str(run.root), run.max_bytes, run.racy_after, empty=plan.full) as writer,
        FolderFds(str(run.root)) as folders,
    ):
        if plan.full:
            _empty_tables(db)
        for path in plan.deleted:
            writer.forget(path)
        reading = _Reading(run, plan, writer, folders)
        reading.read_stale(progress)
        reading.read_losers()
        changed, as_before = reading.changed(db), reading.as_before(db)
        behind = _write_changes(db, run, plan, writer, changed, gardener)
        if changed:  # what a reader's cache compares (indexer/query/recall_terms.py)
            database.next_generation(db)
        # the store's git history, in the same transaction; after the rows, whose digests give ids
        revisions.update(db, run.root, run.max_bytes, full=plan.full, repo=repo)
        db.executemany(
            "update index_files set size = ?, mtime_ns = ?, ctime_ns = ? where path = ?",
            ((f.size, writer.mtime(f), f.ctime_ns, f.path) for f in reading.unchanged),
        )
        # a folder holding a file too recent to trust, or one that vanished during the run, is looked into again
        _remember_folders(db, plan, {f.folder for f in writer.racy + reading.vanished})
        database.record_store(db, run.root)
        mode = plan.mode if changed or plan.mode == "paths" else "no-op"
        summary = _record(db, run, plan, mode, writer.changed, len(reading.deleted), len(reading.vanished), as_before)
        summary.gardener_behind = behind if changed else _gardener_behind(db)
        return summary


def _empty_tables(db: database.IndexConnection) -> None:
    fts.begin_rebuild(db)
    memory_tags.clear(db)
    for table in (
        "memories",
        "notes",
        "problems",
        "index_files",
    ):  # not the gardener's: it settles again only what changed (gardener_pairs.settle)
        db.execute(f"delete from {table}")


def _write_changes(
    db: database.IndexConnection, run: Run, plan: Plan, writer, changed: bool, gardener: int | None
) -> bool:
    """Write the last rows; if anything changed, settle the cross-file rules and store the settings. Return whether
    the gardener's findings are left behind."""
    from indexer.index.writer import insert_problems

    behind = False
    if changed:
        writer.finish()
        # the gardener's findings, for the memories this run touched (all of them in a full run), when few; an
        # index in memory (`seamless check`) is read for its problems only, and the gardener makes none
        if not database.in_memory(db):
            # here: the gardener's reading, imported by a run that uses it
            from indexer.gardener import pairs as gardener_pairs

            behind = gardener_pairs.settle(db, None if plan.full else writer.link_ids, gardener)
        if plan.full:
            fts.end_rebuild(db)
        if plan.mode != "paths":  # a paths run goes ahead only with the stored settings unchanged
            _write_settings(db, run.settings, run.settings_problems)
    else:
        writer.flush()
        writer.wait()
    if plan.folder_problems is not None:
        db.execute("delete from problems where code = 'unreadable-folder'")
        insert_problems(db, plan.folder_problems)
    return behind


def _remember_folders(db: database.IndexConnection, plan: Plan, untrusted: set[str]) -> None:
    """Store a walk's fingerprints; after a paths run, mark the folders it touched as not to be trusted."""
    if plan.fingerprints is not None:
        changes.remember(db, plan.fingerprints, untrusted)
    else:
        changes.distrust(db, plan.touched_folders | untrusted)


def _record(
    db: database.IndexConnection,
    run: Run,
    plan: Plan,
    mode: str,
    changed: int,
    deleted: int,
    vanished: int = 0,
    as_before: set[str] | None = None,
) -> RunSummary:
    """Sum up the run and add it to `index_runs`."""
    # a full run reports every problem; a paths run those of the files it looked at; an incremental run
    # (a no-op too) those of the files and folders whose verdict it wrote anew: the others, `as_before` among
    # them (files read only to find their bytes the same, e.g. after a touch), were reported by an earlier run
    if plan.full:
        paths = None
    elif plan.fingerprints is None:
        paths = set(plan.files) | set(plan.deleted)
    else:
        paths = {sf.path for sf in plan.stale} | plan.losers | set(plan.deleted)
        paths |= {p.path for p in plan.folder_problems or ()} | ({SETTINGS_FILE} if plan.settings_changed else set())
        paths -= as_before or set()
    summary = _summary(db, mode, plan.seen - vanished, changed, deleted, paths, run.started)
    db.execute(
        "insert into index_runs (started, mode, files_seen, files_changed, files_deleted, memories, "
        "notes, errors, warnings, seconds) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run.started_at,
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


def _settings_changed(db: database.IndexConnection, settings: dict, problems: list[Problem]) -> bool:
    stored = dict(db.execute("select key, value from settings").fetchall())
    return stored != settings or _problems_of(db, SETTINGS_FILE) != problems


def _conflict_losers(db: database.IndexConnection) -> set[str]:
    from indexer.store import crossfile  # here: a run that changed nothing applies no cross-file rule

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
    from indexer.index.writer import insert_problems

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


def _summary(
    db: database.IndexConnection, mode: str, seen: int, changed: int, deleted: int, paths: set[str] | None, started
) -> RunSummary:
    """The run's figures and the problems now on record: all of them, or those of `paths`; its time since
    `started` (time.perf_counter)."""
    counts = dict(db.execute("select severity, count(*) from problems group by severity").fetchall())
    select = "select path, line, severity, code, message from problems"
    if paths is None:
        problems = [Problem(*row) for row in db.execute(f"{select} order by path, line, code")]
    else:
        problems = sorted(Problem(*row) for path in paths for row in db.execute(f"{select} where path = ?", (path,)))
    return RunSummary(
        mode=mode,
        files_seen=seen,
        files_changed=changed,
        files_deleted=deleted,
        memories=db.execute("select count(*) from memories").fetchone()[0],
        notes=db.execute("select count(*) from notes").fetchone()[0],
        errors=counts.get("error", 0),
        warnings=counts.get("warning", 0),
        problems=problems,
        unlisted=sum(counts.values()) - len(problems),
        seconds=round(time.perf_counter() - started, 3),
    )


def recorded_problems(conn) -> list[Problem]:
    """Every problem the index open on `conn` holds, in order (what a full run lists)."""
    return [
        Problem(*row)
        for row in conn.execute("select path, line, severity, code, message from problems order by path, line, code")
    ]
