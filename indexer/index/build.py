"""Building the index: store files -> parsed records + problems -> seamless.db, in one transaction, so a reader sees
the old index or the new one, never a mix. Incremental by default: a file whose size, mtime and ctime are unchanged
is not read; one whose content hash is unchanged is not parsed again.

A run plans (plan.py: from a walk of the whole store, or from the paths `index_paths` is given), reads and writes what
the plan names, settles the rules across files, brings the store's git history up to date (revisions.py, in the work
tree the plan found) and records itself: docs/development.md draws the steps.
"""

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path

from indexer import git
from indexer.index import database, dismissed, fts, revisions
from indexer.index.plan import SETTINGS_KEY, Plan, folders_as_before, plan_paths, plan_store, remember
from indexer.sql import views
from indexer.store import dismissals, timestamps
from indexer.store.problems import Problem
from indexer.store.settings import FILE as SETTINGS_FILE
from indexer.store.walk import FolderFds, StoreFile

# A file written this close to the walk may be rewritten at the same size within the same mtime
# tick; its mtime is stored as -1 so the next run reads it again and compares hashes ("racy clean").
# Either time older than this is enough to trust the pair (IndexWriter.mtime): a later write sets the
# ctime to its own moment, and a plain write the mtime too, so an older one cannot come back unchanged.
RACY_NS = 2_000_000_000

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
    gardener_behind: bool = False  # the gardener's findings are left to a settle of their own (indexer.gardener)

    def line(self) -> str:
        return (
            f"{self.memories} memories, {self.notes} notes; problems: {self.errors} errors, "
            f"{self.warnings} warnings; {self.files_changed} changed, {self.files_deleted} deleted "
            f"of {self.files_seen} files ({self.mode}) in {self.seconds:.2f} s"
        )


VIEWS_KEY = "views_made_from"  # index_meta: the views' sources and the schema's version when they were last compared
# what `index_runs` keeps of a run besides when it started
RUN_COLUMNS = tuple(f.name for f in fields(RunSummary) if f.name not in ("problems", "unlisted", "gardener_behind"))


def index_store(
    root: Path | str,
    db_path: str | Path,
    full: bool = False,
    progress: Progress | None = None,
    on_wait: OnWait | None = None,
) -> RunSummary:
    """Bring the index at `db_path` in step with the store at `root`; return what was done.

    `progress` wraps the list of files to read (the CLI draws a bar with it); `on_wait` is
    called if another writer holds the lock. The gardener's findings may be left to a settle of their own
    (`summary.gardener_behind`).
    """
    with database.writer_lock(db_path, on_wait), _no_gc():
        db_path = database.resolved(db_path)
        first = db_path != ":memory:" and not os.path.exists(db_path)  # the first run: no reader to protect
        with database.fresh_db(db_path) if first else contextlib.closing(database.open_db(db_path)) as db:
            _ensure_views(db)
            run = Run.start(Path(root))
            plan = plan_store(db, run.root, full or first)
            return _carry_out(db, run, plan, progress)


def index_paths(
    root: Path | str, db_path: str | Path, paths: Iterable[str | Path], repo: git.Repo | None = None
) -> RunSummary:
    """Bring the index in step for `paths` only (store-relative, or absolute inside `root`; a folder stands for
    every file under it), the cross-file rules settled as a run over the whole store would (docs/development.md).
    Raises database.OtherStoreError for an index of another store. `repo`: where the store sits in its git work
    tree, when the caller knows (a write that just committed); else git is asked.
    """
    with database.writer_lock(db_path), _no_gc():
        db_path = database.resolved(db_path)
        if db_path == ":memory:" or not os.path.exists(db_path):
            return index_store(root, db_path)
        with contextlib.closing(database.open_db(db_path)) as db:
            database.check_store(db, root, db_path)
            _ensure_views(db)
            if database.store_of(db) is not None:  # else the index does not say what it holds yet
                run = Run.start(Path(root))
                plan = plan_paths(db, run.root, paths, repo)
                if not plan.settings_changed:
                    return _carry_out(db, run, plan, None)
        return index_store(root, db_path)


def _ensure_views(db: database.IndexConnection) -> None:
    """Install the views, compared with sqlite_master (changed SQL sources reach old indexes) unless neither their
    sources nor the schema changed since the last comparison (composing them is 2 ms of a no-op run); not in an index
    in memory (`seamless check`), which no one reads."""
    if database.in_memory(db):
        return
    sources = views.made_from()
    if database.meta_value(db, VIEWS_KEY) != f"{sources} {_schema_version(db)}":
        views.ensure_views(db)
        database.set_meta(db, VIEWS_KEY, f"{sources} {_schema_version(db)}")


