"""`seamless sync`: many hosts share one store through an ordinary git remote (SPEC section 10, docs/sync.md).

One sync commits what was changed by hand under memories/ and notes/, fetches, merges the remote branch
(a merge commit, never a rebase; the merge driver of `indexer.edit.merge` merges each file changed on both
sides, and the file-level rules are applied here), brings the index in step and pushes, trying again when
another host pushed first. It never force-pushes, never leaves a conflict marker in a store file and never
leaves the repository mid-merge: when it cannot finish, the branch is put back as it was and SyncError
says why in one line. A sync killed half way is finished off by the next one.
"""

import contextlib
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from indexer.edit import atomic, merge
from indexer.edit.commit import commit_files
from indexer.edit.store_write import store_lock
from indexer.index import build, database
from indexer.index.revisions import TRAILER
from indexer.sqlite import sqlite3
from indexer.store import git
from indexer.store.git import GitError

HAND_EDITS = "hand edits"
SETUP_MESSAGE = "seamless git-setup: merge memories and notes field by field"
DRIVER = "seamless"  # merge=seamless in .gitattributes, merge.seamless.* in the clone's configuration
ATTRIBUTES = (
    "# seamless: memories and notes merge field by field (seamless git-setup; docs/sync.md)",
    f"memories/**/*.md merge={DRIVER}",
    f"notes/**/*.md merge={DRIVER}",
)
STATE = "seamless-sync.json"  # in the git folder while a sync runs: a sync killed half way leaves it
REPORT = "seamless-merge-report.jsonl"  # in the git folder: what the merge driver did, file by file
ATTEMPTS = 5  # pushes rejected because another host pushed first, before giving up
RACE = ("fetch first", "non-fast-forward", "cannot lock ref", "failed to update ref", "incorrect old value")


class SyncError(Exception):
    """A sync that could not finish (the branch is as it was): one line saying why."""


@dataclass
class SyncResult:
    """What one sync did, as `--json` prints it."""

    pulled: int = 0  # commits brought in from the remote
    pushed: bool = False  # the remote branch now has this host's commits
    merged: bool = False  # a merge commit was made
    conflicts_resolved: list[dict] = field(default_factory=list)  # {id, path, rule}
    commits: int = 0  # commits this sync made: hand edits, the driver's set-up, merges
    indexed: int = 0  # store files brought in step in the index

    def as_json(self) -> dict:
        return {
            "pulled": self.pulled,
            "pushed": self.pushed,
            "merged": self.merged,
            "conflicts_resolved": self.conflicts_resolved,
            "commits": self.commits,
        }

    def line(self) -> str:
        """One line for a person: what came in, what went out."""
        parts = [f"pulled {self.pulled} commit{'s' if self.pulled != 1 else ''}"]
        if self.merged:
            parts.append("merged")
        if self.conflicts_resolved:
            n = len(self.conflicts_resolved)
            parts.append(f"{n} conflict{'s' if n != 1 else ''} resolved by the store's rules")
        parts.append("pushed" if self.pushed else "nothing to push")
        return "sync: " + ", ".join(parts)


class Repo:
    """The git work tree that holds a store (git.Repo: where the store sits in it), with its configuration."""

    def __init__(self, store: Path, found: git.Repo):
        self.store = store
        self.top, self.prefix = found.top, found.prefix
        self.git_dir = (
            found.git_dir
        )  # this work tree's own (a linked worktree has its own): MERGE_HEAD, our state files
        self.in_store = found.store_path  # a work-tree path as a store path (`memories/...`), or None outside it
        self.config = git.config_values(self.top)

    def run(self, *args: str, **kwargs):
        return git.run(self.top, *args, **kwargs)

    def git_file(self, name: str) -> Path:
        return self.git_dir / name

    def store_paths(self) -> list[str]:
        """The store's own folders, as pathspecs from the top of the work tree."""
        return [f"{self.prefix}memories", f"{self.prefix}notes"]


