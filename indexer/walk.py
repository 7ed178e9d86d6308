"""Finding and opening the store's files: `*.md` under memories/ and notes/, no hidden files, no symlinks."""

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

FOLDERS = {"memories": "memory", "notes": "note"}


class StoreFile(NamedTuple):
    """A markdown file of the store as `stat` saw it (a tuple: 100,000 of them are made every run)."""

    path: str  # relative to the store, forward slashes
    type: str  # memory or note
    size: int
    mtime_ns: int
    name_not_utf8: bool = False  # then `path` shows the name's bytes as \xNN and cannot open the file
    folder: str = ""  # the folder holding it, relative to the store (one string shared by its files)


def walk_store(root: Path) -> dict[str, StoreFile]:
    """Every memory and note file under `root`, keyed by relative path, in the order found (not sorted)."""
    found: dict[str, StoreFile] = {}
    for folder, kind in FOLDERS.items():
        top = root / folder
        if top.is_dir() and not top.is_symlink():
            _scan(str(top), folder, kind, found)
    return found


def _scan(top: str, top_prefix: str, kind: str, found: dict[str, StoreFile]) -> None:
    # a stack, not recursion: folders nested a thousand deep must not stop the run
    stack = [(top, f"{top_prefix}/")]
    new = tuple.__new__  # StoreFile's own __new__ is a Python function: a call each for 100,000 files
    while stack:
        directory, prefix = stack.pop()
        folder = prefix[:-1]
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # vanished or unreadable folder: its files are simply not there
        for entry in entries:
            name = entry.name
            if name[0] == ".":
                continue
            try:
                # with follow_symlinks=False a symlink is neither a folder nor a file: never followed
                if name.endswith(".md") and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    rel = prefix + name
                    if rel.isascii() or _is_utf8(rel):
                        found[rel] = new(StoreFile, (rel, kind, st.st_size, st.st_mtime_ns, False, folder))
                    else:  # the index holds text: show the name's bytes, and say it cannot be read
                        shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
                        found[shown] = StoreFile(shown, kind, st.st_size, st.st_mtime_ns, True, folder)
                elif entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{prefix}{name}/"))
            except OSError:
                continue  # a file that vanished during the walk is not part of this run


def _is_utf8(name: str) -> bool:
    """False for a name whose bytes are not UTF-8 (Python keeps them as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_regular_file(name: str, limit: int) -> bytes:
    """At most `limit` bytes of the regular file `name`, refusing symlinks and special files."""
    # the walk skipped those, but the path may have been replaced since: a symlink must not
    # be followed out of the store, and opening a FIFO must not hang the run
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        # ask for the size we know, plus one to see growth: a read sized by the limit alone
        # would allocate megabytes for every small file
        want, got, chunks = min(info.st_size + 1, limit), 0, []
        while True:
            chunk = os.read(fd, want - got)
            chunks.append(chunk)
            got += len(chunk)
            if got < want:  # a short read of a regular file is its end: no second read to see it
                break
            if got > info.st_size and want < limit:  # it grew since fstat: read on, up to the limit
                want = limit
            else:
                break
        return b"".join(chunks)
    finally:
        os.close(fd)
