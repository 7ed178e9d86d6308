"""Finding and opening the store's files: `*.md` under memories/ and notes/, no hidden files, and no symlink followed
in any part of a path, even one swapped in during a run (each folder opened with O_NOFOLLOW and checked to be the
one its parent listed, files read relative to folders opened one component at a time: FolderFds).
"""

import errno
import os
import stat
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

FOLDERS = {"memories": "memory", "notes": "note"}


@dataclass(slots=True)
class StoreFile:
    """A markdown file of the store as `stat` saw it."""

    path: str  # relative to the store, forward slashes
    type: str  # memory or note
    size: int
    mtime_ns: int
    ctime_ns: int  # changes with the content too, and also on chmod and rename, which leave mtime alone
    name_not_utf8: bool = False  # then `path` shows the name's bytes as \xNN and cannot open the file
    folder: str = ""  # the folder holding it, relative to the store (one string shared by its files)

    @property
    def row(self) -> tuple[str, str, int, int, int]:
        """What `index_files` holds of it: (path, type, size, mtime_ns, ctime_ns)."""
        return (self.path, self.type, self.size, self.mtime_ns, self.ctime_ns)


@dataclass(slots=True)
class Folder:
    """One folder's markdown files as the walk listed them: flat lists, not a record per file (a run that finds
    nothing changed compares folder fingerprints and never builds the 100,000 StoreFile records of a large store)."""

    kind: str  # memory or note
    paths: list[str]  # relative to the store, in the order the folder lists them
    stats: list[int]  # each file's size, mtime_ns and ctime_ns, in turn
    not_utf8: list[str]  # the paths (as shown) whose names are not UTF-8
    error: str = ""  # why the folder could not be listed (its files are then unknown, and not indexed)


def walk_folders(root: Path) -> dict[str, Folder]:
    """Every folder under `root`/memories and `root`/notes holding markdown files, by relative path."""
    found: dict[str, Folder] = {}
    for folder, kind in FOLDERS.items():
        _scan(str(root / folder), folder, kind, found)
    return found


# a folder opened by name: never through a symlink in its last part, nor kept open across exec
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _scan(top: str, top_prefix: str, kind: str, found: dict[str, Folder]) -> None:
    # a stack, not recursion: folders nested a thousand deep must not stop the run. Each folder is opened
    # by its path once its parent is closed (one descriptor at a time, however deep or wide the tree), and
    # must be the folder the parent listed: a part of its path swapped for a symlink since then leads elsewhere.
    stack: list[tuple[str, str, tuple[int, int] | None]] = [(top, f"{top_prefix}/", None)]
    while stack:
        directory, prefix, identity = stack.pop()
        try:
            fd = os.open(directory, DIRECTORY_FLAGS)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):  # there, but its files cannot be listed
                found[_shown(prefix[:-1])] = Folder(kind, [], [], [], f"cannot list this folder ({e.strerror or e})")
            continue  # vanished, or now a symlink or a file: not followed, its files are not there
        try:
            if identity is not None:
                info = os.fstat(fd)
                if (info.st_dev, info.st_ino) != identity:
                    continue  # a folder above it was swapped for a symlink since it was listed: not in the store
            try:
                entries = list(os.scandir(fd))
            except OSError as e:  # there, but its files cannot be listed: a problem, not a silent loss
                found[_shown(prefix[:-1])] = Folder(kind, [], [], [], f"cannot list this folder ({e.strerror or e})")
                continue
            _list(entries, directory, prefix, kind, stack, found)
        finally:
            os.close(fd)