def open_repo(store: Path | str) -> Repo:
    """The work tree of `store`, refusing a store that is not in one (or a missing git)."""
    store = Path(store).resolve()
    if not store.is_dir():
        raise SyncError(f"no store at {store}: give the folder that holds memories/ and notes/")
    if not git.available():
        raise SyncError("git is not installed: sync needs it (Debian: apt-get install git)")
    found = git.repo(store)
    if found is None:
        raise SyncError(
            f"{store} is not in a git work tree: sync shares a store through git (git init it, or git clone the "
            "fleet's remote)"
        )
    return Repo(store, found)


# Registering the merge driver (SPEC section 10): .gitattributes committed, the command in .git/config


def driver_command() -> str:
    """The command git runs to merge a memory or note: this interpreter by its absolute path, so it works
    whatever PATH the git that merges has (a cron job, an editor, a plain `git pull` outside the venv)."""
    python = sys.executable or "python3"
    return f"{shlex.quote(python)} -m indexer merge-driver %O %A %B %P"


def setup(repo: Repo) -> list[str]:
    """Register the merge driver in this clone: `.gitattributes` at the store's root (committed), the driver's
    command in the clone's configuration. Returns what it changed (nothing when all was in place)."""
    done = []
    command = driver_command()
    if repo.config.get(f"merge.{DRIVER}.driver") != command:
        repo.run("config", f"merge.{DRIVER}.name", "seamless: memories and notes merged field by field")
        repo.run("config", f"merge.{DRIVER}.driver", command)
        repo.config[f"merge.{DRIVER}.driver"] = command
        done.append(f"merge.{DRIVER}.driver = {command} (in {git.git_path(repo.top, 'config')})")
    attributes = repo.store / ".gitattributes"
    text = attributes.read_text("utf-8") if attributes.exists() else ""
    missing = [line for line in ATTRIBUTES if line not in text.splitlines()]
    if missing:
        text = text + ("\n" if text and not text.endswith("\n") else "") + "\n".join(missing) + "\n"
        attributes.write_text(text, "utf-8")
        done.append(f"{repo.prefix}.gitattributes: " + "; ".join(m for m in missing if not m.startswith("#")))
    name = f"{repo.prefix}.gitattributes"
    if repo.run("status", "--porcelain", "--", name).stdout.strip():
        _commit(repo, [name], SETUP_MESSAGE)
        done.append(f"committed {name}")
    return done


def git_setup(store: Path | str) -> list[str]:
    """`seamless git-setup`: register the merge driver in the clone that holds `store` (see setup)."""
    repo = open_repo(store)
    with store_lock(repo.store):
        return setup(repo)


# Committing


def _commit(repo: Repo, paths: list[str], message: str) -> None:
    """Commit exactly `paths` (work-tree paths in the store: changed, new or deleted) with `message`, as a write
    commits its files (edit/commit.py), nothing else staged."""
    commit_files(repo.store, [path[len(repo.prefix) :] for path in paths], message)


def hand_edited(repo: Repo) -> list[str]:
    """The store's files under memories/ and notes/ that differ from HEAD (new, changed or deleted), as
    work-tree paths; hidden files (a writer's temporary files) left out."""
    out = repo.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *repo.store_paths()).stdout
    entries = out.split("\0")
    paths, i = [], 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if status[0] in "RC":  # a rename: the old path follows
            paths.append(entries[i])
            i += 1
        paths.append(path)
    return [
        p for p in dict.fromkeys(paths) if not any(part.startswith(".") for part in p[len(repo.prefix) :].split("/"))
    ]


# The sync


@dataclass
class _Run:
    """One sync's state: where the branch was (to put it back), what it made, what to report."""

    repo: Repo
    remote: str
    branch: str  # the local branch
    remote_branch: str  # the branch on the remote
    orig_head: str | None = None
    orig_tree: str | None = None  # the index (staging area) as it was, as a tree
    committed_head: str | None = None  # after the hand-edits and set-up commits
    result: SyncResult = field(default_factory=SyncResult)

    @property
    def tracking(self) -> str:
        return f"refs/remotes/{self.remote}/{self.remote_branch}"


