"""A memory's or note's revisions (from the index), and its file as it stood at a commit or a time (from git, in the
store the index was built from), SPEC section 10. X is an id (deleted since too), a store path, or a memory's name.
"""

from dataclasses import dataclass
from pathlib import Path

from indexer import git
from indexer.git import history
from indexer.index import database
from indexer.query.queries import rows
from indexer.sql.canned import REVISIONS, REVISIONS_BY_PATH
from indexer.store import timestamps
from indexer.store.rules import ULID_TEXT
from indexer.store.walk import FolderFds


class RevisionError(LookupError):
    """X cannot be found, or has no file at the time asked: the message is one line that says why."""


@dataclass(slots=True)
class Target:
    """The file X names: its id (None for a note without one), its path now (or last), and what it is."""

    id: str | None
    path: str
    label: str  # how messages name it: `name (ID)`, a note's title or its path
    in_store: bool  # False: deleted since (known from its revisions alone)


def find(conn, x: str, project: str | None = None) -> Target:
    """The memory or note `x` names (an id, a store path, or a memory's name; `project` narrows a name)."""
    x = (x or "").strip()
    if not x:
        raise RevisionError("give a memory's id or name, or a note's id or path")
    if ULID_TEXT.match(upper := x.upper()):
        if found := _one(conn, "id = ?", (upper,)):
            return found
        last = rows(
            conn, 'SELECT path FROM revisions WHERE id = ? ORDER BY generation DESC, "commit" LIMIT 1', (upper,)
        )
        if last:
            return Target(upper, last[0]["path"], upper, in_store=False)
        raise RevisionError(f"no memory or note has the id {upper}, now or in the store's history")
    if "/" in x or x.endswith(".md"):
        if found := _one(conn, "path = ?", (x,)):
            return found
        if rows(conn, "SELECT 1 FROM revisions WHERE path = ? LIMIT 1", (x,)):
            return Target(None, x, x, in_store=False)
        raise RevisionError(f"no memory or note is at {x}, now or in the store's history")
    return _named(conn, x, project)


def _one(conn, where: str, params: tuple) -> Target | None:
    for table, label in (("memories", "name || ' (' || id || ')'"), ("notes", "coalesce(title, path)")):
        if found := rows(conn, f"SELECT id, path, {label} AS label FROM {table} WHERE {where}", params):
            return Target(found[0]["id"], found[0]["path"], found[0]["label"], in_store=True)
    return None


def _named(conn, name: str, project: str | None) -> Target:
    """The memory called `name`: the active one, else the newest; one project's when several use the name."""
    named = (
        "SELECT id, path, name, project FROM memories WHERE name = ? ORDER BY status = 'active' DESC, updated DESC, id"
    )
    found = rows(conn, named, (name,))
    if project is not None:
        scope = None if project in ("", "global") else project
        found = [row for row in found if row["project"] == scope]
    if not found:
        where = f" in project {project!r}" if project is not None else ""
        raise RevisionError(f"no memory is named {name!r}{where}: give its id (a deleted one too), or a note's path")
    projects = {row["project"] for row in found}
    if len(projects) > 1:
        named = ", ".join(sorted(p or "global" for p in projects))
        raise RevisionError(f"the name {name!r} is used in several projects: {named}; choose one with --project")
    row = found[0]
    return Target(row["id"], row["path"], f"{row['name']} ({row['id']})", in_store=True)


def revisions(conn, target: Target) -> list[dict]:
    """X's revisions, oldest first: commit, committed_at, author, message, change, path, old_path, blob."""
    if target.id is not None:
        return rows(conn, REVISIONS, {"id": target.id})
    return rows(conn, REVISIONS_BY_PATH, {"path": target.path})


def store_root(conn) -> Path:
    """The store the index was built from, which must still be there."""
    root = database.store_of(conn)
    if root is None or not Path(root).is_dir():
        raise RevisionError(
            f"the store this index was built from ({root or 'unknown'}) is not there: run `seamless index STORE` again"
        )
    return Path(root)


def file_at(conn, target: Target, at: str | None = None) -> bytes:
    """X's file as it stands now (`at` None), or as it stood at `at`: a commit (anything git names one by) or an
    ISO 8601 time, following X through renames and moves."""
    root = store_root(conn)
    if at is None:
        if not target.in_store:
            raise RevisionError(f"{target.label} is not in the store now (deleted): give --at to see it as it was")
        # where the index has it, else where its last revision put it (moved since the index was brought in step)
        paths = dict.fromkeys([target.path, *(r["path"] for r in reversed(revisions(conn, target)))])
        with FolderFds(str(root)) as folders:
            for path in paths:
                try:
                    return folders.read(path, 1 << 31)
                except FileNotFoundError:
                    continue
                except OSError as e:
                    raise RevisionError(f"cannot read {path}: {e.strerror or e}") from None
        raise RevisionError(f"{target.label} is not at {target.path} any more: run `seamless index {root}`")
    repo = git.repo(root)
    if repo is None or repo.head is None:
        raise RevisionError(f"the store at {root} is not in a git work tree with commits: it has no earlier versions")
    known = revisions(conn, target)
    if not known:
        raise RevisionError(f"{target.label} has no revisions: its file was never committed")
    revision = _revision_at(root, known, at)
    if revision is None:
        first = known[0]
        raise RevisionError(
            f"{target.label} did not exist yet at {at}: its first revision is {first['commit'][:12]} "
            f"({first['committed_at']})"
        )
    if revision["change"] == "deleted":
        raise RevisionError(
            f"{target.label} was deleted at {at}: by {revision['commit'][:12]} ({revision['committed_at']})"
        )
    ((_, data),) = list(history.read_objects(root, [revision["blob"]]))
    if data is None:
        raise RevisionError(f"git no longer has {revision['path']} as of {revision['commit'][:12]}")
    return data


def _revision_at(root: Path, known: list[dict], at: str) -> dict | None:
    """The last of `known` at or before `at`: in the commit's own history, or committed by the time."""
    commit = history.commit_named(root, at)
    if commit:
        ancestors = history.ancestors(root, commit)
        earlier = [r for r in known if r["commit"] in ancestors]
    else:
        try:
            moment = timestamps.normalize(at)
        except ValueError:
            raise RevisionError(
                f"--at {at!r} is neither a commit of the store's repository nor an ISO 8601 time"
            ) from None
        earlier = [r for r in known if r["committed_at"] <= moment]
    return earlier[-1] if earlier else None
