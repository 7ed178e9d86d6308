"""An index run's plan: what changed since the last run, and so what to read, worked out before anything is read.

Git is asked once where the store sits (its HEAD, for the revisions), then the store's settings are read, and its
gardener's dismissals where they changed, and the store walked once (or only the given paths looked at); the walk lists
each folder's files as flat lists, hashed into one fingerprint per folder and kept in `index_folders` by the run
that saw them. A later run compares fingerprints and loads the `index_files` rows of changed folders only, and
makes a StoreFile only for the files of those folders: one edit in a store of 100,000 files reads the rows of one
folder. A folder holding a file too recent to trust (build.RACY_NS) is stored without a fingerprint, so the next
run looks at it again.
"""

import os
from array import array
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path

try:  # hashlib's blake2b, without hashlib loading OpenSSL: 1-2 ms of every run, the session-start hook's too
    from _blake2 import blake2b
except ImportError:  # a Python built without it
    from hashlib import blake2b

from indexer import git
from indexer.index import dismissed
from indexer.index.database import in_memory, meta_value
from indexer.sqlite import sqlite3
from indexer.store import dismissals
from indexer.store.problems import CONFLICT_CODES, Problem, error
from indexer.store.settings import FILE as SETTINGS_FILE
from indexer.store.settings import FILE_SETTINGS, load_settings, read_as
from indexer.store.walk import Folder, StoreFile, folders_at, walk_folders

LOAD_ALL_OVER = 100  # changed folders beyond which one scan of index_files beats range queries


@dataclass(slots=True)
class Plan:
    """What a run has to do: the store's settings, then what to read and what to delete (read, never changed, once
    plan_store or plan_paths has made it)."""

    repo: git.Repo | None  # where the store sits in its git work tree (None: in none, or an index in memory)
    settings: dict
    settings_problems: list[Problem]
    settings_changed: bool  # from the index's: the whole store is judged again
    settings_read_as: str | None  # what they were made from (settings.read_as), kept by the run in index_meta
    dismissals: dismissals.Read | None  # the gardener's dismissals, read when the file changed (or in a full run)
    mode: str = "incremental"  # full, incremental or paths (an incremental run that finds nothing to do: no-op)
    stale: Sequence[StoreFile] = ()  # to read, in this order
    deleted: Sequence[str] = ()
    losers: Set[str] = frozenset()  # lost a duplicate contest: read again if anything changed
    digests: Mapping[str, str] = field(default_factory=dict)  # content hashes the index holds for stale paths
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

    @property
    def max_bytes(self) -> int:
        return self.settings["index.max_file_bytes"]


def plan_store(db: sqlite3.Connection, root: Path, full: bool) -> Plan:
    """Ask git where the store sits, read the settings, walk the store once and compare it with the index: only
    folders whose fingerprint changed are looked into."""
    repo = None if in_memory(db) else git.repo(root)  # `seamless check` runs no git
    full = full or not db.execute("select 1 from index_files limit 1").fetchone()  # (an index of an older schema too)
    settings, settings_problems, changed_settings, read_as = read_settings(db, root, full)
    dismissals_read = dismissals.load(root, unless_seen=None if full else meta_value(db, dismissed.KEY))
    walked = walk_folders(root)
    prints = fingerprints(walked)
    plan = Plan(
        repo,
        settings,
        settings_problems,
        changed_settings,
        read_as,
        dismissals_read,
        seen=sum(len(folder.paths) for folder in walked.values()),
        fingerprints=prints,
        folder_problems=_folder_problems(walked),
    )
    # a new size limit changes the verdict on files that did not change: read them all again
    stored = dict(db.execute("select key, value from settings").fetchall())
    if full or any(stored.get(key) != settings[key] for key in FILE_SETTINGS):
        plan.files = store_files(walked)
        plan.mode, plan.stale = "full", [plan.files[path] for path in sorted(plan.files)]
        return plan
    changed = changed_folders(db, prints)
    if not changed:
        return plan
    # in changed folders, compare (path, type, size, mtime_ns, ctime_ns) with what the index holds
    known = known_files(db, changed)
    files = store_files(walked, covered(changed, walked))
    plan.deleted = sorted({k[0] for k in known} - files.keys())
    plan.stale = [files[k[0]] for k in sorted({f.row for f in files.values() if f.folder in changed} - known)]
    plan.losers = _conflict_losers(db) if plan.stale or plan.deleted else set()
    files.update(store_files(walked, {path.rpartition("/")[0] for path in plan.losers}))  # to read them again
    plan.digests = known_digests(db, [f.path for f in plan.stale])
    plan.files = files
    return plan


