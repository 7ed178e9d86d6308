"""What a git command of ours leaves when it is killed (kill -9, a power cut), and clearing it, so that the next
write or sync finishes by itself (docs/sync.md, "When a sync is killed"): a record in the git folder names the
process while it runs git; once it is gone and no git runs there, the locks, `.merge_file_*` files and merge it left
are ours to clear. Processes are read through psutil, on Linux and macOS alike.
"""

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from indexer import git

RECORD = "seamless-git.json"
SLACK = 2.0  # seconds: a file's time and a clock read a moment apart, on a coarse file system
# the locks a write or a sync needs free (refs/heads/BRANCH.lock and the remote-tracking ref's are added)
LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "MERGE_HEAD.lock", "config.lock", "packed-refs.lock")
_held: dict[Path, int] = {}  # git folders this process has recorded itself in, with how deep


@dataclass
class Held:
    """A record of this process in a git folder; `kept`: left behind, as a killed process would leave it."""

    kept: bool = False


@contextlib.contextmanager
def running(git_dir: Path, merging: str | None = None):
    """Record this process in `git_dir` while the block runs git commands that change the repository; `merging`,
    the commit a merge brings in. Nested blocks keep the outer record (a sync's commits are writes)."""
    record = git_dir / RECORD
    depth = _held.get(git_dir, 0)
    # a killed process's record that `recover` kept (its merge not yet undone): put back once this block is done
    kept = record.read_bytes() if depth == 0 and record.exists() else None
    if depth == 0 or merging is not None:
        data: dict[str, object] = {"pid": os.getpid(), "started": time.time()}
        if merging is not None:
            data["merging"] = merging
        record.write_text(json.dumps(data))  # killed while writing it, it is unreadable: before any git ran
    _held[git_dir] = depth + 1
    held = Held()
    try:
        yield held
    finally:
        _held[git_dir] = depth
        if depth == 0:
            del _held[git_dir]
            if kept is not None and not held.kept:
                record.write_bytes(kept)
            elif not held.kept:
                record.unlink(missing_ok=True)


def _read(record: Path) -> dict | None:
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        return None if not record.exists() else {}  # unreadable: left by a process killed while writing it
    return data if isinstance(data, dict) else {}


def _alive(data: dict, git_dir: Path) -> bool:
    """Whether the process a record names still runs: a process of that pid that started before the record was
    made. A pid given to another process since, or a machine started again since, names one that started later."""
    pid = data.get("pid")
    if not isinstance(pid, int):
        return False
    if pid == os.getpid():
        return git_dir in _held
    import psutil  # here: only a record left behind asks

    try:
        started = psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:  # another user's process: never ours to declare gone
        return True
    recorded = data.get("started")
    return not isinstance(recorded, int | float) or started <= recorded + SLACK


def git_processes(top: Path, git_dir: Path) -> list[str]:
    """The git processes working in this repository (`PID git ...`), by their folder; a git process whose folder
    cannot be read (another user's) counts too."""
    import psutil  # here: only a record left behind, or a lock in the way, asks

    found = []
    for process in psutil.process_iter(["name"]):
        if process.pid == os.getpid() or not (process.info["name"] or "").startswith("git"):
            continue
        try:
            folder: str | None = process.cwd()
        except psutil.NoSuchProcess:
            continue  # it ended meanwhile
        except psutil.AccessDenied:
            folder = None
        if folder is None or Path(folder).is_relative_to(top) or Path(folder).is_relative_to(git_dir):
            try:
                command = " ".join(process.cmdline())
            except psutil.Error:
                command = "git"
            found.append(f"{process.pid} {command.strip() or 'git'}")
    return found


def _ours(path: Path, since: float) -> bool:
    try:
        return path.lstat().st_mtime >= since - SLACK
    except OSError:
        return False


def recover(repo: git.Repo) -> list[str]:
    """Clear what a process of ours left when it was killed running git, when that is safe (see the module's
    docstring): its locks, `.merge_file_*` files and merge. Returns what was cleared, as paths from the top."""
    record = repo.git_dir / RECORD
    data = _read(record)
    if data is None or _alive(data, repo.git_dir) or git_processes(repo.top, repo.git_dir):
        return []
    started = data.get("started")
    since = float(started) if isinstance(started, int | float) else time.time()
    cleared = []
    # below objects/ only the lock of git's auto maintenance, which a fetch or a merge starts: left, it keeps every
    # later maintenance away
    locks = [repo.git_dir / "objects" / "maintenance.lock"]
    for folder, names, files in os.walk(repo.git_dir):
        if Path(folder) == repo.git_dir:
            names[:] = [n for n in names if n not in ("objects", "worktrees", "modules")]
        locks += [Path(folder, name) for name in files if name.endswith(".lock")]
    for path in locks:
        if path.is_file() and _ours(path, since):
            path.unlink(missing_ok=True)
            cleared.append(str(path.relative_to(repo.top)) if path.is_relative_to(repo.top) else str(path))
    for path in repo.top.glob(".merge_file_*"):  # git makes a merge driver's files where it runs
        if path.is_file() and _ours(path, since):
            path.unlink(missing_ok=True)
            cleared.append(path.name)
    merge_head = repo.git_dir / "MERGE_HEAD"
    if data.get("merging") and merge_head.exists() and merge_head.read_text().split()[:1] == [data["merging"]]:
        try:
            abort_merge(repo.top, repo.git_dir)
        except git.GitError:
            return cleared  # a file of the merge was changed since (a write): tried again once it is committed
        cleared.append("the merge under way")
    record.unlink(missing_ok=True)
    return cleared


def abort_merge(top: Path, git_dir: Path) -> None:
    """Leave a merge under way: the branch, index and work tree as before it (local changes kept)."""
    if (git_dir / "MERGE_HEAD").exists() and git.run(top, "merge", "--abort", check=False).returncode != 0:
        git.run(top, "reset", "-q", "--merge")


def blocking(repo: git.Repo, refs: tuple[str, ...] = ()) -> str | None:
    """One line for a lock that stops git and is not ours to clear (`refs`: the refs about to change, as
    `refs/heads/main`), saying what to run; None when there is none."""
    for name in (*LOCKS, *(f"{ref}.lock" for ref in refs)):
        lock = repo.git_dir / name
        if lock.exists():
            return lock_line(repo, lock)
    return None


def lock_line(repo: git.Repo, lock: Path) -> str:
    """What to do about `lock`, a lock of git's in this repository that is not ours to remove."""
    if running := git_processes(repo.top, repo.git_dir):
        return f"{lock} is held by a git command still running in {repo.top} ({running[0][:120]}): let it finish"
    return (
        f"{lock} is left by a git command that did not finish (none of seamless's): if no git command is "
        f"running in {repo.top}, remove it (rm {lock})"
    )
