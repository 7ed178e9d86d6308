"""`seamless sync`: many hosts share one store through an ordinary git remote (SPEC section 10, docs/sync.md; its
steps are the command's help). A merge commit applies the rules for whole files (edit/merge.py) beside the driver's.
"""

import contextlib
import itertools
import re
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path

from indexer import git
from indexer.edit import atomic, merge
from indexer.edit.session import store_lock
from indexer.git import GitError, driver_setup, history, recovery
from indexer.git.commit import MarkersRefused, commit_files
from indexer.index import build, database
from indexer.index.revision_rows import TRAILER
from indexer.sqlite import sqlite3
from indexer.store import conflict_markers

HAND_EDITS = "hand edits"
SYNCED_HEAD = "synced_head"  # index_meta: the commit whose store files the last sync brought the index in step with
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
        return {key: value for key, value in asdict(self).items() if key != "indexed"}

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


def open_repo(store: Path | str) -> git.Repo:
    """The work tree of `store` (resolved), refusing a store that is not in one (or a missing git)."""
    store = Path(store).resolve()
    if not store.is_dir():
        raise SyncError(f"no store at {store}: give the folder that holds memories/ and notes/")
    if not git.available():
        raise SyncError("git is not installed: sync needs it (Debian: apt-get install git)")
    if (found := git.repo(store)) is None:
        why = "sync shares a store through git (git init it, or git clone the fleet's remote)"
        raise SyncError(f"{store} is not in a git work tree: {why}")
    return found


def setup(repo: git.Repo, config: dict[str, str]) -> list[str]:
    """Register the merge driver in this clone: `.gitattributes` at the store's root (committed), the driver's
    command in the clone's configuration. Returns what it changed (nothing when all was in place)."""
    done = []
    if configured := driver_setup.configure(repo.top, config.get(driver_setup.CONFIG_KEY)):
        config[driver_setup.CONFIG_KEY] = driver_setup.driver_command()
        done.append(configured)
    if missing := driver_setup.write_attributes(repo.root):
        done.append(f"{repo.prefix}.gitattributes: " + "; ".join(m for m in missing if not m.startswith("#")))
    name = f"{repo.prefix}.gitattributes"
    if repo.run("status", "--porcelain", "--", name).stdout.strip():
        _commit(repo, [name], driver_setup.SETUP_MESSAGE)
        done.append(f"committed {name}")
    return done


def git_setup(store: Path | str) -> list[str]:
    """`seamless git-setup`: register the merge driver in the clone that holds `store` (see setup)."""
    repo = open_repo(store)
    with store_lock(repo.root):
        return setup(repo, git.config_values(repo.top))


def _commit(repo: git.Repo, paths: list[str], message: str) -> None:
    """Commit exactly `paths` (work-tree paths in the store: changed, new or deleted) with `message`, as a write
    commits its files (edit/commit.py), nothing else staged; never a file with conflict markers."""
    try:
        commit_files(repo.root, [path[len(repo.prefix) :] for path in paths], message)
    except MarkersRefused as e:
        raise SyncError(f"{e}, then sync again") from None


def hand_edited(repo: git.Repo) -> list[str]:
    """The store's files under memories/ and notes/ that differ from HEAD (new, changed or deleted), as
    work-tree paths; hidden files (a writer's temporary files) left out."""
    out = repo.run(
        "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", *repo.pathspecs()
    ).stdout
    paths = [entry[3:] for entry in out.split("\0") if len(entry) > 3]  # a rename: its old and its new path
    return [
        p for p in dict.fromkeys(paths) if not any(part.startswith(".") for part in p[len(repo.prefix) :].split("/"))
    ]


