"""Git: the one place that runs the `git` command on a store (SPEC section 10; its modules: docs/development.md).
This module runs it in a known environment, turns a failure into one line, and says where a store sits in its work
tree (`repo`) and which store files differ from the last commit (`uncommitted`).
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.store.dismissals import FILE as DISMISSALS

if TYPE_CHECKING:  # imported where git is run: `seamless check` imports this module and runs no git
    import subprocess

# no terminal prompts (a host must never hang on a password), no pager, messages in English for parsing
ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
NOT_INSTALLED = "git is not installed: install it (Debian: apt-get install git)"


class GitError(Exception):
    """A git command failed; the message is one line saying which command and why."""


def available() -> bool:
    """True when the `git` command is on PATH."""
    import shutil  # here: the commands that read the store run git, and only sync asks first (start-up)

    return shutil.which("git") is not None


def run(
    cwd: str | Path,
    *args: str,
    input: str | bytes | None = None,
    check: bool = True,
    text: bool = True,
    env: dict[str, str] | None = None,
) -> "subprocess.CompletedProcess":
    """`git -C cwd ARGS...`, its output captured; GitError on a non-zero exit when `check`.
    `env` adds to the environment (an author's name, a temporary index)."""
    import subprocess

    env = {**os.environ, **ENVIRONMENT, **(env or {})}
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args], input=input, capture_output=True, text=text, env=env, check=False
        )
    except FileNotFoundError:
        raise GitError(NOT_INSTALLED) from None
    if check and done.returncode != 0:
        stderr = done.stderr if text else done.stderr.decode("utf-8", "replace")
        reason = next((line.strip() for line in stderr.splitlines() if line.strip()), f"exit {done.returncode}")
        raise GitError(f"git {args[0] if args else ''} failed: {reason}")
    return done


def popen(cwd: str | Path, *args: str, **pipes) -> "subprocess.Popen":
    """`git -C cwd ARGS...` started in run's environment, talked to through `pipes` (Popen's stdin, stdout...)."""
    import subprocess

    try:
        return subprocess.Popen(["git", "-C", str(cwd), *args], env={**os.environ, **ENVIRONMENT}, **pipes)
    except FileNotFoundError:
        raise GitError(NOT_INSTALLED) from None


def work_tree(root: str | Path) -> Path | None:
    """The top folder of the git work tree that holds `root`, or None (not in one, or no git)."""
    found = repo(root)
    return found.top if found else None


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


def config_values(cwd: str | Path) -> dict[str, str]:
    """Every configuration value git reads in `cwd`, all levels (where a key is set twice, the last one, as git
    reads it); section and key names in lower case, as git lists them."""
    values = {}
    for entry in run(cwd, "config", "--list", "-z", check=False).stdout.split("\0"):
        key, _, value = entry.partition("\n")
        if key:
            values[key] = value
    return values


def fallback_identity(values: dict[str, str]) -> dict[str, str]:
    """Environment variables that give a commit an author and committer where git's configuration (`values`, keys
    in lower case) names none: `seamless <seamless@HOSTNAME>`. An identity set in the environment
    (GIT_AUTHOR_NAME and the like) still wins, as git lets it."""
    env = {}
    for part in ("name", "email"):
        if not values.get(f"user.{part}"):
            for who in ("AUTHOR", "COMMITTER"):
                variable = f"GIT_{who}_{part.upper()}"
                if not os.environ.get(variable):
                    env[variable] = _fallback(part)
    return env


def _fallback(part: str) -> str:
    """The fallback identity's name or email."""
    if part == "name":
        return "seamless"
    import socket  # here: only a commit with no identity configured asks (start-up, docs/performance.md)

    return f"seamless@{socket.gethostname() or 'localhost'}"


def merge_file(base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, bool]:
    """Git's own line-by-line three-way merge of three texts (`git merge-file`): the result, and whether it is
    clean (no conflict, so no conflict markers)."""
    import tempfile  # here: only a merge needs it, and every command that reads git would pay for its imports

    with tempfile.TemporaryDirectory(prefix="seamless-merge-") as folder:
        sides = {"ours": ours, "base": base, "theirs": theirs}
        for name, data in sides.items():
            (Path(folder) / name).write_bytes(data)
        labels = [arg for name in sides for arg in ("-L", name)]
        done = run(folder, "merge-file", "-p", *labels, *sides, check=False, text=False)
    if done.returncode < 0 or done.returncode > 127:
        raise GitError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip() or done.returncode}")
    return done.stdout, done.returncode == 0


