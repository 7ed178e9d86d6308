"""The seed's write operations on a store: write (new, update in place, supersede), append, archive,
delete, note. The files first, then the index, for the files touched.

Every rule is the indexer's own: the text to be written is parsed and validated by `parse` and
`validate` exactly as an index run would, and any problem it would report refuses the write with
that problem's code. Writers on one store take turns through a lock on the store's folder and look at
their target again (on disk) once they hold it. In a store inside a git work tree, the files a write changed
are then committed alone (`commit`), before the index is brought in step, so the index reads the new commit too.
"""

import contextlib
import errno
import fcntl
import itertools
import json
import os
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from indexer import git
from indexer.edit import atomic
from indexer.edit.frontmatter_edit import MEMORY_ORDER, NOTE_ORDER, Document, EditError, FieldValue, new_text
from indexer.git.commit import Change, Committed, commit_leftover, commit_write
from indexer.index import build, database
from indexer.query import queries
from indexer.sqlite import sqlite3
from indexer.store import lazy_re, rules, timestamps
from indexer.store.parse import parse_bytes
from indexer.store.problems import Problem
from indexer.store.rules import ULID_TEXT
from indexer.store.settings import load_settings
from indexer.store.validate import memory_record, note_record
from indexer.store.walk import FolderFds

NAME_MAX = 200
PROJECT_MAX = 100
UNSAFE_PROJECT = lazy_re.compile(r"[/\\\x00-\x1f\x7f]|\A\.|\.\.")
COMMIT_ACTIONS = {"appended": "append", "archived": "archive"}  # a change's action as its commit names it


class WriteRefused(Exception):
    """A write that was not done, and why: `code` (the indexer's problem code where there is one) and a sentence."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class Written:
    """What a write did: the memory (or note) written, as the CLI's --json and the MCP tools give it."""

    id: str | None
    path: str
    project: str | None
    status: str
    action: str  # created, updated, superseded, appended, archived, deleted, noted
    name: str | None = None
    title: str | None = None
    superseded: str | None = None
    similar: list[dict] = field(default_factory=list)
    committed: Committed = field(default_factory=Committed)  # the commit it made, or why there is none
    hints: list[dict] = field(default_factory=list)  # the gardener's, for a memory written (never a refusal)

    def as_json(self) -> dict:
        out: dict[str, object] = {
            "id": self.id,
            "path": self.path,
            "project": self.project,
            "status": self.status,
            "action": self.action,
        }
        if self.title is not None:
            out["title"] = self.title
        else:
            out["name"] = self.name
        if self.superseded:
            out["superseded"] = self.superseded
        if self.action == "created":
            out["similar"] = self.similar
        if self.committed.commit:
            out["commit"] = self.committed.commit
        if self.committed.warning:
            out["warning"] = self.committed.warning
        if self.action in ("created", "updated", "superseded"):
            out["hints"] = self.hints
        return out


# Checking what the caller gave, before anything is read


def scope_of(project: str | None) -> str | None:
    """The scope a write lands in (None: global), refusing a missing or unsafe project."""
    if project is None or not project.strip():
        raise WriteRefused(
            "ambiguous-scope",
            "no project given: pass --project P (or set SEAMLESS_PROJECT); --project global writes a global memory",
        )
    if project != project.strip() or len(project) > PROJECT_MAX or UNSAFE_PROJECT.search(project):
        raise WriteRefused(
            "bad-project",
            f"project {project[:120]!r} is not a safe folder name (no /, \\, .., leading dot or control "
            f"characters; at most {PROJECT_MAX} characters)",
        )
    return rules.scope(project)


def within_session(scope: str | None, within: str | None, what: str | None = None) -> None:
    """Refuse a write to `scope` (None: global) by a session whose project is `within`: such a session writes only
    to its own project and to global (SPEC 8). `what` names the memory concerned, when the write names one."""
    if within is None or scope is None or scope == rules.scope(within):
        return
    concerned = f"{what} is in project {scope!r}" if what else f"project {scope!r} is another project"
    raise WriteRefused(
        "outside-session",
        f'{concerned}: this session writes only to its project {within!r} and to global (project "global"); '
        "nothing was written. Another project is written by a session of its own (`seamless mcp --project P`) "
        "or by `seamless write STORE --project P`",
    )


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise WriteRefused("missing-name", "name is required (kebab-case, like chroma-boot-race)")
    name = name.strip()
    if len(name) > NAME_MAX:
        raise WriteRefused("name-too-long", f"name is {len(name)} characters; at most {NAME_MAX}")
    if not rules.is_kebab_case(name):  # checked again by validate; here too, as it becomes a file name
        raise WriteRefused("name-not-kebab", f"name {name[:120]!r} is not kebab-case (like chroma-boot-race)")
    return name