def _list(entries: list, directory: str, prefix: str, kind: str, stack: list, found: dict[str, Folder]) -> None:
    """Record one folder's markdown files in `found` and push its folders on `stack` (entries of scandir(fd))."""
    paths: list[str] = []
    stats: list[int] = []
    not_utf8: list[str] = []
    for entry in entries:
        name = entry.name
        if name[0] == ".":
            continue
        try:
            # with follow_symlinks=False a symlink is neither a folder nor a file: never followed
            if name.endswith(".md") and entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                rel = prefix + name
                if not (rel.isascii() or _is_utf8(rel)):  # the index holds text: show the name's bytes
                    rel = _shown(rel)
                    not_utf8.append(rel)
                paths.append(rel)
                stats += (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            elif entry.is_dir(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                stack.append((f"{directory}/{name}", f"{prefix}{name}/", (st.st_dev, st.st_ino)))
        except OSError:
            continue  # a file that vanished during the walk is not part of this run
    if paths:
        found[_shown(prefix[:-1])] = Folder(kind, paths, stats, not_utf8)


def _shown(name: str) -> str:
    """`name` as the index holds it: the bytes of a part that is not UTF-8 shown as \\xNN."""
    if name.isascii() or _is_utf8(name):
        return name
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _is_utf8(name: str) -> bool:
    """False for a name whose bytes are not UTF-8 (Python keeps them as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


CHUNK_BYTES = 1 << 20  # what one read() may allocate: a file's stated size is not trusted with memory


def read_regular_file(name: str, limit: int, dir_fd: int | None = None) -> bytes:
    """At most `limit` bytes of the regular file `name` (in folder `dir_fd`), refusing symlinks and special files."""
    # the walk skipped those, but the path may have been replaced since: a symlink must not
    # be followed out of the store, and opening a FIFO must not hang the run
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        # ask for the size we know, plus one to see growth: a read sized by the limit alone
        # would allocate megabytes for every small file
        want, got, chunks = min(info.st_size + 1, limit), 0, []
        while got < want:
            ask = min(want - got, CHUNK_BYTES)
            chunk = os.read(fd, ask)
            chunks.append(chunk)
            got += len(chunk)
            if len(chunk) < ask:  # a short read of a regular file is its end: no second read to see it
                break
            if got == want and got > info.st_size:  # it grew since fstat: read on, up to the limit
                want = limit
        return b"".join(chunks)
    finally:
        os.close(fd)


class FolderFds:
    """The store's folders opened for reading, each part of the path with O_NOFOLLOW under the one before; the last
    KEEP stay open (a file costs one open). The store's root itself may be a symlink (the user named it)."""

    KEEP = 32

    def __init__(self, root: str):
        self.root = str(root)
        self.fds: OrderedDict[str, int] = OrderedDict()

    def __enter__(self) -> "FolderFds":
        return self

    def __exit__(self, *exc) -> None:
        while self.fds:
            os.close(self.fds.popitem()[1])

    def open(self, folder: str) -> int:
        """A descriptor of `folder` (relative to the root, `/`-separated); OSError ELOOP if a part is a symlink."""
        fd = self.fds.get(folder)
        if fd is not None:
            self.fds.move_to_end(folder)
            return fd
        parts = folder.split("/") if folder else []
        at = len(parts) - 1  # from the deepest folder on the way that is open already, else from the root
        while at > 0 and "/".join(parts[:at]) not in self.fds:
            at -= 1
        fd = self.fds["/".join(parts[:at])] if at > 0 else self._root()
        for i in range(max(at, 0), len(parts)):
            fd = os.open(parts[i], DIRECTORY_FLAGS, dir_fd=fd)
            self.fds["/".join(parts[: i + 1])] = fd
            if len(self.fds) > self.KEEP:  # the least recently used; never the one just opened
                os.close(self.fds.popitem(last=False)[1])
        return fd

    def _root(self) -> int:
        fd = self.fds.get("")
        if fd is None:
            fd = self.fds[""] = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        return fd

    def read(self, path: str, limit: int) -> bytes:
        """At most `limit` bytes of the store file `path`, as read_regular_file reads them."""
        folder, _, name = path.rpartition("/")
        return read_regular_file(name, limit, self.open(folder))


def folders_at(root: Path, path: str, folders_seen: dict[str, bool] | None = None) -> dict[str, Folder]:
    """The listings of the store files at `path` (relative to `root`) as the walk would list them: a file's of
    itself, a folder's of every folder under it, nothing for what the walk would not find. `folders_seen`
    remembers which folders are real ones across calls."""
    parts = path.split("/")
    if parts[0] not in FOLDERS or any(not part or part[0] == "." or part == ".." for part in parts):
        return {}
    seen = {} if folders_seen is None else folders_seen
    for depth in range(1, len(parts)):  # every folder on the way: a real one (not a symlink), that the walk can list
        folder = "/".join(parts[:depth])
        if folder not in seen:
            try:
                is_dir = stat.S_ISDIR(os.lstat(root / folder).st_mode)
            except OSError:
                is_dir = False
            seen[folder] = is_dir and os.access(root / folder, os.R_OK | os.X_OK)
        if not seen[folder]:
            return {}
    kind = FOLDERS[parts[0]]
    try:
        st = os.lstat(root / path)
    except OSError:
        return {}
    found: dict[str, Folder] = {}
    if stat.S_ISDIR(st.st_mode):
        _scan(str(root / path), path, kind, found)
    elif len(parts) >= 2 and path.endswith(".md") and stat.S_ISREG(st.st_mode):
        shown = _shown(path)
        stats = [st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        found[_shown(path.rpartition("/")[0])] = Folder(kind, [shown], stats, [shown] if shown != path else [])
    return found