def sync(store: Path | str, db_path: str | Path, remote: str | None = None) -> SyncResult:
    """Commit the store's hand edits, fetch, merge by the store's rules, index, push (SPEC section 10)."""
    try:
        return _sync(store, db_path, remote)
    except GitError as e:  # a git command that should not have failed: still one line
        raise SyncError(str(e)) from None


def _sync(store: Path | str, db_path: str | Path, remote: str | None) -> SyncResult:
    repo = open_repo(store)
    branch = git.branch(repo.top)
    if branch is None:
        raise SyncError("HEAD is detached: check out the store's branch (git switch main), then sync again")
    remote, remote_branch = _remote(repo, branch, remote)
    _check_index(repo.store, db_path)
    run = _Run(repo, remote, branch, remote_branch)
    fetched = _fetch(run)  # before anything changes: an unreachable remote changes nothing
    with store_lock(repo.store):
        recovered = _recover(repo)
        _refuse_unfinished(repo)
        run.orig_head = git.head(repo.top)
        run.orig_tree = repo.run("write-tree").stdout.strip()
        state = repo.git_file(STATE)  # left behind only by a sync that was killed, or could not put things back
        state.write_text(json.dumps({"pid": os.getpid(), "head": run.orig_head, "tree": run.orig_tree}))
        try:
            _commits(run, fetched)
            atomic.crash_point("sync-committed")
            _merge_and_push(run, fetched)
        except (SyncError, GitError, OSError) as e:
            try:
                changed = _restore(run)
            except GitError as failed:
                raise SyncError(
                    f"{e}; the branch could not be put back ({failed}): the next sync finishes it"
                ) from None
            _index(run, db_path, changed, state, reason=str(e))
            raise SyncError(str(e)) from None
        _index(run, db_path, _changed_paths(run, run.orig_head), state, walk=recovered)
    return run.result


def _remote(repo: Repo, branch: str, remote: str | None) -> tuple[str, str]:
    """The remote (--remote, else the branch's upstream, else origin) and the branch on it; the remote must exist."""
    upstream = repo.config.get(f"branch.{branch}.remote")
    upstream_branch = repo.config.get(f"branch.{branch}.merge", "").removeprefix("refs/heads/")
    name = remote or upstream or "origin"
    remotes = sorted(
        k[len("remote.") : -len(".url")] for k in repo.config if k.startswith("remote.") and k.endswith(".url")
    )
    if name not in remotes:
        hint = f" (this clone has: {', '.join(remotes)})" if remotes else ""
        raise SyncError(
            f"no remote named {name!r}{hint}: add the fleet's remote (git remote add {name} URL), or give --remote"
        )
    return name, (upstream_branch if upstream_branch and name == upstream else branch)


def _check_index(store: Path, db_path: str | Path) -> None:
    """Refuse, before anything changes, an index built from another store."""
    if not Path(db_path).is_file():
        return
    try:
        with contextlib.closing(sqlite3.connect(db_path)) as conn:
            database.check_store(conn, store, db_path)
    except database.OtherStoreError as e:
        raise SyncError(str(e)) from None
    except sqlite3.DatabaseError as e:
        raise SyncError(f"cannot read the index at {db_path}: {e}") from None


def _fetch(run: _Run) -> str | None:
    """Fetch the remote branch into its remote-tracking ref; its commit, or None when the remote has no such
    branch yet (the first push makes it)."""
    refspec = f"+refs/heads/{run.remote_branch}:{run.tracking}"
    done = run.repo.run("fetch", "-q", "--no-tags", run.remote, refspec, check=False)
    if done.returncode != 0:
        if "couldn't find remote ref" in done.stderr:
            return None
        reason = next((line.strip() for line in done.stderr.splitlines() if line.strip()), f"exit {done.returncode}")
        raise SyncError(f"cannot fetch from {run.remote}: {reason.removeprefix('fatal: ')}; nothing was changed")
    return run.repo.run("rev-parse", "--verify", "-q", run.tracking).stdout.strip() or None