def _check_tags(tags) -> list[str] | None:
    if tags is None:
        return None
    if isinstance(tags, str) or not isinstance(tags, list | tuple):
        raise WriteRefused("bad-tags", "tags must be a list of texts")
    for tag in tags:
        if not isinstance(tag, str):
            raise WriteRefused("bad-tags", f"a tag must be text, not a {type(tag).__name__} ({tag!r})")
        if not tag.strip():
            raise WriteRefused("bad-tags", "a tag is empty")
    return list(dict.fromkeys(tag.strip() for tag in tags))


def text_of(value: str | bytes | None, what: str) -> str | None:
    """A body or text as str, refusing bytes that are not UTF-8 (and text that holds undecodable bytes)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as e:
            raise WriteRefused("not-utf8", f"the {what} is not UTF-8 text (byte 0x{value[e.start]:02x})") from None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise WriteRefused("not-utf8", f"the {what} is not UTF-8 text") from None
    return value


def written_body(text: str) -> str:
    """A body as the indexer will read it back: LF line ends, no leading blank lines, a final newline."""
    text = text.replace("\r\n", "\n")
    if not text.strip():
        return ""
    # the closing `---` line is matched with `\s*$`: it takes the blank lines after it
    leading = re.match(r"\s*", text)
    assert leading is not None  # `\s*` matches any text, if only with the empty string
    text = text[leading.group().rfind("\n") + 1 :]
    return text if not text or text.endswith("\n") else text + "\n"


# The store and its index


class Session:
    """One write's view of the store, under its lock: settings, the index connection, files read and checked."""

    def __init__(self, root: Path, db_path: str | Path):
        self.root = Path(root)
        self.db_path = str(db_path)
        self.settings = load_settings(self.root)[0]
        self.max_bytes = self.settings["index.max_file_bytes"]
        self.conn: sqlite3.Connection | None = None

    def refresh(self, paths: list[str]) -> None:
        """Bring the index in step for `paths` (creating it when missing) and open it for reading;
        refuse an index built from another store."""
        try:
            if paths or not os.path.exists(self.db_path):
                self.sync(paths)
            self.conn = sqlite3.connect(self.db_path)
            database.check_store(self.conn, self.root, self.db_path)
        except database.OtherStoreError as e:
            raise WriteRefused("other-store", str(e)) from None
        except (sqlite3.DatabaseError, OSError) as e:
            raise WriteRefused("index-error", f"cannot update the index at {self.db_path}: {e}") from None

    def sync(self, paths: list[str], repo: git.Repo | None = None) -> None:
        """Bring the index in step for the files at `paths` (created, changed or deleted), in one transaction;
        `repo`: where the store sits in its work tree, when the caller knows (else git is asked)."""
        build.index_paths(self.root, self.db_path, paths, repo=repo)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def rows(self, sql: str, params=()) -> list[dict]:
        assert self.conn is not None  # every write calls refresh(), which opens it, before reading rows
        return queries.rows(self.conn, sql, params)

    def read(self, path: str) -> tuple[bytes, dict | None, list[Problem]]:
        """A memory file's bytes, its record as the indexer reads it (None on error) and its problems."""
        try:
            with FolderFds(str(self.root)) as folders:  # no symlink followed, in any part of the path
                data = folders.read(path, self.max_bytes + 1)
        except OSError as e:
            raise WriteRefused("unreadable", f"cannot read {path}: {e.strerror or e}") from None
        record, problems = memory_record(parse_bytes(path, data, self.max_bytes))
        return data, record, problems

    def check(self, path: str, data: bytes, expected: dict, before: Sequence[Problem] = (), note: bool = False) -> None:
        """Refuse `data` for `path` if the indexer would report a problem `before` did not have, or would read
        a field other than `expected`."""
        record, problems = (note_record if note else memory_record)(parse_bytes(path, data, self.max_bytes))
        had = {(p.severity, p.code) for p in before}
        new = [p for p in problems if (p.severity, p.code) not in had]
        if new:
            raise WriteRefused(new[0].code, new[0].message)
        if record is None:
            raise WriteRefused("not-read-back", f"{path} would not be indexed")
        for key, value in expected.items():
            if record[key] != value:
                raise WriteRefused(
                    "not-read-back", f"{key} would be read back as {record[key]!r}, not {value!r}; nothing was written"
                )

    def _variants(self, folder: str, stem: str):
        """`folder/stem.md`, then `folder/stem-2.md`, `-3` ..., each with whether it exists."""
        n = 1
        while True:
            path = f"{folder}/{stem}.md" if n == 1 else f"{folder}/{stem}-{n}.md"
            yield path, os.path.lexists(self.root / path)
            n += 1

    def free_path(self, folder: str, stem: str) -> str:
        """`folder/stem.md`, or the first `folder/stem-N.md` that is free."""
        return next(path for path, taken in self._variants(folder, stem) if not taken)

    def candidates(self, folder: str, stem: str) -> list[str]:
        """The files a write of `stem` may have made in `folder` before (the paths `free_path` hands out)."""
        return [path for path, _ in itertools.takewhile(lambda v: v[1], self._variants(folder, stem))]


