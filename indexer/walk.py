"""Finding the store's files: `*.md` under memories/ and notes/, no hidden files, no symlinks."""

import os
from dataclasses import dataclass
from pathlib import Path

FOLDERS = {"memories": "memory", "notes": "note"}


@dataclass(frozen=True)
class StoreFile:
    """A markdown file of the store as `stat` saw it."""

    path: str  # relative to the store, forward slashes
    type: str  # memory or note
    size: int
    mtime_ns: int


def walk_store(root: Path) -> dict[str, StoreFile]:
    """Every memory and note file under `root`, keyed by relative path, in sorted order."""
    found: dict[str, StoreFile] = {}
    for folder, kind in FOLDERS.items():
        top = root / folder
        if top.is_dir() and not top.is_symlink():
            _scan(str(top), folder, kind, found)
    return dict(sorted(found.items()))


def _scan(directory: str, prefix: str, kind: str, found: dict[str, StoreFile]) -> None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return  # vanished or unreadable folder: its files are simply not there
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_symlink():
                continue
            rel = f"{prefix}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                _scan(entry.path, rel, kind, found)
            elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found[rel] = StoreFile(rel, kind, st.st_size, st.st_mtime_ns)
        except OSError:
            continue  # a file that vanished during the walk is not part of this run