def _recover(repo: Repo) -> bool:
    """Finish off a sync that was killed: abort the merge it left. True when there was one to finish."""
    state = repo.git_file(STATE)
    if not state.exists():
        return False
    _abort_merge(repo)
    state.unlink(missing_ok=True)
    return True


def _refuse_unfinished(repo: Repo) -> None:
    """Refuse to start while a merge, rebase, cherry-pick or revert of someone else's is under way."""
    for name, what, finish in (
        ("MERGE_HEAD", "a merge", "git commit, or git merge --abort"),
        ("rebase-merge", "a rebase", "git rebase --continue, or --abort"),
        ("rebase-apply", "a rebase or git am", "git rebase --continue, or --abort"),
        ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue, or --abort"),
        ("REVERT_HEAD", "a revert", "git revert --continue, or --abort"),
    ):
        if repo.git_file(name).exists():
            raise SyncError(f"{what} is under way in {repo.top}: finish it ({finish}), then sync again")
    if repo.run("ls-files", "-u").stdout.strip():
        raise SyncError(f"{repo.top} has unmerged files: resolve them (git add) and commit, then sync again")


def _commits(run: _Run, fetched: str | None) -> None:
    """Register the merge driver (committing .gitattributes) and commit the hand edits (`hand edits`). A new
    clone's branch with no commit yet first takes the remote's, so that the fleet keeps one history (unless
    files of its own are in the way: they are committed first, and merged with the remote's as any others)."""
    repo = run.repo
    edited = hand_edited(repo)
    if git.head(repo.top) is None and not edited:
        _merge(run, fetched)
    before = git.head(repo.top)
    setup(repo)
    if edited:
        _commit(repo, edited, HAND_EDITS)
    run.committed_head = git.head(repo.top)
    if run.committed_head != before:
        run.result.commits += len(_commits_between(repo, before, run.committed_head))


def _commits_between(repo: Repo, old: str | None, new: str | None) -> list[str]:
    if new is None:
        return []
    return repo.run("rev-list", new if old is None else f"{old}..{new}").stdout.split()


def _merge_and_push(run: _Run, fetched: str | None) -> None:
    """Merge the fetched branch and push; when another host pushed first, fetch, merge and push again."""
    for attempt in range(ATTEMPTS):
        if attempt:
            fetched = _fetch(run)
        _merge(run, fetched)
        head = git.head(run.repo.top)
        if head is None or head == fetched:
            return  # nothing of ours to send
        done = run.repo.run("push", "--porcelain", run.remote, f"HEAD:refs/heads/{run.remote_branch}", check=False)
        if done.returncode == 0:
            run.result.pushed = True
            atomic.crash_point("sync-pushed")
            if not run.repo.config.get(f"branch.{run.branch}.remote"):
                run.repo.run("branch", "-q", f"--set-upstream-to={run.remote}/{run.remote_branch}", check=False)
            return
        output = done.stdout + done.stderr
        if "rejected]" not in output or not any(reason in output for reason in RACE):
            reason = next((line for line in done.stderr.splitlines() if line.strip()), f"exit {done.returncode}")
            raise SyncError(f"cannot push to {run.remote}: {reason.strip().removeprefix('fatal: ')}")
    raise SyncError(f"{run.remote} kept moving: other hosts pushed first {ATTEMPTS} times; sync again")


