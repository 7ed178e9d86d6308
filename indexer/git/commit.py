"""A write is a commit (SPEC section 10): the files one write changed, committed alone with its message and
trailers; not the user's other changes, staged or not. How (git's plumbing, unless a hook or signing asks for `git
commit --only`) and what a failed commit leaves: docs/history.md.
"""

import os
import re
import shlex
import subprocess
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from indexer import git
from indexer.git import driver_setup, history, recovery
from indexer.store import conflict_markers

TRAILER_UNSAFE = re.compile(r"\s+")  # a trailer is one line: any run of whitespace in a value becomes a space


@dataclass
class Change:
    """What one write did, as its commit tells it."""

    action: str  # write, update, supersede, append, archive, delete, note
    name: str  # the memory's name, the note's title
    id: str
    project: str | None  # None: global
    supersedes: str | None = None  # the id a supersede replaced
    old_name: str | None = None  # and its name
    session: str | None = None  # else SEAMLESS_SESSION, as the CLI and MCP server read it
    model: str | None = None  # else SEAMLESS_MODEL

    @property
    def subject(self) -> str:
        if self.action == "supersede":
            return f"supersede {self.old_name} -> {self.name} ({self.id})"
        return f"{self.action} {self.name} ({self.id})"

    def message(self) -> str:
        """The commit message: the subject, a blank line, then the trailers."""
        trailers = {
            "Seamless-Id": self.id,
            "Seamless-Action": self.action,
            "Seamless-Project": self.project or "global",
            "Seamless-Supersedes": self.supersedes,
            "Seamless-Session": self.session or os.environ.get("SEAMLESS_SESSION"),
            "Seamless-Model": self.model or os.environ.get("SEAMLESS_MODEL"),
        }
        lines = [f"{key}: {TRAILER_UNSAFE.sub(' ', value).strip()}" for key, value in trailers.items() if value]
        return f"{TRAILER_UNSAFE.sub(' ', self.subject).strip()}\n\n" + "\n".join(lines) + "\n"


@dataclass
class Setup:
    """What a clone's first write did besides its own commit (SPEC 8, "Output"): the store's merge driver registered
    in the clone's configuration, and the lines `.gitattributes` lacked committed on their own."""

    driver: str | None = None  # the configuration line written: `merge.seamless.driver = COMMAND (in FILE)`
    attributes: str | None = None  # `.gitattributes` (store-relative), when it got lines
    commit: str | None = None  # their commit
    failed: str | None = None  # why that commit was not made (its lines taken out again: the next sync commits them)

    def as_json(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value}

    def said(self) -> str:
        """What was set up, in one line."""
        line = f"this clone's first write set git up: registered the merge driver, {self.driver}"
        if self.commit:
            return line + f"; committed {self.attributes} ({self.commit[:12]} {driver_setup.SETUP_MESSAGE})"
        if self.failed:
            return line + f"; {self.attributes} was not committed ({self.failed}): the next sync commits it"
        return line + "; .gitattributes named it already"


@dataclass
class Committed:
    """How the commit of a write went: its commit, or the warning that says why there is none, and what the clone's
    first write set up."""

    commit: str | None = None
    warning: str | None = None
    # where the store sits in its work tree after the commit (None: unknown), so that the index reads the new
    # commit's history without asking git again where it is
    repo: git.Repo | None = None
    setup: Setup | None = None


class MarkersRefused(ValueError):
    """A file to commit holds conflict markers: no commit of ours carries them (the message names the line)."""


def commit_write(root: Path, paths: list[str], change: Change, enabled: bool = True, db_path=None) -> Committed:
    """`commit_files` for a write, with `change`'s message and the clone's merge driver registered on its first write.
    Nothing when `enabled` is false (`git.commit = false`); a warning naming the command that commits them (`db_path`:
    the index's, for it), never an exception, when the commit fails: the write stands."""
    if not enabled:
        return Committed()
    setup = Setup()
    try:
        commit, repo = commit_files(root, paths, change.message(), setup)
        return Committed(commit=commit, repo=repo, setup=setup if setup.driver else None)
    except (git.GitError, OSError, ValueError) as e:
        return Committed(
            warning=f"warning: {', '.join(paths)} written but not committed ({e}); {_next(root, paths, e, db_path)}",
            setup=setup if setup.driver else None,
        )