@dataclass
class _Run:
    """One sync's state: where the branch was (to put it back), what it made, what to report."""

    repo: git.Repo
    remote: str
    branch: str  # the local branch
    remote_branch: str  # the branch on the remote
    config: dict[str, str]  # git's configuration in the work tree, all levels (git.config_values)
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
        raise SyncError(f"HEAD is detached: check out the store's branch ({_switch(repo)}), then sync again")
    config = git.config_values(repo.top)
    remote, remote_branch = _remote(config, branch, remote)
    synced = _check_index(repo.root, db_path)
    run = _Run(repo, remote, branch, remote_branch, config)
    with store_lock(repo.root):
        recovery.recover(repo)  # a sync or write of ours killed half way: its locks, files and merge
        blocked = recovery.blocking(repo, (f"refs/heads/{branch}", run.tracking))
        if blocked:
            raise SyncError(f"{blocked}, then sync again")
        with recovery.running(repo.git_dir) as held:
            fetched = _fetch(run)  # before anything changes: an unreachable remote changes nothing
            _refuse_unfinished(repo)
            run.orig_head = git.head(repo.top)
            run.orig_tree = repo.run("write-tree").stdout.strip()
            try:
                _commits(run, fetched)
                atomic.crash_point("sync-committed")
                _merge_and_push(run, fetched)
            except (SyncError, GitError, OSError) as e:
                try:
                    changed = _restore(run)
                except GitError as failed:
                    held.kept = True  # as if killed: the next sync (or write) clears what is left
                    raise SyncError(
                        f"{e}; the branch could not be put back ({failed}): the next sync finishes it"
                    ) from None
                _index(run, db_path, synced, changed, reason=str(e))
                raise SyncError(str(e)) from None
        _index(run, db_path, synced, [])
    return run.result


