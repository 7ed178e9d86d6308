"""Running the `git` command on a store: the one place that starts git (SPEC section 10).

The store's history and the fleet's sync are git's work; this module only runs it in a known
environment (no prompt, no pager, C locale for messages we parse) and turns a failure into one line.
"""

import datetime
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

# no terminal prompts (a host must never hang on a password), no pager, messages in English for parsing
ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


class GitError(Exception):
    """A git command failed; the message is one line saying which command and why."""


def available() -> bool:
    """True when the `git` command is on PATH."""
    return shutil.which("git") is not None


def run(
    cwd: str | Path,
    *args: str,
    input: str | bytes | None = None,
    check: bool = True,
    text: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """`git -C cwd ARGS...`, its output captured; GitError on a non-zero exit when `check`.

    `env` adds variables to the environment git (and whatever it starts: a merge driver) runs in.
    """
    env = {**os.environ, **ENVIRONMENT, **(env or {})}
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args], input=input, capture_output=True, text=text, env=env, check=False
        )
    except FileNotFoundError:
        raise GitError("git is not installed: install it (Debian: apt-get install git)") from None
    if check and done.returncode != 0:
        stderr = done.stderr if text else done.stderr.decode("utf-8", "replace")
        reason = next((line.strip() for line in stderr.splitlines() if line.strip()), f"exit {done.returncode}")
        raise GitError(f"git {args[0] if args else ''} failed: {reason}")
    return done


def work_tree(root: str | Path) -> Path | None:
    """The top folder of the git work tree that holds `root`, or None (not in one, or no git)."""
    if not available() or not Path(root).is_dir():
        return None
    done = run(root, "rev-parse", "--show-toplevel", check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def git_path(cwd: str | Path, name: str) -> Path:
    """Where the repository of `cwd` keeps `name` (MERGE_HEAD, a file of our own), as an absolute path."""
    found = Path(run(cwd, "rev-parse", "--git-path", name).stdout.strip())
    return found if found.is_absolute() else Path(cwd) / found


def head(cwd: str | Path) -> str | None:
    """The commit HEAD points to, or None on a branch with no commit yet."""
    done = run(cwd, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
    return done.stdout.strip() or None


def branch(cwd: str | Path) -> str | None:
    """The branch checked out (its short name), or None when HEAD is detached."""
    done = run(cwd, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return done.stdout.strip() or None


def config(cwd: str | Path, key: str) -> str | None:
    """One configuration value as git reads it (any level), or None when unset."""
    done = run(cwd, "config", "--get", key, check=False)
    return done.stdout.rstrip("\n") if done.returncode == 0 else None


def config_values(cwd: str | Path) -> dict[str, str]:
    """Every configuration value git reads in `cwd`, all levels (where a key is set twice, the last one, as git
    reads it); section and key names in lower case, as git lists them."""
    values = {}
    for entry in run(cwd, "config", "--list", "-z", check=False).stdout.split("\0"):
        key, _, value = entry.partition("\n")
        if key:
            values[key] = value
    return values


def identity(cwd: str | Path, values: dict[str, str] | None = None) -> list[str]:
    """Arguments that give a commit an author: none when git's configuration (`values`, read when not given)
    names one (user.name and user.email, at any level), else `seamless <seamless@HOSTNAME>`."""
    values = config_values(cwd) if values is None else values
    if values.get("user.name") and values.get("user.email"):
        return []
    return ["-c", "user.name=seamless", "-c", f"user.email=seamless@{socket.gethostname() or 'localhost'}"]


def merge_file(base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, bool]:
    """Git's own line-by-line three-way merge of three texts (`git merge-file`): the result, and whether it is
    clean (no conflict, so no conflict markers)."""
    with tempfile.TemporaryDirectory(prefix="seamless-merge-") as folder:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (Path(folder) / name).write_bytes(data)
            names.append(name)
        done = run(
            folder, "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *names, check=False, text=False
        )
    if done.returncode < 0 or done.returncode > 127:
        raise GitError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip() or done.returncode}")
    return done.stdout, done.returncode == 0


def merge_trailers(cwd: str | Path, key: str, *revisions: str) -> list[tuple[str, str, str]]:
    """(commit, committed_at as UTC text, value) for each `key:` trailer of the merge commits in `revisions`
    (git log's arguments: `A..B`, or a commit for its whole history), newest first."""
    out = run(
        cwd, "log", "--merges", f"--format=%H%x1f%ct%x1f%(trailers:key={key},valueonly,separator=%x1e)%x1d",
        *revisions, "--",
    ).stdout  # fmt: skip
    found = []
    for entry in out.split("\x1d"):
        parts = entry.strip("\n").split("\x1f")
        if len(parts) != 3:
            continue
        commit, seconds, values = parts
        at = datetime.datetime.fromtimestamp(int(seconds), datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        found += [(commit, at, value.strip()) for value in values.split("\x1e") if value.strip()]
    return found