def commit_leftover(
    root: Path, paths: list[str], change: Change, enabled: bool = True, known: str = "update", db_path=None
) -> Committed:
    """For a retried write that had nothing to write: commit those of the files at `paths` that an earlier run
    wrote but was stopped before committing (git shows them uncommitted), with `change`'s message, its action
    `known` when git knew them all before. Nothing when they are all committed."""
    if not enabled:
        return Committed()
    try:
        left = git.uncommitted(root, paths)
    except (git.GitError, OSError) as e:
        return Committed(warning=f"warning: cannot tell whether {', '.join(paths)} are committed ({e})")
    if not left:
        return Committed()
    if all(left.values()):
        change = replace(change, action=known)
    return commit_write(root, sorted(left), change, db_path=db_path)


def _next(root: Path, paths: list[str], error: Exception, db_path) -> str:
    """The command that commits what a failed commit left: a sync where the clone has a remote (it commits every
    store file left uncommitted), else git's own; first, what to do about a lock git found in the way."""
    repo = git.repo(root)
    if repo is None:
        return "`seamless status` lists the store files left uncommitted"
    if any(key.startswith("remote.") and key.endswith(".url") for key in git.config_values(root)):
        db = f" --db {shlex.quote(str(db_path))}" if db_path else ""
        command = f"`seamless sync {shlex.quote(str(root))}{db}`"
    else:
        named = " ".join(shlex.quote(path) for path in paths)
        folder = shlex.quote(str(root))
        command = f"`git -C {folder} add -A -- {named} && git -C {folder} commit -m 'hand edits' -- {named}`"
    lock = re.search(r"Unable to create '([^']+\.lock)': File exists", str(error))
    if lock:
        return f"{recovery.lock_line(repo, Path(lock.group(1)))}, then {command} commits them"
    return f"{command} commits them"


def commit_files(
    root: Path, paths: list[str], message: str, setup: Setup | None = None
) -> tuple[str | None, git.Repo | None]:
    """Commit the store files at `paths` (store-relative; those that no longer exist, as deleted) alone with
    `message`: the new commit, or None (no git work tree, every path ignored, nothing changed), and where the store
    sits after it (None: in no work tree). Raises git.GitError, or MarkersRefused for a file with conflict markers.
    `setup`: first register the store's merge driver where the clone has none (`_register`)."""
    repo = git.repo(root)
    if repo is None:
        return None, None
    config = git.config_values(root)
    paths = _not_ignored(root, repo, sorted(set(paths)), config)
    if not paths:
        return None, repo
    _refuse_markers(root, paths)
    recovery.recover(repo)  # a lock a write or sync of ours left when it was killed
    with recovery.running(repo.git_dir):
        if setup is not None and not config.get(driver_setup.CONFIG_KEY):
            repo = _register(root, repo, config, setup)
        commit = _commit(root, repo, paths, message, config)
    return commit, replace(repo, head=commit) if commit else repo


def _register(root: Path, repo: git.Repo, config: dict[str, str], setup: Setup) -> git.Repo:
    """Register the store's merge driver on a clone's first write (its command in the clone's configuration; the
    lines `.gitattributes` lacks, committed on their own), saying what it did in `setup`. The write's own commit
    matters more: a set-up commit that fails (a hook's refusal) takes its lines out again, and the next sync commits
    them."""
    setup.driver = driver_setup.configure(repo.top, None)
    attributes = root / ".gitattributes"
    before = attributes.read_bytes() if attributes.exists() else None
    if not driver_setup.write_attributes(root):
        return repo
    setup.attributes = ".gitattributes"
    try:
        setup.commit = _commit(root, repo, [".gitattributes"], driver_setup.SETUP_MESSAGE, config)
    except git.GitError as e:
        if before is None:
            attributes.unlink()
        else:
            attributes.write_bytes(before)
        setup.failed = str(e).strip().splitlines()[-1] if str(e).strip() else "git refused"
        return repo
    return git.repo(root) or repo  # at the new commit


