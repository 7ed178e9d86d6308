"""Replacing a store file so that a reader, or a crash, sees the old bytes or the new ones, never a part."""

import glob
import os
import signal
from collections import Counter
from pathlib import Path

KILL_AFTER = "SEAMLESS_WRITE_KILL_AFTER"  # tests: `step` or `step#n` (its n-th time) after which to SIGKILL
_steps: Counter = Counter()


def crash_point(step: str) -> None:
    """Kill this process with SIGKILL (a real kill -9) here when the environment asks for `step`."""
    if wanted := os.environ.get(KILL_AFTER):
        _steps[step] += 1
        if wanted in (step, f"{step}#{_steps[step]}"):
            os.kill(os.getpid(), signal.SIGKILL)


def _temporary(target: Path, data: bytes, mode: int | None) -> Path:
    """Write `data` to a hidden file beside `target` (the walk skips hidden files) and sync it to disk; under the
    store's write lock, a temporary file of `target` left by another process was left by a killed one: removed."""
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        leftover.unlink(missing_ok=True)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)  # the umask applies
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        crash_point("temp-file")
    except BaseException:
        os.close(fd)
        temp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return temp


def sync_folder(folder: Path) -> None:
    """Make a rename or an unlink in `folder` durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace(target: Path, data: bytes) -> None:
    """Put `data` at `target` (an existing file), keeping its permission bits."""
    temp = _temporary(target, data, os.stat(target).st_mode & 0o7777)
    try:
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    sync_folder(target.parent)


def create(target: Path, data: bytes) -> None:
    """Put `data` at `target`, which must not exist yet (FileExistsError otherwise)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = _temporary(target, data, None)
    try:
        os.link(temp, target)  # unlike a rename, a link never replaces a file that appeared meanwhile
    finally:
        temp.unlink(missing_ok=True)
    sync_folder(target.parent)


def remove(target: Path) -> None:
    """Delete `target` durably."""
    target.unlink()
    sync_folder(target.parent)
