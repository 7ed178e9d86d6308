"""A write's session on a store: under the store's write lock (docs/writing.md, "Atomic and serialised"), the index
brought in step, and the files read, checked (`Session.check`: as an index run would, any problem it would report
refuses the write with that code), written and committed (`Session.commit`).
"""

import contextlib
import errno
import fcntl
import itertools
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer.edit import atomic
from indexer.edit.write_input import WriteRefused, refusal
from indexer.git.commit import Change, Committed, commit_leftover, commit_write
from indexer.index import build, database
from indexer.query import queries
from indexer.sqlite import sqlite3
from indexer.store.parse import parse_bytes
from indexer.store.problems import Problem
from indexer.store.settings import load_settings
from indexer.store.validate import memory_record, note_record
from indexer.store.walk import FolderFds


@dataclass
class OnDisk:
    """A store file as it is now: its bytes, its record as the indexer reads it (None on error), its problems."""

    path: str
    data: bytes
    record: dict | None
    problems: list[Problem]


class Session:
    """One write's view of the store, under its lock: settings, the index connection, files read and checked."""

    def __init__(self, root: Path, db_path: str | Path):
        self.root = Path(root)
        self.db_path = str(db_path)
        self.settings = load_settings(self.root)[0]
        self.max_bytes = self.settings["index.max_file_bytes"]
        self.conn: sqlite3.Connection | None = None

    def open_index(self, paths: list[str]) -> None:
        """Bring the index in step for `paths` (creating it when missing) and open it for reading;
        refuse an index built from another store."""
        try:
            if paths or not os.path.exists(self.db_path):
                build.index_paths(self.root, self.db_path, paths)
            self.conn = sqlite3.connect(self.db_path)
            database.check_store(self.conn, self.root, self.db_path)
        except database.OtherStoreError as e:
            raise WriteRefused("other-store", str(e)) from None
        except (sqlite3.DatabaseError, OSError) as e:
            raise WriteRefused("index-error", f"cannot update the index at {self.db_path}: {e}") from None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def rows(self, sql: str, params=()) -> list[dict]:
        assert self.conn is not None  # every write calls open_index(), which opens it, before reading rows
        return queries.rows(self.conn, sql, params)

    def read(self, path: str, note: bool = False) -> OnDisk:
        """The memory (or note) file at `path` as it is now, read without following a symlink."""
        try:
            with FolderFds(str(self.root)) as folders:  # no symlink followed, in any part of the path
                data = folders.read(path, self.max_bytes + 1)
        except OSError as e:
            raise WriteRefused("unreadable", f"cannot read {path}: {e.strerror or e}") from None
        record, problems = (note_record if note else memory_record)(parse_bytes(path, data, self.max_bytes))
        return OnDisk(path, data, record, problems)

    def check(self, path: str, data: bytes, expected: dict, before: Sequence[Problem] = (), note: bool = False) -> None:
        """Refuse `data` for `path` if the indexer would report a problem `before` did not have, or would read
        a field other than `expected`."""
        record, problems = (note_record if note else memory_record)(parse_bytes(path, data, self.max_bytes))
        had = {(p.severity, p.code) for p in before}
        new = [p for p in problems if (p.severity, p.code) not in had]
        if new:
            raise refusal(new[0], record)
        if record is None:
            raise WriteRefused("not-read-back", f"{path} would not be indexed")
        for key, value in expected.items():
            if record[key] != value:
                raise WriteRefused(
                    "not-read-back", f"{key} would be read back as {record[key]!r}, not {value!r}; nothing was written"
                )

    def _variants(self, folder: str, stem: str):
        """`folder/stem.md`, then `folder/stem-2.md`, `-3` ..., each with whether it exists."""
        n = 1
        while True:
            path = f"{folder}/{stem}.md" if n == 1 else f"{folder}/{stem}-{n}.md"
            yield path, os.path.lexists(self.root / path)
            n += 1

    def free_path(self, folder: str, stem: str) -> str:
        """`folder/stem.md`, or the first `folder/stem-N.md` that is free."""
        return next(path for path, taken in self._variants(folder, stem) if not taken)

    def candidates(self, folder: str, stem: str) -> list[str]:
        """The files a write of `stem` may have made in `folder` before (the paths `free_path` hands out)."""
        return [path for path, _ in itertools.takewhile(lambda v: v[1], self._variants(folder, stem))]

    def write(self, path: str, data: bytes, create: bool) -> None:
        """Write one store file atomically; a failure (a full disk) leaves the file as it was."""
        _no_symlink(self.root, path)
        target = self.root / path
        try:
            (atomic.create if create else atomic.replace)(target, data)
        except OSError as e:
            raise WriteRefused(
                "write-failed", f"cannot write {target}: {e.strerror or e}; the file is unchanged"
            ) from None

    def remove(self, path: str) -> None:
        """Remove one store file (never through a symlink)."""
        _no_symlink(self.root, path)
        try:
            atomic.remove(self.root / path)
        except OSError as e:
            raise WriteRefused("write-failed", f"cannot delete {path}: {e.strerror or e}") from None

    def commit(self, paths: list[str], change: Change) -> Committed:
        """Commit the files just written (in a git work tree), then bring the index in step with them."""
        committed = commit_write(self.root, paths, change, bool(self.settings["git.commit"]), self.db_path)
        try:
            build.index_paths(self.root, self.db_path, paths, repo=committed.repo)
        except (sqlite3.DatabaseError, OSError, database.OtherStoreError) as e:
            raise WriteRefused(
                "index-error",
                f"the files were written, but the index at {self.db_path} could not be updated ({e}): "
                f"run `seamless index {self.root} --db {self.db_path}`",
            ) from None
        return committed

    def commit_leftover(self, paths: list[str], change: Change, known: str = "update") -> Committed:
        """A retried write answers `unchanged` and writes nothing; but an earlier run of it that wrote these files
        and was killed before its commit left them uncommitted: that commit is made now (`commit_leftover`)."""
        return commit_leftover(self.root, paths, change, bool(self.settings["git.commit"]), known, self.db_path)


@contextlib.contextmanager
def session(root: Path | str, db_path: str | Path):
    """Hold the store's write lock (a flock on its folder: no lock file in the store) and yield a Session; refuse a
    missing or read-only store."""
    root = Path(root)
    if not root.is_dir():
        raise WriteRefused("no-store", f"no store at {root}: give the folder that holds memories/ and notes/")
    if not os.access(root, os.W_OK):
        raise WriteRefused("store-read-only", f"cannot write to the store at {root}: it is read-only")
    with store_lock(root):
        s = Session(root, db_path)
        try:
            yield s
        finally:
            s.close()


@contextlib.contextmanager
def store_lock(root: Path):
    """Hold the store's write lock (every writer of its files takes it: the write path, `seamless sync`)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _no_symlink(root: Path, path: str) -> None:
    """Refuse to write or delete the store file `path` when it, or a folder on its way, is a symlink
    (the store's root itself may be one: the user named it). Missing folders are made by the write."""
    folder, _, name = path.rpartition("/")
    try:
        with FolderFds(str(root)) as folders:
            if stat.S_ISLNK(os.lstat(name, dir_fd=folders.open(folder)).st_mode):
                raise OSError(errno.ELOOP, "a symlink")
    except FileNotFoundError:
        return
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise WriteRefused(
                "symlink-in-store",
                f"{path} or a folder on its way is a symlink (or not a folder): writes never go through one; "
                "replace it with a real folder",
            ) from None
        raise WriteRefused("unreadable", f"cannot open the folder of {path}: {e.strerror or e}") from None