def _schema_version(db: database.IndexConnection) -> int:
    # SQLite counts every change of the schema: a view dropped or replaced by hand shows here
    return db.execute("PRAGMA schema_version").fetchone()[0]


@contextlib.contextmanager
def _no_gc():
    gc.disable()  # records hold no cycles: collecting while a run creates them is time lost (docs/performance.md)
    try:
        yield
    finally:
        gc.enable()


@dataclass(slots=True)
class Run:
    """A run's fixed facts: the store, and when the run started."""

    root: Path
    started: float
    started_at: str
    racy_after: int  # files modified after this (ns) are too recent to trust their mtime

    @classmethod
    def start(cls, root: Path) -> "Run":
        return cls(root, time.perf_counter(), timestamps.now(), time.time_ns() - RACY_NS)


def _gardener_behind(db: database.IndexConnection) -> bool:
    """Whether earlier runs left the gardener's findings to a settle that has not ended (a run that changes nothing
    reads no more: the gardener's rules are not imported for it)."""
    return not database.in_memory(db) and db.execute("select 1 from gardener_pending limit 1").fetchone() is not None


@dataclass(slots=True)
class _Written:
    """What reading and writing a plan did (nothing, for a plan with nothing to do)."""

    as_before: set[str]  # the paths read whose problems stay as the index holds them (Reading.as_before)
    changed: bool = False  # the index's content: files, settings, or the folders that could not be listed
    files_changed: int = 0
    deleted: int = 0
    vanished: int = 0  # gone between the plan and the read
    untrusted: set[str] = field(default_factory=set)  # folders to look into again on the next walk
    behind: bool = False  # the gardener's findings left to a settle of their own
    dismissals_read: bool = False  # the gardener's dismissals, read again (indexer/index/dismissed.py)


def _carry_out(
    db: database.IndexConnection,
    run: Run,
    plan: Plan,
    progress: Progress | None,
) -> RunSummary:
    """Read and write what `plan` names, settle the cross-file rules, record the run and bring the store's git
    history up to date, in one transaction."""
    with db.atomic():
        if plan.nothing:
            written = _Written(as_before=folders_as_before(db, plan))
        else:
            written = _read_and_write(db, run, plan, progress)
        written.dismissals_read = dismissed.write(db, plan.dismissals, run.racy_after)  # if they changed
        if written.dismissals_read and not written.changed:  # (a change of the index's content too)
            database.next_generation(db)
        remember(db, plan, written.untrusted)
        database.set_meta(db, SETTINGS_KEY, plan.settings_read_as)  # the settings it holds are the plan's
        database.set_meta(db, "store", database.store_root(run.root))
        mode = plan.mode if written.changed or written.dismissals_read or plan.mode == "paths" else "no-op"
        summary = _summary(db, plan, mode, written)
        summary.gardener_behind = written.behind if written.changed else _gardener_behind(db)
        # the store's git history, in the same transaction: after the rows, whose digests give ids
        revisions.update(db, plan.repo, plan.max_bytes, full=plan.full)
        _record(db, run, summary)
        return summary


def _read_and_write(db: database.IndexConnection, run: Run, plan: Plan, progress: Progress | None) -> _Written:
    """Read the files `plan` names and write their rows; settle the cross-file rules if anything changed."""
    # imported here: a run with nothing to read (the usual `make index`) never loads YAML or the writer
    from indexer.index.prepare import Reading
    from indexer.index.writer import IndexWriter

    # the writer's thread is stopped before the transaction commits or rolls back
    with (
        IndexWriter(db, str(run.root), plan.max_bytes, run.racy_after, empty=plan.full) as writer,
        FolderFds(str(run.root)) as folders,
    ):
        if plan.full:
            _empty_tables(db)
        for path in plan.deleted:
            writer.forget(path)
        reading = Reading(str(run.root), plan, writer, folders)
        reading.read_stale(progress)
        reading.read_losers()
        changed, as_before = reading.changed(db), reading.as_before(db)
        behind = _write_changes(db, plan, writer, changed)
        if changed:  # what a reader's cache compares (indexer/query/recall_terms.py)
            database.next_generation(db)
        db.executemany(
            "update index_files set size = ?, mtime_ns = ?, ctime_ns = ? where path = ?",
            ((f.size, writer.mtime(f), f.ctime_ns, f.path) for f in reading.unchanged),
        )
    return _Written(
        as_before,
        changed,
        writer.changed,
        len(reading.deleted),
        len(reading.vanished),
        # a folder holding a file too recent to trust, or one that vanished during the run, is looked into again
        {f.folder for f in writer.racy + reading.vanished},
        behind,
    )