@contextlib.contextmanager
def session(root: Path | str, db_path: str | Path):
    """Hold the store's write lock and yield a Session; refuse a missing or read-only store.

    The lock is a flock on the store's folder itself (no lock file in the store): released when the
    process ends, even by kill -9.
    """
    root = Path(root)
    if not root.is_dir():
        raise WriteRefused("no-store", f"no store at {root}: give the folder that holds memories/ and notes/")
    if not os.access(root, os.W_OK):
        raise WriteRefused("store-read-only", f"cannot write to the store at {root}: it is read-only")
    with store_lock(root):
        s = Session(root, db_path)
        try:
            yield s
        finally:
            s.close()


@contextlib.contextmanager
def store_lock(root: Path):
    """Hold the store's write lock (every writer of its files takes it: the write path, `seamless sync`)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _no_symlink(root: Path, path: str) -> None:
    """Refuse to write or delete the store file `path` when it, or a folder on its way, is a symlink
    (the store's root itself may be one: the user named it). Missing folders are made by the write."""
    folder, _, name = path.rpartition("/")
    try:
        with FolderFds(str(root)) as folders:
            if stat.S_ISLNK(os.lstat(name, dir_fd=folders.open(folder)).st_mode):
                raise OSError(errno.ELOOP, "a symlink")
    except FileNotFoundError:
        return
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise WriteRefused(
                "symlink-in-store",
                f"{path} or a folder on its way is a symlink (or not a folder): writes never go through one; "
                "replace it with a real folder",
            ) from None
        raise WriteRefused("unreadable", f"cannot open the folder of {path}: {e.strerror or e}") from None


def _write_file(root: Path, path: str, data: bytes, create: bool) -> None:
    """Write one store file atomically; a failure (a full disk) leaves the file as it was."""
    _no_symlink(root, path)
    target = root / path
    try:
        (atomic.create if create else atomic.replace)(target, data)
    except OSError as e:
        raise WriteRefused("write-failed", f"cannot write {target}: {e.strerror or e}; the file is unchanged") from None


def _leftover(s: Session, paths: list[str], change: Change, known: str = "update") -> Committed:
    """A retried write answers `unchanged` and writes nothing; but an earlier run of it that wrote these files and
    was killed before its commit left them uncommitted: that commit is made now (`commit.commit_leftover`)."""
    return commit_leftover(s.root, paths, change, bool(s.settings["git.commit"]), known, s.db_path)


def _index_after(s: Session, paths: list[str], change: Change) -> Committed:
    """Commit the files just written (in a git work tree), then bring the index in step with them."""
    committed = commit_write(s.root, paths, change, bool(s.settings["git.commit"]), s.db_path)
    try:
        s.sync(paths, committed.repo)
    except (sqlite3.DatabaseError, OSError, database.OtherStoreError) as e:
        raise WriteRefused(
            "index-error",
            f"the files were written, but the index at {s.db_path} could not be updated ({e}): "
            f"run `seamless index {s.root} --db {s.db_path}`",
        ) from None
    return committed


# Finding X: an id, or a name in a project


def _describe(row: dict) -> str:
    return f"{row['id']} {row['name']} ({row['project'] or 'global'}, {row['status']})"


def resolve(s: Session, ref: str, project: str | None, active: bool = True) -> dict:
    """The index row of the memory `ref` (an id, or an active memory's name), refusing unknown or ambiguous ones."""
    if not isinstance(ref, str) or not ref.strip():
        raise WriteRefused("unknown-memory", "give the memory's id or name")
    ref = ref.strip()
    if ULID_TEXT.match(ref.upper()):
        rows = s.rows("select * from memories where id = ?", (ref.upper(),)) or _set_aside(s, ref.upper())
        if not rows:
            raise WriteRefused(
                "unknown-memory",
                f"no memory has the id {ref} in the index at {s.db_path} (a file written by hand since the last "
                f"`seamless index {s.root}` is not in it yet)",
            )
        row = rows[0]
    else:
        rows = s.rows("select * from memories where name = ? and status = 'active'", (ref,))
        if project is not None:
            scope = rules.scope(project)
            rows = [r for r in rows if r["project"] == scope] or [r for r in rows if r["project"] is None]
        if not rows:
            raise WriteRefused("unknown-memory", _unknown(s, ref, project))
        if len(rows) > 1:
            raise WriteRefused(
                "ambiguous-memory",
                f"{len(rows)} active memories are named {ref!r}: "
                + "; ".join(map(_describe, rows))
                + "; give the id, or --project",
            )
        row = rows[0]
    if active and row["status"] != "active":
        successor = f", replaced by {row['superseded_by']}" if row["superseded_by"] else ""
        raise WriteRefused("not-active", f"{_describe(row)} is no longer active{successor}: act on the active memory")
    return row


def _indexed_paths(s: Session, ref: str) -> list[str]:
    """The files of the memories `ref` may name (an id, or a name) in the index as it is, before `refresh`."""
    if not isinstance(ref, str) or not ref.strip() or not os.path.isfile(s.db_path):
        return []
    ref = ref.strip()
    try:
        with contextlib.closing(sqlite3.connect(s.db_path)) as conn:
            query = "select path from memories where id = ? or name = ?"
            return [row[0] for row in conn.execute(query, (ref.upper(), ref))]
    except sqlite3.DatabaseError:  # not an index: `refresh` says so
        return []


def _set_aside(s: Session, memory_id: str) -> list[dict]:
    """The memory `memory_id` where the index set its file aside for a rule across files (one name given twice in
    a project, as two hosts' writes of one name leave it: SPEC 10 rule 4), read from that file: archiving or
    superseding it by its id is how a person settles that."""
    paths = s.rows(
        "select distinct path from problems where severity = 'error' and code in ('duplicate-name', 'duplicate-id')"
    )
    for path in (row["path"] for row in paths):
        try:
            _, record, _ = s.read(path)
        except WriteRefused:
            continue
        if record is not None and record["id"] == memory_id:
            return [record | {"path": path}]
    return []


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # base32 without I, L, O and U


def new_id() -> str:
    """A new memory's or note's id: a ULID (the time in ms, 48 bits, then 80 random bits, as 26 characters of
    Crockford's base32). Not python-ulid's: importing it reads its own version from the installed packages'
    metadata (importlib.metadata), 10-25 ms of every write; the tests check these ids with it."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    return "".join(CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def _unknown(s: Session, name: str, project: str | None) -> str:
    where = f" in project {project!r} or global" if project is not None else ""
    inactive = s.rows("select * from memories where name = ? and status != 'active'", (name,))
    names = [r["name"] for r in s.rows("select distinct name from memories where status = 'active'")]
    import difflib  # here: only a name not found asks

    close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
    message = f"no active memory is named {name!r}{where}"
    if inactive:
        message += "; inactive ones: " + "; ".join(map(_describe, inactive[:5]))
    if close:
        message += "; did you mean: " + ", ".join(close)
    return message


def _on_disk(s: Session, row: dict, active: bool) -> tuple[bytes, dict, list[Problem]]:
    """X's file as it is now (checked again under the lock): its bytes, record and problems."""
    data, record, problems = s.read(row["path"])
    if record is None or record["id"] != row["id"]:
        raise WriteRefused(
            "index-behind",
            f"{row['path']} no longer holds memory {row['id']}: run `seamless index {s.root} --db {s.db_path}`",
        )
    if active and record["status"] != "active":
        raise WriteRefused("not-active", f"{_describe(record)} is no longer active")
    return data, record, problems


def _same_name(s: Session, scope: str | None, name: str, folder: str, exclude: str | None) -> list[tuple]:
    """The active memories of `scope` named `name`, as (path, bytes, record, problems), from their files:
    those the index knows and those at the paths a write of `name` would have used."""
    paths = [
        r["path"]
        for r in s.rows(
            "select path from memories where name = ? and project is ? and status = 'active'", (name, scope)
        )
    ]
    paths += [p for p in s.candidates(folder, name) if p not in paths]
    found = []
    for path in paths:
        try:
            data, record, problems = s.read(path)
        except WriteRefused:
            continue
        if (
            record
            and record["status"] == "active"
            and record["project"] == scope
            and record["name"] == name
            and record["id"] != exclude
        ):
            found.append((path, data, record, problems))
    return found


# A retried write is not applied twice (SPEC 11)


@dataclass
class Content:
    """What a write says a memory holds; None for tags or body: "keep what it has"."""

    kind: str
    description: str
    tags: list[str] | None
    body: str | None  # as the write path writes it (`_body`): LF line ends, one final newline

    @classmethod
    def of(cls, kind: str, description: str, tags: list[str] | None, body: str | None) -> "Content":
        """What a write of these values holds: the one normalisation of `write_memory` (and of the import)."""
        description = description.strip()
        if "\n" not in description:
            description = rules.fold_description(description)
        tags = None if tags is None else list(dict.fromkeys(tag.strip() for tag in tags))
        kind = kind.strip() if isinstance(kind, str) else kind  # not text: refused by the indexer's rules, as written
        return cls(kind, description, tags, None if body is None else written_body(body))

    def equals(self, record: dict) -> bool:
        """Whether a memory `record` (from its file) already holds this: tags as a set, the body normalised."""
        return (
            record["kind"] == self.kind
            and record["description"] == self.description
            and (self.tags is None or set(json.loads(record["tags"])) == set(self.tags))
            and (self.body is None or record["body"] == self.body)
        )


SUPERSEDED_PAIRS = (
    "select old.id as old_id, old.name as old_name, old.path as old_path, new.id, new.path "
    "from memories as old join memories as new on new.id = old.superseded_by"
)


def _supersede_done(s: Session, ref: str, project: str | None, scope: str | None, name: str, content: Content):
    """The answer to a retried supersede of `ref`, or None: when its replacement, an active memory named `name` in
    `scope` that holds `content` on disk, has already superseded `ref` (which may have given it its own name)."""
    if not isinstance(ref, str) or not ref.strip():
        return None
    ref = ref.strip()
    if ULID_TEXT.match(ref.upper()):
        pairs = s.rows(f"{SUPERSEDED_PAIRS} where old.id = ?", (ref.upper(),))
    else:  # a name: the old memory's (inactive now, or the name went over to its replacement), looked up as resolve does
        where = f"{SUPERSEDED_PAIRS} where old.name = ? and old.project is ?"
        pairs = s.rows(where, (ref, rules.scope(project))) or s.rows(where, (ref, None))
        now_named = s.rows(
            "select id from memories where name = ? and status = 'active' and (project is ? or project is null)",
            (ref, rules.scope(project)),
        )
        # the name means another active memory now: superseding it is a new write, not a retry
        pairs = [p for p in pairs if all(r["id"] == p["id"] for r in now_named)]
    for pair in pairs:
        try:
            _, record, _ = s.read(pair["path"])
        except WriteRefused:
            continue
        if (
            record
            and (record["id"], record["status"], record["project"], record["name"])
            == (pair["id"], "active", scope, name)
            and content.equals(record)
        ):
            change = Change(
                "supersede", name, record["id"], scope, supersedes=pair["old_id"], old_name=pair["old_name"]
            )
            return Written(
                record["id"],
                pair["path"],
                scope,
                "active",
                "unchanged",
                name=name,
                superseded=pair["old_id"],
                committed=_leftover(s, [pair["path"], pair["old_path"]], change, known="supersede"),
            )
    return None


# The operations


def write_memory(
    root: Path | str,
    db_path: str | Path,
    *,
    project: str | None,
    kind: str,
    name: str,
    description: str,
    tags: list[str] | None = None,
    supersedes: str | None = None,
    session_id: str | None = None,
    model: str | None = None,
    body: str | bytes | None = None,
    within: str | None = None,
) -> Written:
    """A new memory; or the active memory of `project` named `name` updated in place; with `supersedes`,
    that replacement written first and then the memory it replaces stamped invalid. With `within` (a session's
    project), a write to, or a supersede of, any project but that one and global is refused."""
    scope = scope_of(project)
    within_session(scope, within)
    name = _check_name(name)
    tags = _check_tags(tags)
    body = text_of(body, "body")
    if not isinstance(description, str):
        raise WriteRefused("missing-description", "description is required: the one line every index shows")
    content = Content.of(kind, description, tags, body)
    kind, description = content.kind, content.description
    folder = f"memories/{scope or '_global'}"
    with session(root, db_path) as s:
        # and X's file: a supersede killed after stamping it, before the index followed, left the index behind
        s.refresh(s.candidates(folder, name) + (_indexed_paths(s, supersedes) if supersedes is not None else []))
        old = old_data = old_problems = None
        if supersedes is not None:
            retried = _supersede_done(s, supersedes, project, scope, name, content)
            if retried:  # a retry of a supersede that was done: answered before anything is written
                return retried
            old = resolve(s, supersedes, project)
            within_session(old["project"], within, _describe(old))
            old_data, _, old_problems = _on_disk(s, old, active=True)
        existing = _same_name(s, scope, name, folder, old["id"] if old else None)
        if len(existing) > 1:
            raise WriteRefused(
                "duplicate-name",
                f"{len(existing)} active memories of {scope or 'global'} are named {name!r}: "
                + ", ".join(e[0] for e in existing)
                + "; supersede or archive all but one first",
            )
        if existing and not old and content.equals(existing[0][2]):  # a retried write: answered before any write
            path, record = existing[0][0], existing[0][2]
            change = Change("write", name, record["id"], scope, session=record["source_session"], model=record["model"])
            committed = _leftover(s, [path], change)
            return Written(record["id"], path, scope, "active", "unchanged", name=name, committed=committed)
        now = timestamps.now()
        if existing:
            path, data, record, problems = existing[0]
            fields: dict[str, FieldValue] = {
                "kind": kind,
                "description": description,
                "updated": now,
                **({"supersedes": old["id"]} if old else {}),
                **({"tags": tags} if tags is not None else {}),
                **({"source_session": session_id} if session_id is not None else {}),
                **({"model": model} if model is not None else {}),
            }
            new_data = _edited(data, fields, written_body(body) if body is not None else None)
            expected = {k: v for k, v in fields.items() if k != "tags"} | {"id": record["id"]}
            if tags is not None:
                expected["tags"] = json.dumps(tags, ensure_ascii=False)
            if body is not None:
                expected["body"] = written_body(body)
            s.check(path, new_data, expected, problems)
            memory_id, valid_from, created = record["id"], record["valid_from"], False
        else:
            memory_id = new_id()
            if s.rows("select 1 from memories where id = ?", (memory_id,)):  # never in practice: 80 random bits
                raise WriteRefused("duplicate-id", f"id {memory_id} is taken; try again")
            fields = {
                "id": memory_id,
                "kind": kind,
                "name": name,
                "description": description,
                "project": scope or "",
                "created": now,
                "updated": now,
                "valid_from": now,
                "invalid_at": None,
                "superseded_by": None,
                **({"supersedes": old["id"]} if old else {}),  # both ends of a supersession name each other
                "source_session": session_id,
                "model": model,
                "tags": tags or [],
            }
            path = s.free_path(folder, name)
            new_data = new_text(fields, written_body(body or ""), MEMORY_ORDER).encode("utf-8")
            expected = {k: v for k, v in fields.items() if k != "tags"} | {
                "project": scope,
                "tags": json.dumps(tags or [], ensure_ascii=False),
                "body": written_body(body or ""),
            }
            s.check(path, new_data, expected)
            valid_from, created = now, True
        stamped = None
        if old:
            assert old_data is not None  # read together with `old` above
            stamped = _edited(old_data, {"invalid_at": valid_from, "superseded_by": memory_id}, None)
            s.check(old["path"], stamped, {"invalid_at": valid_from, "superseded_by": memory_id}, old_problems)
        _write_file(s.root, path, new_data, create=created)
        atomic.crash_point("replacement")
        if old:
            assert stamped is not None  # made above whenever there is an `old`
            try:
                _write_file(s.root, old["path"], stamped, create=False)
            except WriteRefused as e:
                raise WriteRefused(
                    e.code,
                    f"the replacement {memory_id} was written to {path}, but {old['id']} could not be stamped "
                    f"({e.message}): run the same command again to complete the supersede",
                ) from None
            atomic.crash_point("stamped")
        action = "supersede" if old else "write" if created else "update"
        change = Change(action, name, memory_id, scope, session=session_id, model=model)
        if old:
            change.supersedes, change.old_name = old["id"], old["name"]
        committed = _index_after(s, [path] + ([old["path"]] if old else []), change)
        atomic.crash_point("indexed")
        similar = []
        if created and not old:
            from indexer.query.similar import similar_memories

            similar = similar_memories(s.conn, memory_id)
        from indexer.query.gardener import hints

        return Written(
            memory_id,
            path,
            scope,
            "active",
            "superseded" if old else "created" if created else "updated",
            name=name,
            superseded=old["id"] if old else None,
            similar=similar,
            committed=committed,
            hints=hints(s.conn, memory_id),
        )


def _edited(data: bytes, fields: dict, body: str | None) -> bytes:
    try:
        doc = Document.from_bytes(data)
        for key, value in fields.items():
            doc.set(key, value, MEMORY_ORDER)
    except (EditError, UnicodeDecodeError) as e:
        raise WriteRefused("cannot-edit", f"cannot edit this file in place: {e}") from None
    if body is not None:
        doc.body = body
    return doc.to_bytes()


def _change(
    root, db_path, memory: str, project: str | None, action: str, fields, body_of=None, within: str | None = None
) -> Written:
    """Edit one existing active memory: `fields(record)` are the frontmatter changes, `body_of(body)` the new body."""
    with session(root, db_path) as s:
        s.refresh([])
        row = resolve(s, memory, project)
        within_session(row["project"], within, _describe(row))
        data, record, problems = _on_disk(s, row, active=True)
        changes = fields(record)
        body = body_of(record["body"]) if body_of else None
        new_data = _edited(data, changes, body)
        s.check(row["path"], new_data, changes | ({"body": body} if body is not None else {}), problems)
        _write_file(s.root, row["path"], new_data, create=False)
        change = Change(COMMIT_ACTIONS[action], record["name"], row["id"], record["project"])
        committed = _index_after(s, [row["path"]], change)
        status = rules.status(changes.get("invalid_at", record["invalid_at"]), record["superseded_by"])
        return Written(
            row["id"], row["path"], record["project"], status, action, name=record["name"], committed=committed
        )


def append_memory(
    root, db_path, memory: str, text: str | bytes, project: str | None = None, within: str | None = None
) -> Written:
    """Add `text` to the end of an active memory's body; `updated` = now, id kept."""
    decoded = text_of(text, "text")
    if decoded is None or not decoded.strip():
        raise WriteRefused("empty-text", "nothing to append: the text is empty")
    addition = written_body(decoded).strip("\n")

    def body_of(body: str) -> str:
        return written_body((body.rstrip("\n") + "\n\n" if body.strip() else "") + addition)

    return _change(root, db_path, memory, project, "appended", lambda r: {"updated": timestamps.now()}, body_of, within)


def archive_memory(root, db_path, memory: str, project: str | None = None, within: str | None = None) -> Written:
    """Mark an active memory invalid from now, with no successor (`updated` unchanged)."""
    return _change(
        root, db_path, memory, project, "archived", lambda r: {"invalid_at": timestamps.now()}, within=within
    )


def delete_memory(root, db_path, memory: str, project: str | None = None, within: str | None = None) -> Written:
    """Remove a memory's file (for what was never true), refused when another memory's superseded_by names it."""
    with session(root, db_path) as s:
        s.refresh([])
        row = resolve(s, memory, project, active=False)
        within_session(row["project"], within, _describe(row))
        _on_disk(s, row, active=False)
        pointing = s.rows("select * from memories where superseded_by = ?", (row["id"],))
        if pointing:
            raise WriteRefused(
                "breaks-chain",
                f"{_describe(row)} replaced " + "; ".join(map(_describe, pointing)) + ": deleting it would break "
                "that chain. Archive it, or supersede it, instead",
            )
        _no_symlink(s.root, row["path"])
        try:
            atomic.remove(s.root / row["path"])
        except OSError as e:
            raise WriteRefused("write-failed", f"cannot delete {row['path']}: {e.strerror or e}") from None
        committed = _index_after(s, [row["path"]], Change("delete", row["name"], row["id"], row["project"]))
        return Written(
            row["id"], row["path"], row["project"], "deleted", "deleted", name=row["name"], committed=committed
        )


def slug(title: str) -> str:
    """A note's file name from its title: lower-case words joined by `-` (`note` when none are left)."""
    words = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return words[:80].rstrip("-") or "note"


def write_note(
    root,
    db_path,
    *,
    project: str | None,
    title: str,
    tags: list[str] | None = None,
    body: str | bytes | None = None,
    within: str | None = None,
) -> Written:
    """A new note under `notes/<scope>/`, its file named after its title (with `within`: only in that project or
    global)."""
    scope = scope_of(project)
    within_session(scope, within)
    tags = _check_tags(tags)
    body = written_body(text_of(body, "body") or "")
    if not isinstance(title, str) or not title.strip() or "\n" in title.strip():
        raise WriteRefused("bad-title", "a note needs a title on one line")
    title = title.strip()
    with session(root, db_path) as s:
        s.refresh([])
        for path in s.candidates(f"notes/{scope or '_global'}", slug(title)):  # a retried note_write: answered first
            record, _ = _note_on_disk(s, path)
            if (
                record
                and (record["title"], record["project"], record["body"]) == (title, scope, body)
                and set(json.loads(record["tags"])) == set(tags or [])
            ):
                committed = _leftover(s, [path], Change("note", title, record["id"], scope))
                return Written(record["id"], path, scope, "active", "unchanged", title=title, committed=committed)
        now, note_id = timestamps.now(), new_id()
        fields: dict[str, FieldValue] = {
            "id": note_id,
            "title": title,
            "project": scope or "",
            "created": now,
            "updated": now,
            "tags": tags or [],
        }
        path = s.free_path(f"notes/{scope or '_global'}", slug(title))
        data = new_text(fields, body, NOTE_ORDER).encode("utf-8")
        expected = {"id": note_id, "title": title, "project": scope, "created": now, "body": body}
        s.check(path, data, expected | {"tags": json.dumps(tags or [], ensure_ascii=False)}, note=True)
        _write_file(s.root, path, data, create=True)
        atomic.crash_point("replacement")
        committed = _index_after(s, [path], Change("note", title, note_id, scope))
        return Written(note_id, path, scope, "active", "noted", title=title, committed=committed)


def _note_on_disk(s: Session, path: str) -> tuple[dict | None, list[Problem]]:
    """The note record of the file at `path` as the indexer reads it (None: unreadable, or not a note), and its
    problems."""
    try:
        with FolderFds(str(s.root)) as folders:
            data = folders.read(path, s.max_bytes + 1)
    except OSError:
        return None, []
    return note_record(parse_bytes(path, data, s.max_bytes))


def update_note(root, db_path, path: str, body: str | bytes) -> Written:
    """Replace the body of the note at store path `path` (`updated` = now; every other byte kept), or answer
    `unchanged` when it holds that body already."""
    body = written_body(text_of(body, "body") or "")
    with session(root, db_path) as s:
        s.refresh([])
        record, problems = _note_on_disk(s, path) if path.startswith("notes/") else (None, [])
        if record is None:
            raise WriteRefused("unknown-note", f"no note at {path} that the indexer can read")
        if record["body"] == body:
            committed = _leftover(s, [path], Change("note", record["title"], record["id"], record["project"]))
            return Written(
                record["id"], path, record["project"], "active", "unchanged", title=record["title"], committed=committed
            )
        try:
            with FolderFds(str(s.root)) as folders:
                doc = Document.from_bytes(folders.read(path, s.max_bytes + 1))
            doc.set("updated", timestamps.now(), NOTE_ORDER)
        except (OSError, EditError, UnicodeDecodeError) as e:
            raise WriteRefused("cannot-edit", f"cannot edit {path} in place: {e}") from None
        doc.body = body
        data = doc.to_bytes()
        s.check(path, data, {"title": record["title"], "body": body}, problems, note=True)
        _write_file(s.root, path, data, create=False)
        atomic.crash_point("replacement")
        committed = _index_after(s, [path], Change("update", record["title"], record["id"], record["project"]))
        return Written(
            record["id"], path, record["project"], "active", "updated", title=record["title"], committed=committed
        )