def _commit(root: Path, repo: git.Repo, paths: list[str], message: str, config: dict[str, str]) -> str | None:
    env = git.fallback_identity(config)
    signs = config.get("commit.gpgsign", "false").lower() in ("true", "yes", "on", "1")
    if signs or any(hook.is_file() and os.access(hook, os.X_OK) for hook in repo.hooks):
        return _porcelain(root, paths, message, env)
    return _plumbing(root, repo, paths, message, env)


def _refuse_markers(root: Path, paths: list[str]) -> None:
    """MarkersRefused for the first of `paths` that holds conflict markers."""
    for path in paths:
        try:
            data = (root / path).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
        found = conflict_markers.find_bytes(data)
        if found:
            raise MarkersRefused(
                f"{path}:{found[0].start}: conflict markers left by a git merge ({conflict_markers.describe(found)}): "
                f"{conflict_markers.RESOLVE}"
            )


def _not_ignored(root: Path, repo: git.Repo, paths: list[str], config: dict[str, str]) -> list[str]:
    """`paths` less those git ignores (a store kept out of git on purpose), but for those git already tracks."""
    if not _may_ignore(repo, paths, config):
        return paths
    # --no-index: the rules alone, without reading the index (a tenth of a second at 100,000 files)
    done = git.run(root, "check-ignore", "--no-index", "-z", "--stdin", input="\0".join(paths) + "\0", check=False)
    if done.returncode not in (0, 1):
        raise git.GitError(f"git check-ignore failed: {done.stderr.strip().splitlines()[0] if done.stderr else ''}")
    ignored = {path for path in done.stdout.split("\0") if path}
    if ignored:  # rare: then ask the index which of them are tracked, and so committed whatever the rules say
        ignored -= set(git.run(root, "ls-files", "-z", "--", *ignored).stdout.split("\0"))
    return [path for path in paths if path not in ignored]


def _may_ignore(repo: git.Repo, paths: list[str], config: dict[str, str]) -> bool:
    """False when no ignore rule can apply to `paths`: no `.gitignore` in a folder on their way from the top of
    the work tree, and no pattern in the repository's `info/exclude` or the user's excludes file (most stores).
    Then git is not asked (a process less for each write); any doubt (a file that cannot be read, an excludes
    file we cannot place) and it is."""
    sources = {repo.exclude}
    excludes = config.get("core.excludesfile")
    if excludes is None:
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.environ.get("HOME", ""), ".config")
        excludes = os.path.join(xdg, "git", "ignore")
    excludes = os.path.expanduser(excludes)
    if not os.path.isabs(excludes):
        return True
    sources.add(Path(excludes))
    for path in paths:
        parts = repo.top_path(path).split("/")[:-1]
        sources.update(repo.top.joinpath(*parts[:n], ".gitignore") for n in range(len(parts) + 1))
    for source in sources:
        try:
            text = source.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return True
        if any(line.strip() and not line.startswith(b"#") for line in text.splitlines()):
            return True
    return False