def _merge(run: _Run, fetched: str | None) -> None:
    """Bring the fetched commits into the branch: a fast-forward, or a merge commit by the store's rules."""
    repo = run.repo
    head = git.head(repo.top)
    if fetched is None or fetched == head:
        return
    if head is not None and repo.run("merge-base", "--is-ancestor", fetched, head, check=False).returncode == 0:
        return  # we have it all already
    run.result.pulled += len(_commits_between(repo, head, fetched))
    if head is None or repo.run("merge-base", "--is-ancestor", head, fetched, check=False).returncode == 0:
        _git_merge(repo, "--ff-only", fetched)
        return
    report = repo.git_file(REPORT)
    report.unlink(missing_ok=True)
    # a clone that shares no history with the remote yet (two hosts that set up at once) is merged all the same
    done = _git_merge(repo, "--no-ff", "--no-commit", "--allow-unrelated-histories", fetched, report=report)
    if not repo.git_file("MERGE_HEAD").exists():  # refused before it began (a local change in the way)
        raise SyncError(f"git merge failed: {_reason(done)}")
    atomic.crash_point("sync-merging")
    resolved = _file_rules(run)
    concurrent = []
    for line in report.read_text("utf-8").splitlines() if report.exists() else []:
        entry = json.loads(line)
        path = repo.in_store(entry["path"]) or entry["path"]
        run.result.conflicts_resolved += [{"id": entry["id"], "path": path, "rule": r} for r in entry["rules"]]
        if entry["concurrent"]:
            concurrent.append(entry["id"] or path)
    report.unlink(missing_ok=True)
    run.result.conflicts_resolved += resolved
    left = repo.run("diff", "--name-only", "--diff-filter=U").stdout.split("\n")
    if any(left):
        raise SyncError(f"{left[0]} could not be merged: merge it by hand (git pull), then sync again")
    message = f"Merge {run.remote}/{run.remote_branch} into {run.branch} (seamless sync)"
    trailers = "".join(f"{TRAILER}: {memory_id}\n" for memory_id in sorted(set(concurrent)))
    repo.run(
        "commit",
        "-q",
        "--no-edit",
        "-F",
        "-",
        input=message + "\n\n" + trailers,
        env=git.fallback_identity(repo.config),
    )
    run.result.merged = True
    run.result.commits += 1
    atomic.crash_point("sync-merged")


def _git_merge(repo: Repo, *args: str, report: Path | None = None):
    env = {**git.fallback_identity(repo.config), **({merge.REPORT: str(report)} if report else {})}
    done = repo.run("merge", "-q", "--no-edit", *args, check=False, env=env)
    if done.returncode != 0 and "--ff-only" in args:
        raise SyncError(f"git merge failed: {_reason(done)}")
    return done


def _reason(done) -> str:
    lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    return next((line for line in lines if line.startswith(("error:", "fatal:"))), lines[0] if lines else "failed")


def _file_rules(run: _Run) -> list[dict]:
    """The rules a merge driver cannot apply (SPEC 10 rules 3-5): a file deleted on one side and edited on the
    other is kept; two new files at one path are both kept; anything else ends the sync (SyncError)."""
    repo = run.repo
    stages: dict[str, set[int]] = {}
    for entry in repo.run("ls-files", "-u", "-z").stdout.split("\0"):
        if entry:
            info, path = entry.split("\t", 1)
            stages.setdefault(path, set()).add(int(info.split()[2]))
    resolved = []
    for path, present in sorted(stages.items()):
        store_path = repo.in_store(path)
        in_store = store_path is not None and store_path.startswith(("memories/", "notes/"))
        if not in_store or not path.endswith(".md"):
            raise SyncError(
                f"{path} changed on both sides and git cannot merge it: merge it by hand (git pull), then sync again"
            )
        if present == {1, 2} or present == {1, 3}:  # deleted on one side, edited on the other: kept
            repo.run("checkout", "--ours" if 2 in present else "--theirs", "--", path)
            repo.run("add", "--", path)
            resolved.append({"id": _id_of(repo.top / path), "path": store_path, "rule": "delete-vs-edit"})
        elif present == {2, 3}:
            resolved.append(_both_added(repo, path))
        else:
            raise SyncError(
                f"{store_path} cannot be merged by the store's rules (a file git's own merge left in conflict): "
                "merge it by hand (git pull), then sync again"
            )
    return resolved