def _switch(repo: git.Repo) -> str:
    """The command that checks out the store's branch again, for a detached HEAD: the clone's branch (its remote's
    default among several), as this clone names it (`main`, `master`, ...)."""
    branches = repo.run("for-each-ref", "--format=%(refname:short)", "refs/heads").stdout.split()
    default = repo.run("symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False).stdout.strip()
    default = default.partition("/")[2]
    if len(branches) == 1 or default in branches:
        return f"git -C {shlex.quote(str(repo.top))} switch {branches[0] if len(branches) == 1 else default}"
    if branches:
        return f"git -C {shlex.quote(str(repo.top))} switch BRANCH, one of: {', '.join(branches)}"
    return f"git -C {shlex.quote(str(repo.top))} switch -c {default or 'main'}"


def _remote(config: dict[str, str], branch: str, remote: str | None) -> tuple[str, str]:
    """The remote (--remote, else the branch's upstream, else origin) and the branch on it; the remote must exist."""
    upstream = config.get(f"branch.{branch}.remote")
    upstream_branch = config.get(f"branch.{branch}.merge", "").removeprefix("refs/heads/")
    name = remote or upstream or "origin"
    remotes = sorted(k[len("remote.") : -len(".url")] for k in config if k.startswith("remote.") and k.endswith(".url"))
    if name not in remotes:
        hint = f" (this clone has: {', '.join(remotes)})" if remotes else ""
        raise SyncError(
            f"no remote named {name!r}{hint}: add the fleet's remote (git remote add {name} URL), or give --remote"
        )
    return name, (upstream_branch if upstream_branch and name == upstream else branch)


def _check_index(store: Path, db_path: str | Path) -> str | None:
    """Refuse, before anything changes, an index built from another store. The commit whose store files the
    last sync brought the index in step with (None: no index, or none recorded)."""
    if not Path(db_path).is_file():
        return None
    try:
        with contextlib.closing(sqlite3.connect(db_path)) as conn:
            database.check_store(conn, store, db_path)
            return database.meta_value(conn, SYNCED_HEAD)
    except database.OtherStoreError as e:
        raise SyncError(str(e)) from None
    except sqlite3.DatabaseError as e:
        raise SyncError(
            f"cannot read the index at {db_path}: {e}; rebuild it (seamless index {store} --db {db_path} --full), "
            "then sync again"
        ) from None


def _fetch(run: _Run) -> str | None:
    """Fetch the remote branch into its remote-tracking ref; its commit, or None when the remote has no such
    branch yet (the first push makes it)."""
    refspec = f"+refs/heads/{run.remote_branch}:{run.tracking}"
    done = run.repo.run("fetch", "-q", "--no-tags", run.remote, refspec, check=False)
    if done.returncode != 0:
        if "couldn't find remote ref" in done.stderr:
            return None
        reason = next((line.strip() for line in done.stderr.splitlines() if line.strip()), f"exit {done.returncode}")
        raise SyncError(
            f"cannot fetch from {run.remote}: {reason.removeprefix('fatal: ')}; nothing was changed: sync again once "
            f"`git -C {shlex.quote(str(run.repo.top))} fetch {run.remote}` works"
        )
    return run.repo.run("rev-parse", "--verify", "-q", run.tracking).stdout.strip() or None


def _refuse_unfinished(repo: git.Repo) -> None:
    """Refuse to start while a merge, rebase, cherry-pick or revert of someone else's is under way."""
    merging = "git merge --abort, then sync: it merges by the store's rules; or resolve, git add, git commit"
    for name, what, finish in (
        ("MERGE_HEAD", "a merge", merging),
        ("rebase-merge", "a rebase", "git rebase --continue, or --abort"),
        ("rebase-apply", "a rebase or git am", "git rebase --continue, or --abort"),
        ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue, or --abort"),
        ("REVERT_HEAD", "a revert", "git revert --continue, or --abort"),
    ):
        if (repo.git_dir / name).exists():
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
    setup(repo, run.config)
    if edited:
        _commit(repo, edited, HAND_EDITS)
    run.committed_head = git.head(repo.top)
    if run.committed_head != before:
        run.result.commits += len(_commits_between(repo, before, run.committed_head))


def _commits_between(repo: git.Repo, old: str | None, new: str | None) -> list[str]:
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
        _refuse_markers(run, fetched, head)
        done = run.repo.run("push", "--porcelain", run.remote, f"HEAD:refs/heads/{run.remote_branch}", check=False)
        if done.returncode == 0:
            run.result.pushed = True
            atomic.crash_point("sync-pushed")
            if not run.config.get(f"branch.{run.branch}.remote"):
                run.repo.run("branch", "-q", f"--set-upstream-to={run.remote}/{run.remote_branch}", check=False)
            return
        output = done.stdout + done.stderr
        lock = re.search(r"Unable to create '([^']+\.lock)': File exists", output)
        if lock:  # a push to the remote that was killed half way (a shared folder's): never ours to remove
            raise SyncError(
                f"cannot push to {run.remote}: {lock.group(1)} is left by a push that did not finish: if no host "
                f"is pushing to {run.remote}, remove it there (rm {lock.group(1)}), then sync again"
            )
        if "rejected]" not in output or not any(reason in output for reason in RACE):
            reason = next((line for line in done.stderr.splitlines() if line.strip()), f"exit {done.returncode}")
            top = shlex.quote(str(run.repo.top))
            raise SyncError(
                f"cannot push to {run.remote}: {reason.strip().removeprefix('fatal: ')}; the branch is as it was: "
                f"sync again once `git -C {top} push --dry-run {run.remote} HEAD:{run.remote_branch}` works"
            )
    raise SyncError(f"{run.remote} kept moving: other hosts pushed first {ATTEMPTS} times; sync again")


def _refuse_markers(run: _Run, fetched: str | None, head: str) -> None:
    """Refuse to push a store file holding conflict markers (a merge by hand, committed unfinished) that the
    remote's branch does not hold already: a sync never spreads them (what another host pushed is fixed there)."""
    repo = run.repo
    if fetched is None:  # the first push: every file, as git grep finds the candidates
        out = repo.run("grep", "-l", "-z", "-E", "-e", "^<{7}( |$)", head, "--", *repo.pathspecs(), check=False).stdout
        paths = [entry.partition(":")[2] for entry in out.split("\0") if entry]
    else:
        out = repo.run(
            "diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", fetched, head, "--", *repo.pathspecs()
        ).stdout
        paths = [path for path in out.split("\0") if path]
    for (_, data), path in zip(history.read_objects(repo.top, [f"{head}:{path}" for path in paths]), paths):
        found = conflict_markers.find_bytes(data or b"")
        if not found or (fetched and conflict_markers.find_bytes(_blob_at(repo, fetched, path))):
            continue
        raise SyncError(
            f"{repo.store_path(path) or path}:{found[0].start}: conflict markers left by a git merge, committed "
            f"({conflict_markers.describe(found)}): {conflict_markers.RESOLVE} in that file, then sync again "
            "(it commits the fix); nothing was pushed"
        )


def _blob_at(repo: git.Repo, commit: str, path: str) -> bytes:
    return next(history.read_objects(repo.top, [f"{commit}:{path}"]))[1] or b""


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
        done = _git_merge(run, "--ff-only", fetched)
        if done.returncode != 0:
            raise _merge_refused(run, done)
        return
    with recovery.running(repo.git_dir, merging=fetched):  # killed meanwhile, the next sync aborts this merge
        _merge_commit(run, fetched)


def _merge_commit(run: _Run, fetched: str) -> None:
    """A merge commit of the fetched branch: the driver merges the files changed on both sides, `merge.file_rules`
    the rest; anything else ends the sync."""
    repo = run.repo
    report = repo.git_dir / merge.REPORT_FILE
    report.unlink(missing_ok=True)
    # unrelated histories: two hosts that set up at once. Renames only of a file moved unchanged: two small memories
    # share most lines, so git's default (50% alike) took a deletion and an addition for a rename
    done = _git_merge(
        run, "--no-ff", "--no-commit", "--allow-unrelated-histories", "-X", "find-renames=100%", fetched, report=report
    )
    if not (repo.git_dir / "MERGE_HEAD").exists():  # refused before it began (a local change in the way)
        raise _merge_refused(run, done)
    atomic.crash_point("sync-merging")
    try:
        resolved = merge.file_rules(repo)
    except merge.Unmerged as e:
        raise SyncError(f"{e}: {_by_hand(run, e.path)}") from None
    applied, concurrent = merge.driver_report(repo, report)
    report.unlink(missing_ok=True)
    run.result.conflicts_resolved += applied + resolved
    left = repo.run("diff", "--name-only", "--diff-filter=U").stdout.split("\n")
    if any(left):
        raise SyncError(f"{left[0]} could not be merged: {_by_hand(run, left[0])}")
    message = f"Merge {run.remote}/{run.remote_branch} into {run.branch} (seamless sync)"
    trailers = "".join(f"{TRAILER}: {memory_id}\n" for memory_id in sorted(set(concurrent)))
    repo.run(
        "commit", "-q", "--no-edit", "-F", "-", input=message + "\n\n" + trailers, env=git.fallback_identity(run.config)
    )
    run.result.merged = True
    run.result.commits += 1
    atomic.crash_point("sync-merged")


def _git_merge(run: _Run, *args: str, report: Path | None = None):
    env = {**git.fallback_identity(run.config), **({merge.REPORT: str(report)} if report else {})}
    return run.repo.run("merge", "-q", "--no-edit", *args, check=False, env=env)


def _reason(done) -> str:
    """Git's reason on one line: its first `error:` or `fatal:` line, with the files it lists below it."""
    lines = (done.stderr + done.stdout).splitlines()
    first = next((n for n, line in enumerate(lines) if line.startswith(("error:", "fatal:"))), None)
    if first is None:
        return next((line.strip() for line in lines if line.strip()), "failed")
    named = list(itertools.takewhile(lambda line: line.startswith((" ", "\t")), lines[first + 1 :]))
    reason = lines[first].strip().rstrip(":").removeprefix("error: ").removeprefix("fatal: ")
    return reason + (": " + ", ".join(line.strip() for line in named) if named else "")


def _merge_refused(run: _Run, done) -> SyncError:
    """A merge git refused before it began: its reason whole, and what to do about the files it names (the user's
    own changes outside the store: sync commits every change inside it first)."""
    reason = _reason(done)
    named = " ".join(shlex.quote(name) for name in reason.rpartition(": ")[2].split(", "))
    top = shlex.quote(str(run.repo.top))
    if "untracked working tree files" in reason:
        return SyncError(f"git merge failed: {reason}; move them out of the way, then sync again")
    if "local changes" in reason:
        return SyncError(
            f"git merge failed: {reason}; commit them (git -C {top} commit -m MESSAGE -- {named}), or unstage them "
            f"where the remote leaves them alone (git -C {top} restore --staged -- {named}), then sync again"
        )
    return SyncError(f"git merge failed: {reason}")


def _by_hand(run: _Run, path: str) -> str:
    """The advice for a file sync cannot merge: a merge by hand, as a person types it, then a sync."""
    top = shlex.quote(str(run.repo.top))
    return (
        f"merge it by hand: git -C {top} merge {run.remote}/{run.remote_branch}, resolve {path} (edit it), "
        f"git -C {top} add {shlex.quote(path)}, git -C {top} commit --no-edit; then sync again"
    )


def _restore(run: _Run) -> list[str]:
    """Put the branch, the index and the work tree back as they were before this sync; return the store paths
    that changed meanwhile (for the index). The hand edits are uncommitted changes again."""
    repo = run.repo
    recovery.abort_merge(repo.top, repo.git_dir)
    changed = _changed_paths(repo, run.committed_head or run.orig_head)
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


def _changed_paths(repo: git.Repo, since: str | None) -> list[str]:
    """The store files that differ between `since` and HEAD (all the store's files when `since` is None)."""
    head = git.head(repo.top)
    if head is None or since == head:
        return []
    if since is None:
        out = repo.run("ls-tree", "-r", "-z", "--name-only", head, "--", *repo.pathspecs()).stdout
    else:
        out = repo.run("diff", "--name-only", "-z", "--no-renames", since, head, "--", *repo.pathspecs()).stdout
    return [p for p in (repo.store_path(path) for path in out.split("\0") if path) if p]


def _touched_since(repo: git.Repo, synced: str, head: str) -> list[str] | None:
    """The store files any commit changed between `synced` and `head`, on either side (a reset back, a hand
    commit, a pull by hand, a merge's own result): what the index may not hold. None when git no longer knows
    `synced` (a rewritten history)."""
    done = repo.run(
        "log", "--format=", "--name-only", "-z", "--no-renames", "--diff-merges=first-parent",
        f"{synced}...{head}", "--", *repo.pathspecs(), check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return None
    return [p for p in (repo.store_path(path) for path in dict.fromkeys(done.stdout.split("\0")) if path) if p]


def _index(run: _Run, db_path: str | Path, synced: str | None, paths: list[str], reason: str = "") -> None:
    """Bring the index in step with the store files that changed since the last sync brought it in step (the
    commits between, whoever made them, and `paths`), then record HEAD as the commit it is in step with. An
    index that records none (new, or built by `seamless index`) is brought in step by a run over the whole store."""
    repo = run.repo
    head = git.head(repo.top)
    try:
        touched = _touched_since(repo, synced, head) if synced and head and Path(db_path).exists() else None
        if touched is None:
            summary = build.index_store(repo.root, db_path)
        elif paths or synced != head:  # new commits: their files, revisions and trailers
            summary = build.index_paths(repo.root, db_path, sorted({*touched, *paths}))
        else:
            return
        run.result.indexed = summary.files_changed + summary.files_deleted
        if head:
            database.set_meta_value(db_path, SYNCED_HEAD, head)
    except (sqlite3.DatabaseError, OSError, database.OtherStoreError) as e:
        done = reason + "; and" if reason else "the store is synced, but"
        raise SyncError(
            f"{done} the index at {db_path} could not be brought in step ({e}): run `seamless index "
            f"{repo.root} --db {db_path}`"
        ) from None
