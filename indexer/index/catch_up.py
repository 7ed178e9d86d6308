"""Bringing an index in step quickly, for a reader that has little time: the session-start hook (SPEC 11).

A small store is compared whole, as `seamless status` does it; in a larger one, creating, deleting or renaming a
file changes its folder's ctime, so only the folders changed since the last walk (and since this module last looked)
are compared, and an edit in place is left to a watcher or the next index run. Nothing here waits for a lock.
"""

import contextlib
import datetime as dt
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from indexer.index import database, freshness
from indexer.index.plan import read_settings
from indexer.index.status import drift

SMALL_FILES = 5_000  # compared whole: a walk of this many files takes some 20-40 ms (docs/performance.md)
CATCH_UP_FILES = 10_000  # of a large store: the most files in changed folders that are compared
MAX_PATHS = 200  # the most files indexed here; more is an index run's work
WALK_MODES = ("full", "incremental", "no-op")  # runs that walked the whole store (`paths` runs did not)
CHECKS_KEY = "folder_checks"  # index_meta: {folder: its ctime when this module last found it in step}


@dataclass(slots=True)
class CatchUp:
    """How the index stands against its store, once this module has done what it could.

    `state`: `watched` (a live watcher follows the store), `in-step` (compared: nothing differs), `caught-up` (the
    files in `paths` were indexed), `behind` (`paths` or `why` differ and were not indexed, `why` says why) or
    `gone` (no store at `root`). `unchecked_since`: a large store without a watcher, whose edits in place since
    that walk (an ISO time) were not looked for."""

    state: str
    root: Path
    paths: list[str]
    why: str = ""
    unchecked_since: str | None = None


class _Busy(Exception):
    """Another writer holds the index: the hook does not wait for it."""


def _busy() -> None:
    raise _Busy


def catch_up(conn, root: Path, db_path: str | Path) -> CatchUp:
    """Bring the index at `db_path` (open read-only on `conn`) in step with the store at `root` if it can, quickly."""
    if freshness.read(conn)["watching"]:
        return CatchUp("watched", root, [])
    if not root.is_dir():
        return CatchUp("gone", root, [])
    if read_settings(conn, root)[2]:  # (a run would judge the whole store again)
        return CatchUp("behind", root, [], why="the store's settings (seamless.toml) changed since it was indexed")
    walked = conn.execute(
        f"select started, files_seen from index_runs where mode in {WALK_MODES} order by id desc limit 1"
    ).fetchone()
    if walked is None:
        return CatchUp("behind", root, [], why="the store was never indexed whole")
    if walked[1] <= SMALL_FILES:
        found = drift(root, conn)
        checked: dict[str, int] = {}
        paths, unchecked = found.new + found.changed + found.deleted, None
    else:
        paths, checked, too_many = _changed_folders(conn, root, _ns(walked[0]))
        unchecked = walked[0]
        if too_many:
            return CatchUp("behind", root, paths, f"{too_many} files in folders changed since {walked[0]}", unchecked)
    if _weight(conn, root, paths) > MAX_PATHS:
        return CatchUp("behind", root, paths, f"more than {MAX_PATHS} files changed", unchecked)
    if not paths and not checked:
        return CatchUp("in-step", root, [], unchecked_since=unchecked)
    try:
        _index(root, db_path, paths, checked)
    except _Busy:
        return CatchUp("behind", root, paths, "another index run holds the index", unchecked)
    except Exception as e:  # a reader must go on: it says the index is behind, and why
        return CatchUp("behind", root, paths, f"it could not be updated ({type(e).__name__}: {e})", unchecked)
    return CatchUp("caught-up" if paths else "in-step", root, paths, unchecked_since=unchecked)


def _ns(iso: str) -> int:
    """An index run's start (ISO 8601, UTC, whole seconds) in nanoseconds since the epoch."""
    return int(dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()) * 1_000_000_000