def _plumbing(root: Path, repo: git.Repo, paths: list[str], message: str, env: dict[str, str]) -> str | None:
    """Commit `paths` from their trees in HEAD and their bytes on disk; the new commit (None: nothing changed)."""
    # the user's index holds these paths as they are on disk (update-index writes their blobs, as `git add` does), and
    # nothing else of theirs changes; one cat-file then reads the blobs' ids there and HEAD's trees on their way
    git.run(root, "update-index", "--add", "--remove", "--", *paths)
    present = [path for path in paths if (root / path).is_file()]
    folders = {""}
    for path in paths:
        parts = repo.top_path(path).split("/")[:-1]
        folders.update("/".join(parts[: n + 1]) for n in range(len(parts)))
    ordered = sorted(folders) if repo.head else []
    names = [f"{repo.head}:{folder}" if folder else f"{repo.head}^{{tree}}" for folder in ordered]
    found = list(history.read_objects(root, names + [f":{repo.top_path(path)}" for path in present]))
    trees: dict[str, dict[bytes, tuple[str, str]]] = {folder: {} for folder in folders}
    for folder, (_, data) in zip(ordered, found):
        if data is not None:
            trees[folder] = history.tree_entries(data, len(repo.head or "") // 2)
    blobs = {path: sha for path, (sha, data) in zip(present, found[len(ordered) :]) if data is not None}
    if len(blobs) < len(present):  # the index changed meanwhile (another git command): never commit it as deleted
        raise git.GitError(f"git update-index failed: {', '.join(sorted(set(present) - set(blobs)))} not in the index")
    changed = False
    for path in paths:
        folder, _, name = repo.top_path(path).rpartition("/")
        entries, key = trees[folder], os.fsencode(name)
        before = entries.get(key)
        if path in blobs:
            entries[key] = ("100755" if os.access(root / path, os.X_OK) else "100644", blobs[path])
        else:
            entries.pop(key, None)
        changed = changed or entries.get(key) != before
    if not changed:
        return None
    with TreeMaker(root) as maker:  # one git process for every tree
        for folder in sorted(folders - {""}, key=lambda f: f.count("/"), reverse=True):  # the deepest first
            parent, _, name = folder.rpartition("/")
            if trees[folder]:
                trees[parent][os.fsencode(name)] = ("40000", maker.make(_listing(trees[folder])))
            else:  # git keeps no empty folder
                trees[parent].pop(os.fsencode(name), None)
        tree = maker.make(_listing(trees[""]))
    commit = git.run(
        root, "commit-tree", tree, *(["-p", repo.head] if repo.head else []), "-F", "-", input=message, env=env
    ).stdout.strip()
    # HEAD moves only if it is still where it was
    subject = message.partition("\n")[0]
    git.run(root, "update-ref", "-m", f"commit: {subject}", "HEAD", commit, repo.head or "")
    return commit


class TreeMaker:
    """Tree objects written by one `git mktree -z --batch`, one at a time (a tree's sha is in its parent's entry):
    one git process for every folder of a commit. Use as a context manager."""

    def __init__(self, cwd: str | Path):
        pipe = subprocess.PIPE
        self.child = git.popen(cwd, "mktree", "-z", "--batch", stdin=pipe, stdout=pipe, stderr=pipe)

    def make(self, listing: bytes) -> str:
        """The tree of `listing` (mktree -z's entries, each ending in NUL), written; its sha."""
        assert self.child.stdin is not None and self.child.stdout is not None  # both are pipes
        try:
            self.child.stdin.write(listing + b"\0")  # an empty entry ends the tree
            self.child.stdin.flush()
        except OSError:
            pass  # git stopped: its reason is read below
        sha = self.child.stdout.readline().decode().strip()
        if not sha:
            raise git.GitError(f"git mktree failed: {self._reason()}")
        return sha

    def _reason(self) -> str:
        assert self.child.stderr is not None
        self.close()
        stderr = self.child.stderr.read().decode("utf-8", "replace")
        return next((line.strip() for line in stderr.splitlines() if line.strip()), f"exit {self.child.returncode}")

    def close(self) -> None:
        for stream in (self.child.stdin, self.child.stdout):
            if stream is not None and not stream.closed:
                try:
                    stream.close()
                except OSError:
                    pass
        self.child.wait()

    def __enter__(self) -> "TreeMaker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
        if self.child.stderr is not None:
            self.child.stderr.close()


def _listing(entries: dict[bytes, tuple[str, str]]) -> bytes:
    """A tree's entries as `git mktree -z` reads them."""
    kinds = {"40000": b"tree", "040000": b"tree", "160000": b"commit"}
    return b"".join(
        b"%s %s %s\t%s\0" % (mode.encode(), kinds.get(mode, b"blob"), sha.encode(), name)
        for name, (mode, sha) in entries.items()
    )


def _porcelain(root: Path, paths: list[str], message: str, env: dict[str, str]) -> str | None:
    """`git commit --only` on `paths`, so the repository's hooks run (and its signing is done) as git does them."""
    present = [path for path in paths if (root / path).is_file()]
    gone = [path for path in paths if path not in present]
    # ls-files names them relative to `root`, as given
    tracked = set(git.run(root, "ls-files", "-z", "--", *gone).stdout.split("\0")) if gone else set()
    paths = present + [path for path in gone if path in tracked]
    if not paths:
        return None
    git.run(root, "add", "-A", "--", *paths)  # new files must be known to git for `commit --only`
    git.run(root, "commit", "-q", "--only", "-F", "-", "--", *paths, input=message, env=env)
    return git.run(root, "rev-parse", "HEAD").stdout.strip()