def _both_added(repo: Repo, path: str) -> dict:
    """Rule 4: two new files at one path are both kept; the later-created one moves to the next free `-2` path."""
    ours = repo.run("cat-file", "blob", f":2:{path}", text=False).stdout
    theirs = repo.run("cat-file", "blob", f":3:{path}", text=False).stdout
    earlier, later = sorted([ours, theirs], key=lambda data: (_created(data), data))
    stem = path.removesuffix(".md")
    n = 2
    while (repo.top / f"{stem}-{n}.md").exists() or repo.run("ls-files", "--", f"{stem}-{n}.md").stdout:
        n += 1
    moved = f"{stem}-{n}.md"
    (repo.top / path).write_bytes(earlier)
    (repo.top / moved).write_bytes(later)
    repo.run("add", "--", path, moved)
    return {"id": _id_of(repo.top / moved), "path": repo.in_store(moved), "rule": "add-add"}


def _created(data: bytes) -> str:
    try:
        return merge.read(data).time("created") or ""
    except merge.CannotMerge:
        return ""


def _id_of(file: Path) -> str | None:
    try:
        return merge.read(file.read_bytes()).id
    except (merge.CannotMerge, OSError):
        return None


def _restore(run: _Run) -> list[str]:
    """Put the branch, the index and the work tree back as they were before this sync; return the store paths
    that changed meanwhile (for the index). The hand edits are uncommitted changes again."""
    repo = run.repo
    _abort_merge(repo)
    changed = _changed_paths(run, run.committed_head)
    if run.committed_head and git.head(repo.top) != run.committed_head:
        repo.run("reset", "-q", "--keep", run.committed_head)
    if git.head(repo.top) != run.orig_head:
        if run.orig_head is None:
            repo.run("update-ref", "-d", f"refs/heads/{run.branch}")
        else:
            repo.run("reset", "-q", "--soft", run.orig_head)
        if run.orig_tree:
            repo.run("read-tree", run.orig_tree)
    run.result = SyncResult()
    return changed


def _abort_merge(repo: Repo) -> None:
    """Leave a merge under way: the branch, index and work tree as before it (local changes kept)."""
    if repo.git_file("MERGE_HEAD").exists() and repo.run("merge", "--abort", check=False).returncode != 0:
        repo.run("reset", "-q", "--merge")


def _changed_paths(run: _Run, since: str | None) -> list[str]:
    """The store files that differ between `since` and HEAD (all the store's files when `since` is None)."""
    repo = run.repo
    head = git.head(repo.top)
    if head is None or since == head:
        return []
    if since is None:
        out = repo.run("ls-tree", "-r", "-z", "--name-only", head, "--", *repo.store_paths()).stdout
    else:
        out = repo.run("diff", "--name-only", "-z", "--no-renames", since, head, "--", *repo.store_paths()).stdout
    return [p for p in (repo.in_store(path) for path in out.split("\0") if path) if p]


def _index(run: _Run, db_path: str | Path, paths: list[str], state: Path, walk: bool = False, reason: str = "") -> None:
    """Bring the index in step with the files this sync changed (after a killed sync, with a run over the whole
    store: what that one changed is not known); then the sync is over (its state file goes)."""
    try:
        if walk or not Path(db_path).exists():
            summary = build.index_store(run.repo.store, db_path)
        elif paths or git.head(run.repo.top) != run.orig_head:  # new commits: their revisions, trailers too
            summary = build.index_paths(run.repo.store, db_path, paths)
        else:
            return
        run.result.indexed = summary.files_changed + summary.files_deleted
    except (sqlite3.DatabaseError, OSError, database.OtherStoreError) as e:
        done = reason + "; and" if reason else "the store is synced, but"
        raise SyncError(
            f"{done} the index at {db_path} could not be brought in step ({e}): run `seamless index "
            f"{run.repo.store} --db {db_path}`"
        ) from None
    finally:
        state.unlink(missing_ok=True)