def _changed_folders(conn, root: Path, walked_ns: int) -> tuple[list[str], dict[str, int], int]:
    """The files of a large store that differ from the index in the folders changed since the last walk (and since
    this module last looked into them); the ctime of each folder looked into, taken before it was listed; and,
    when those folders hold more than CATCH_UP_FILES files, how many (then nothing was compared)."""
    known = {row[0] for row in conn.execute("select folder from index_folders")}
    folders = set(known) | {"memories", "notes"}
    for folder in known:  # the folders on the way, which hold no files of their own: a new project appears there
        parts = folder.split("/")
        folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
    checks = _checks(conn)
    changed: dict[str, int] = {}
    for folder in sorted(folders):
        try:
            ctime = os.lstat(root / folder).st_ctime_ns
        except OSError:  # gone: the rows under it go (a store with no notes/ has none)
            if folder in known or any(k.startswith(f"{folder}/") for k in known):
                changed[folder] = -1
            continue
        if ctime >= walked_ns and ctime != checks.get(folder):
            changed[folder] = ctime
    if not changed:
        return [], {}, 0
    files = sum(_indexed(conn, "count(*)", folder).fetchone()[0] for folder in changed)
    if files > CATCH_UP_FILES:
        return [], {}, files
    paths = [path for folder in list(changed) for path in _folder_drift(conn, root, folder, folders)]
    for path in paths:  # a new folder is indexed whole: looked into now, its ctime taken before
        if path not in folders and not path.endswith(".md"):
            with contextlib.suppress(OSError):
                changed[path] = os.lstat(root / path).st_ctime_ns
    return sorted(set(paths)), changed, 0


def _folder_drift(conn, root: Path, folder: str, folders: set[str]) -> list[str]:
    """The paths directly in `folder` that differ from the index: its markdown files new, changed or gone, and its
    folders that the index does not know (new) or that are gone (all their rows)."""
    indexed = {row[0]: row[1:] for row in _indexed(conn, "path, size, mtime_ns, ctime_ns", folder)}
    children = {f for f in folders if f.rpartition("/")[0] == folder}
    on_disk: dict[str, tuple[int, int, int]] = {}
    subfolders = set()
    with contextlib.suppress(OSError):  # gone, or no longer a folder: everything the index holds under it goes
        for entry in os.scandir(root / folder):
            if entry.name.startswith("."):
                continue
            with contextlib.suppress(OSError):  # vanished meanwhile
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    subfolders.add(f"{folder}/{entry.name}")
                elif entry.name.endswith(".md") and stat.S_ISREG(info.st_mode):
                    on_disk[f"{folder}/{entry.name}"] = (info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    differ = [path for path, stats in on_disk.items() if indexed.get(path) != stats]
    differ += [path for path in indexed if path not in on_disk]
    differ += sorted(subfolders - children) + sorted(children - subfolders)  # new folders, and those gone
    return differ


def _indexed(conn, columns: str, folder: str):
    """`columns` of the index_files rows of the files directly in `folder`."""
    where = "path >= ? and path < ? and instr(substr(path, ?), '/') = 0"
    return conn.execute(
        f"select {columns} from index_files where {where}", (f"{folder}/", f"{folder}0", len(folder) + 2)
    )


def _weight(conn, root: Path, paths: list[str]) -> int:
    """How many files indexing `paths` reads or forgets, counted up to MAX_PATHS + 1: one for a file; for a folder,
    the markdown files under it (on disk, or in the index when it is gone)."""
    total = 0
    for path in paths:
        if total > MAX_PATHS:
            break
        if (root / path).is_dir():
            total += _files_under(root / path, MAX_PATHS + 1 - total)
        elif not path.endswith(".md"):  # a folder that is gone
            query = "select count(*) from index_files where path >= ? and path < ?"
            total += conn.execute(query, (f"{path}/", f"{path}0")).fetchone()[0]
        else:
            total += 1
    return total


def _files_under(folder: Path, limit: int) -> int:
    """The markdown files under `folder`, counted up to `limit`."""
    count = 0
    for _, folders, files in os.walk(folder):  # symlinked folders are listed, not followed
        folders[:] = [name for name in folders if not name.startswith(".")]
        count += sum(name.endswith(".md") and not name.startswith(".") for name in files)
        if count >= limit:
            break
    return count


def _checks(conn) -> dict[str, int]:
    """Each folder's ctime when this module last found it in step."""
    return json.loads(database.meta_value(conn, CHECKS_KEY) or "{}")


def _index(root: Path, db_path: str | Path, paths: list[str], checked: dict[str, int]) -> None:
    """Index `paths` and record the folders looked into, without waiting for another writer (_Busy)."""
    from indexer.index import build  # here: an index run reads the store's git history

    with database.writer_lock(db_path, _busy):
        if paths:
            build.index_paths(root, db_path, paths)
        if checked:
            with contextlib.closing(database.open_db(db_path)) as db, db.atomic():
                checks = _checks(db) | checked
                value = json.dumps({folder: ctime for folder, ctime in sorted(checks.items()) if ctime >= 0})
                database.set_meta(db, CHECKS_KEY, value)
