"""Git: the one place that runs the `git` command on a store (SPEC section 10).

This module runs git in a known environment (no prompt, no pager, C locale for messages we parse), turns a
failure into one line, and says where a store sits in its work tree (`repo`) and which store files differ from
the last commit (`uncommitted`). Its modules: `history` reads the commits and objects (for the revisions in the
index), `commit` makes a write a commit, `driver_setup` registers the store's merge driver in a clone, `recovery`
clears what a git command of ours left when it was killed.

A layer above the store and below the index (every index run reads HEAD and the history): it imports only
`indexer.store`. The write path's uses of git that need the index or the store's lock, the merge rules and
`seamless sync`, are in `indexer.edit`.
"""

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.store import lazy_re

if TYPE_CHECKING:  # imported where git is run: an index run that reads HEAD itself starts no process (`where`)
    import subprocess

# no terminal prompts (a host must never hang on a password), no pager, messages in English for parsing
ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


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
        raise GitError("git is not installed: install it (Debian: apt-get install git)") from None
    if check and done.returncode != 0:
        stderr = done.stderr if text else done.stderr.decode("utf-8", "replace")
        reason = next((line.strip() for line in stderr.splitlines() if line.strip()), f"exit {done.returncode}")
        raise GitError(f"git {args[0] if args else ''} failed: {reason}")
    return done


def work_tree(root: str | Path) -> Path | None:
    """The top folder of the git work tree that holds `root`, or None (not in one, or no git)."""
    if not Path(root).is_dir():
        return None
    try:
        done = run(root, "rev-parse", "--show-toplevel", check=False)
    except GitError:  # git is not installed
        return None
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
        """The store's own folders, memories/ and notes/, as pathspecs from the top of the work tree."""
        return [f"{self.prefix}memories", f"{self.prefix}notes"]

    def run(self, *args: str, **kwargs) -> "subprocess.CompletedProcess":
        """`run` at the top of the work tree (paths relative to the top)."""
        return run(self.top, *args, **kwargs)


def repo(root: str | Path) -> Repo | None:
    """The work tree holding the store at `root`, in one `git rev-parse`; None when it is in none (or no git)."""
    if not Path(root).is_dir() or _no_repository_above(root):
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
    return Repo(
        root=Path(root),
        top=Path(lines[0]),
        prefix=lines[1],
        git_dir=Path(lines[2]),
        head=head or None,
        hooks=tuple(Path(root, line) for line in lines[3 : fixed - 1]),  # relative ones are relative to `root`
        exclude=Path(root, lines[fixed - 1]),
    )


def _no_repository_above(root: str | Path) -> bool:
    """Whether git would find no repository for `root`: no `.git` (a folder: a clone; a file: a linked work tree) in
    any folder of its search (`searched_folders`), and no GIT_DIR. Spares every index run of a store outside git a
    `git rev-parse` process (3-5 ms of a small store's rebuild); where unsure, git is asked."""
    if "GIT_DIR" in os.environ:
        return False
    return not any(os.path.lexists(os.path.join(folder, ".git")) for folder in searched_folders(root))


# Environment variables that change where git finds a repository, its work tree or its refs (a repository or
# configuration named outright, a namespace, git's own test switches): with any of them set, `where` asks git.
# GIT_CEILING_DIRECTORIES is honoured; the others (GIT_SSL_CAINFO, GIT_AUTHOR_NAME...) have no say in these, nor
# the user's and the system's configuration files (their safe.directory only trusts more: ownership is checked here).
_WHERE_ASKS_GIT = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_NAMESPACE",
                   "GIT_CONFIG", "GIT_IMPLICIT_WORK_TREE", "GIT_INTERNAL_", "GIT_TEST_", "GIT_REF")  # fmt: skip
_CONFIG_FILES = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM")
_SHA = lazy_re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def where(root: str | Path) -> tuple[Path, str, str | None] | None:
    """What `repo` tells of the store at `root` (its work tree's top, its prefix, the commit HEAD names), read from
    the files of a plain repository without a git process; None when git must be asked: no `.git` folder found, or
    anything unusual (a `.git` file of a linked work tree or submodule, a search crossing a filesystem or a folder
    of another owner, a config naming a work tree, bareness or an extension such as reftable, a symbolic ref to a
    symbolic ref, a file that cannot be read, one of _WHERE_ASKS_GIT set). An index run with no new commit asks
    this instead of `repo` (a `git rev-parse` is 4-8 ms of a process that takes 50: docs/performance.md)."""
    if any(name.startswith(_WHERE_ASKS_GIT) and name not in _CONFIG_FILES for name in os.environ):
        return None
    if "SUDO_UID" in os.environ:  # git run as root by sudo trusts the sudoer's folders
        return None
    try:
        found = _dot_git_folder(root)
        if found is None:
            return None
        start, top = found
        dot_git = os.path.join(top, ".git")
        if not _owned_folder(top) or not _owned_folder(dot_git):  # a linked work tree's `.git` is a file
            return None
        if os.path.lexists(os.path.join(dot_git, "commondir")) or os.path.lexists(os.path.join(dot_git, "reftable")):
            return None
        with open(os.path.join(dot_git, "config"), encoding="utf-8") as f:
            config = f.read().lower()
        # read_repository_format reads only this file for these; a line naming any of them, however set, asks git
        if "worktree" in config or "extensions" in config or "bare" in config.replace("bare = false", ""):
            return None
        if not (os.path.isdir(os.path.join(dot_git, "objects")) and os.path.isdir(os.path.join(dot_git, "refs"))):
            return None  # not a repository to git: it would search on above
        head = _head(dot_git)
    except (OSError, UnicodeDecodeError, _Unsure):
        return None
    prefix = os.path.relpath(start, top)
    return Path(top), "" if prefix == "." else prefix + "/", head