def plan_paths(db: sqlite3.Connection, root: Path, paths: Iterable[str | Path], repo: git.Repo | None = None) -> Plan:
    """Ask git where the store sits (unless the caller knows: `repo`), read the settings and compare the files at
    `paths` (and the index's rows at and under them) with the index; walk nothing else."""
    repo = repo or git.repo(root)
    settings, settings_problems, changed_settings, read_as = read_settings(db, root)
    dismissals_read = dismissals.load(root, unless_seen=meta_value(db, dismissed.KEY))
    on_disk: dict[str, StoreFile] = {}
    indexed: set[str] = set()
    folders_seen: dict[str, bool] = {}
    for path in _store_relative(root, paths):
        on_disk.update(store_files(folders_at(root, path, folders_seen)))
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
        files.update(store_files(folders_at(root, loser, folders_seen)))
    return Plan(
        repo,
        settings,
        settings_problems,
        changed_settings,
        read_as,
        dismissals_read,
        mode="paths",
        stale=stale,
        deleted=deleted,
        losers=losers,
        digests=known_digests(db, [f.path for f in stale]),
        files=files,
        seen=len(on_disk),
        touched_folders={f.folder for f in stale} | {path.rpartition("/")[0] for path in deleted},
    )


def store_files(folders: dict[str, Folder], which: Iterable[str] | None = None) -> dict[str, StoreFile]:
    """The StoreFile of each file in `folders` (or only in those named in `which`), keyed by path: made only for the
    folders a run looks into (a no-op at 100k compares fingerprints, and makes none)."""
    files: dict[str, StoreFile] = {}
    for name in folders if which is None else which:
        folder = folders.get(name)
        if folder is None:
            continue
        kind, stats, not_utf8 = folder.kind, folder.stats, folder.not_utf8
        for i, path in enumerate(folder.paths):
            j = 3 * i
            files[path] = StoreFile(path, kind, stats[j], stats[j + 1], stats[j + 2], path in not_utf8, name)
    return files


def fingerprints(walked: dict[str, Folder]) -> dict[str, str]:
    """Each folder's fingerprint: a hash of its files' paths, sizes, mtimes and ctimes, in the order the walk found them.

    ctime too: a chmod, or two files swapped by renames (same sizes and mtimes), changes only that.

    A folder that lists the same files in another order only gets looked into again.
    """
    found = {}
    for name, folder in walked.items():
        digest = blake2b(digest_size=16)
        digest.update("\n".join(folder.paths).encode())  # paths are text: the walk shows names that are not UTF-8
        digest.update(array("q", folder.stats).tobytes())
        digest.update(folder.error.encode())  # a folder that becomes listable again, or stops being, has changed
        found[name] = digest.hexdigest()
    return found


def changed_folders(conn: sqlite3.Connection, current: dict[str, str]) -> set[str]:
    """Folders whose fingerprint differs from the stored one (new, gone, edited or untrusted)."""
    stored = dict(conn.execute("select folder, walk from index_folders"))
    return {f for f in current.keys() | stored.keys() if current.get(f) is None or current.get(f) != stored.get(f)}


def known_files(conn: sqlite3.Connection, folders: set[str]) -> set[tuple]:
    """The (path, type, size, mtime_ns, ctime_ns) rows of `index_files` in `folders` (subfolders' rows may come
    too: compare them with the files of `covered(folders, ...)`)."""
    query = "select path, type, size, mtime_ns, ctime_ns from index_files"
    if len(folders) > LOAD_ALL_OVER:
        return set(conn.execute(query))
    # 'folder/' <= path < 'folder0' ('0' follows '/'): the folder and its subfolders, by the primary key
    return {
        row
        for folder in folders
        for row in conn.execute(f"{query} where path >= ? and path < ?", (f"{folder}/", f"{folder}0"))
    }