def _empty_tables(db: database.IndexConnection) -> None:
    fts.begin_rebuild(db)
    # not the gardener's tables: it settles again only what changed
    for table in ("memories", "memory_tags", "notes", "problems", "index_files"):
        db.execute(f"delete from {table}")


def _write_changes(db: database.IndexConnection, plan: Plan, writer, changed: bool) -> bool:
    """Write the last rows; if anything changed, settle the cross-file rules and store the settings. Return whether
    the gardener's findings are left behind."""
    from indexer.index.writer import insert_problems

    behind = False
    if changed:
        writer.finish()
        if plan.mode != "paths":  # a paths run goes ahead only with the stored settings unchanged
            db.execute("delete from settings")
            db.executemany("insert into settings (key, value) values (?, ?)", plan.settings.items())
            db.execute("delete from problems where path = ?", (SETTINGS_FILE,))
            insert_problems(db, plan.settings_problems)
        # the gardener's findings, for the memories this run touched (all of them in a full run), when few; an
        # index in memory (`seamless check`) is read for its problems only, and the gardener makes none
        if not database.in_memory(db):
            from indexer import gardener  # here: imported by a run that uses it

            behind = gardener.settle(db, None if plan.full else writer.link_ids)
        if plan.full:
            fts.end_rebuild(db)
    else:
        writer.flush()
        writer.wait()
    if plan.folder_problems is not None:
        db.execute("delete from problems where code = 'unreadable-folder'")
        insert_problems(db, plan.folder_problems)
    return behind


def _summary(db: database.IndexConnection, plan: Plan, mode: str, written: _Written) -> RunSummary:
    """Sum up the run, with the problems on record it lists (its time: `_record`)."""
    # a full run reports every problem; a paths run those of the files it looked at; an incremental run
    # (a no-op too) those of the files and folders whose verdict it wrote anew: the others, `as_before` among
    # them (files read only to find their bytes the same, e.g. after a touch), were reported by an earlier run
    if plan.full:
        problems = recorded_problems(db)
    else:
        if plan.fingerprints is None:
            paths = set(plan.files) | set(plan.deleted)
        else:
            paths = {sf.path for sf in plan.stale} | plan.losers | set(plan.deleted)
            paths |= {p.path for p in plan.folder_problems or ()} | (
                {SETTINGS_FILE} if plan.settings_changed else set()
            )
            paths -= written.as_before
        if written.dismissals_read:
            paths.add(dismissals.FILE)
        select = "select path, line, severity, code, message from problems where path = ?"
        problems = sorted(Problem(*row) for path in paths for row in db.execute(select, (path,)))
    counts = dict(db.execute("select severity, count(*) from problems group by severity").fetchall())
    return RunSummary(
        mode=mode,
        files_seen=plan.seen - written.vanished,
        files_changed=written.files_changed,
        files_deleted=written.deleted,
        memories=db.execute("select count(*) from memories").fetchone()[0],
        notes=db.execute("select count(*) from notes").fetchone()[0],
        errors=counts.get("error", 0),
        warnings=counts.get("warning", 0),
        problems=problems,
        unlisted=sum(counts.values()) - len(problems),
        seconds=0.0,
    )


def _record(db: database.IndexConnection, run: Run, summary: RunSummary) -> None:
    """The run's time, its history included, and its row in `index_runs`."""
    summary.seconds = round(time.perf_counter() - run.started, 3)
    db.execute(
        f"insert into index_runs (started, {', '.join(RUN_COLUMNS)}) values (?{', ?' * len(RUN_COLUMNS)})",
        (run.started_at, *(getattr(summary, column) for column in RUN_COLUMNS)),
    )


def recorded_problems(conn) -> list[Problem]:
    """Every problem the index open on `conn` holds, in order (what a full run lists)."""
    return [
        Problem(*row)
        for row in conn.execute("select path, line, severity, code, message from problems order by path, line, code")
    ]