class _Unsure(Exception):
    """Something `where` does not read for certain: git is asked."""


def searched_folders(root: str | Path) -> Iterator[str]:
    """The folders git's search for a repository looks into for `root`, in order: its physical folder, then each one
    above it, stopping below a folder of GIT_CEILING_DIRECTORIES (each entry's physical path)."""
    ceilings = {os.path.realpath(c) for c in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if c}
    folder = os.path.realpath(root)  # git searches from the physical folder
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder or parent in ceilings:
            return
        folder = parent


def _dot_git_folder(root: str | Path) -> tuple[str, str] | None:
    """The folder git searches from for `root` and the first of `searched_folders` holding a `.git` (a folder or a
    file); None when there is none. _Unsure where git might read it otherwise: an empty entry in
    GIT_CEILING_DIRECTORIES (the entries after it are compared unresolved), a filesystem boundary (where git stops,
    unless told), a `HEAD` in a folder on the way (a bare repository, which git would find there)."""
    if "" in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep)[:-1]:
        raise _Unsure
    device = None
    for folder in searched_folders(root):
        if device is None:
            start, device = folder, os.stat(folder).st_dev
        elif os.stat(folder).st_dev != device:
            raise _Unsure
        if os.path.lexists(os.path.join(folder, ".git")):
            return start, folder
        if os.path.lexists(os.path.join(folder, "HEAD")):
            raise _Unsure
    return None


def _owned_folder(path: str) -> bool:
    """A folder (not a link) of this process's user: git refuses another's repository (safe.directory)."""
    st = os.lstat(path)
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()


def _head(dot_git: str) -> str | None:
    """The commit HEAD names in the repository `dot_git` (None on a branch with no commit yet): HEAD itself, or the
    branch it names as a loose ref or in `packed-refs`."""
    with open(os.path.join(dot_git, "HEAD"), encoding="utf-8") as f:
        head = f.read().rstrip("\n")
    if _SHA.fullmatch(head):
        return head
    ref = head.removeprefix("ref: ")
    if ref == head or not ref.startswith("refs/heads/") or ".." in ref or "\n" in ref:
        raise _Unsure
    value: str | None
    try:
        with open(os.path.join(dot_git, ref), encoding="utf-8") as f:
            value = f.read().rstrip("\n")
    except FileNotFoundError:
        value = _packed(dot_git, ref)
    except IsADirectoryError:
        raise _Unsure from None
    if value is not None and not _SHA.fullmatch(value):
        raise _Unsure  # a symbolic ref (`ref: ...`) or what git would not read either
    return value


def _packed(dot_git: str, ref: str) -> str | None:
    """The commit `packed-refs` gives `ref`, or None (neither loose nor packed: a branch with no commit)."""
    try:
        with open(os.path.join(dot_git, "packed-refs"), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        return None
    for line in lines:
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None


# `*.md` under memories/ or notes/, no part of the path hidden or empty (what indexer/store/walk.py finds)
STORE_PATH = lazy_re.compile(r"(?:memories|notes)(?:/[^./][^/]*)+(?<=\.md)")


def is_store_path(path: str) -> bool:
    """Whether a store-relative path names a file the walk would index (a regex: the revisions ask it for every
    file of every commit)."""
    return STORE_PATH.fullmatch(path) is not None


def uncommitted(root: str | Path) -> list[str]:
    """The store files (store-relative, sorted) whose content differs from the last commit: changed, staged,
    new and untracked, deleted. Empty when the store is in no work tree."""
    seen = where(root)  # the store's place read from the repository's files: one git process, not two
    # the store's folder relative to the top, as `git status` names paths
    prefix = seen[1] if seen else getattr(repo(root), "prefix", None)
    if prefix is None:
        return []
    done = run(root, "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", "memories", "notes")
    paths = set()
    for entry in done.stdout.split("\0"):
        if len(entry) > 3 and entry[3:].startswith(prefix):  # paths relative to the top
            path = entry[3 + len(prefix) :]
            if is_store_path(path):
                paths.add(path)
    return sorted(paths)