# the hooks `git commit` runs: where one is installed, a commit of ours goes through `git commit` too
COMMIT_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")


@dataclass(slots=True)
class Repo:
    """Where a store sits in its git work tree, and the commit it is at."""

    root: Path  # the store's folder, as given
    top: Path  # the work tree's top folder
    prefix: str  # the store's folder relative to `top`: '' at the top, else 'a/b/' (git's --show-prefix)
    git_dir: Path
    head: str | None  # the commit HEAD names; None before the first commit
    hooks: tuple[Path, ...]  # where each of COMMIT_HOOKS would be (core.hooksPath honoured); most do not exist
    exclude: Path  # the repository's own ignore rules (info/exclude), which may not exist

    def top_path(self, store_path: str) -> str:
        """A store-relative path as git names it: relative to the top of the work tree."""
        return self.prefix + store_path

    def store_path(self, top_path: str) -> str | None:
        """A path relative to the top as the store names it, or None when it lies outside the store."""
        return top_path[len(self.prefix) :] if top_path.startswith(self.prefix) else None

    def pathspecs(self) -> list[str]:
        """The store's own files, memories/ and notes/ and the gardener's dismissals, as pathspecs from the top of the
        work tree."""
        return [f"{self.prefix}memories", f"{self.prefix}notes", f"{self.prefix}{DISMISSALS}"]

    def run(self, *args: str, **kwargs) -> "subprocess.CompletedProcess":
        """`run` at the top of the work tree (paths relative to the top)."""
        return run(self.top, *args, **kwargs)


def repo(root: str | Path) -> Repo | None:
    """The work tree holding the store at `root`, in one `git rev-parse`; None when it is in none (or no git)."""
    if not Path(root).is_dir():
        return None
    paths = [
        arg for name in (*(f"hooks/{hook}" for hook in COMMIT_HOOKS), "info/exclude") for arg in ("--git-path", name)
    ]
    try:
        done = run(
            root, "rev-parse", "--show-toplevel", "--show-prefix", "--absolute-git-dir", *paths, "--verify", "-q",
            "HEAD", check=False,
        )  # fmt: skip
    except GitError:  # git is not installed
        return None
    lines = done.stdout.split("\n")
    fixed = 4 + len(COMMIT_HOOKS)
    # exit 1 with no commit line: HEAD names no commit yet; 128: not in a work tree (or a bare repository)
    if done.returncode not in (0, 1) or len(lines) < fixed or not lines[0]:
        return None
    head = lines[fixed].strip() if done.returncode == 0 and len(lines) > fixed else ""
    hooks = tuple(Path(root, line) for line in lines[3 : fixed - 1])  # relative ones are relative to `root`
    return Repo(Path(root), Path(lines[0]), lines[1], Path(lines[2]), head or None, hooks, Path(root, lines[fixed - 1]))


# `*.md` under memories/ or notes/, no part of the path hidden or empty (what indexer/store/walk.py finds)
STORE_PATH = re.compile(r"(?:memories|notes)(?:/[^./][^/]*)+(?<=\.md)")


def is_store_path(path: str) -> bool:
    """Whether a store-relative path names a file the walk would index (a regex: the revisions ask it for every
    file of every commit)."""
    return STORE_PATH.fullmatch(path) is not None


def uncommitted(root: str | Path, paths: list[str] | None = None) -> dict[str, bool]:
    """The store files (store-relative) whose content differs from the last commit: changed, staged, new and
    untracked, deleted; each with whether git knew it before (False: new). Of `paths` (relative to `root`) when
    given, else of every store file. Empty when the store is in no work tree. One `git status`."""
    found = repo(root)
    if found is None or paths == []:
        return {}
    # the paths as given (no pattern), relative to `root` where git runs; the output names them from the top
    args = ["status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--"]
    args += paths if paths is not None else ["memories", "notes"]
    changed = {}
    for entry in run(root, *args, env={"GIT_LITERAL_PATHSPECS": "1"}).stdout.split("\0"):
        path = found.store_path(entry[3:]) if len(entry) > 3 else None
        if path is not None and (paths is not None or is_store_path(path)):
            changed[path] = entry[:2] not in ("??", "A ", "AM")
    return changed