def known_digests(conn: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """The content hashes the index holds for `paths` (all of them at once when there are many)."""
    if len(paths) > 1000:
        return dict(conn.execute("select path, digest from index_files"))
    return dict(row for p in paths for row in conn.execute("select path, digest from index_files where path = ?", (p,)))


def covered(folders: set[str], walked) -> set[str]:
    """The walked folders whose rows `known_files(conn, folders)` returns: `folders` and their subfolders."""
    if len(folders) > LOAD_ALL_OVER:
        return set(walked)
    return {name for name in walked if name in folders or any(name.startswith(f"{f}/") for f in folders)}


def remember(conn: sqlite3.Connection, plan: Plan, untrusted: set[str]) -> None:
    """Store a walk's fingerprints, none for the folders in `untrusted`; after a paths run, forget the fingerprints
    of the folders it touched (and of `untrusted`), so the next walk looks into them."""
    if plan.fingerprints is None:
        conn.executemany(
            "insert or replace into index_folders (folder, walk) values (?, null)",
            ((f,) for f in plan.touched_folders | untrusted),
        )
        return
    conn.execute("delete from index_folders")
    conn.executemany(
        "insert into index_folders (folder, walk) values (?, ?)",
        ((folder, None if folder in untrusted else walk) for folder, walk in plan.fingerprints.items()),
    )


SETTINGS_KEY = "settings_read_as"  # index_meta: what the settings the index holds were made from (settings.read_as)


def read_settings(
    db: sqlite3.Connection, root: Path, full: bool = False
) -> tuple[dict, list[Problem], bool, str | None]:
    """The store's settings and their problems, whether they differ from what the index holds, and what they were
    made from. seamless.toml is parsed only when that differs from the index's own (or in a full run)."""
    made_from = read_as(root)
    stored = dict(db.execute("select key, value from settings").fetchall())
    if not full and made_from is not None and made_from == meta_value(db, SETTINGS_KEY):
        return stored, problems_of(db, SETTINGS_FILE), False, made_from
    settings, problems = load_settings(root)
    return settings, problems, stored != settings or problems_of(db, SETTINGS_FILE) != problems, made_from


def problems_of(db: sqlite3.Connection, path: str | None = None, code: str | None = None) -> list[Problem]:
    """The problems the index holds for `path`, or of `code`, in order."""
    column, value = ("path", path) if code is None else ("code", code)
    return [
        Problem(*row)
        for row in db.execute(
            f"select path, line, severity, code, message from problems where {column} = ? order by path, line", (value,)
        )
    ]


def folders_changed(db: sqlite3.Connection, plan: Plan) -> bool:
    """Whether the walk found other folders it could not list than the index holds."""
    return plan.folder_problems is not None and plan.folder_problems != problems_of(db, code="unreadable-folder")


def folders_as_before(db: sqlite3.Connection, plan: Plan) -> set[str]:
    """The folders the walk could not list, if the index holds the same ones (their problems stay as they are)."""
    return set() if folders_changed(db, plan) else {p.path for p in plan.folder_problems or ()}


def _conflict_losers(db: sqlite3.Connection) -> set[str]:
    """The files that lost a duplicate id or name contest, as the index holds them."""
    placeholders = ",".join("?" * len(CONFLICT_CODES))
    return {
        r[0] for r in db.execute(f"select distinct path from problems where code in ({placeholders})", CONFLICT_CODES)
    }


def _folder_problems(walked: dict[str, Folder]) -> list[Problem]:
    """An `unreadable-folder` error for each folder the walk could not list (its files are not indexed)."""
    return sorted(
        error(name, 1, "unreadable-folder", f"{folder.error}: the files in it are not indexed")
        for name, folder in walked.items()
        if folder.error
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
