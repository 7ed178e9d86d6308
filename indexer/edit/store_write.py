"""The seed's write operations on a store (SPEC section 8): write (new, update in place, supersede), append, archive,
delete, note. Each checks what it was given (`write_input`), then, in a session under the store's lock (`session`),
finds its target (`references`), writes the files, commits them and brings the index in step (`Session.commit`).
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from indexer.edit import atomic, references
from indexer.edit.frontmatter_edit import MEMORY_ORDER, NOTE_ORDER, Document, EditError, FieldValue, new_text
from indexer.edit.ids import new_id
from indexer.edit.references import describe
from indexer.edit.session import OnDisk, Session, session
from indexer.edit.write_input import (
    Content,
    WriteRefused,
    checked_name,
    checked_tags,
    known_project,
    project_scope,
    text_of,
    written_body,
)
from indexer.gardener import hints
from indexer.git.commit import Change, Committed
from indexer.query.similar import similar_memories
from indexer.store import rules, timestamps
from indexer.store.rules import ULID_TEXT

COMMIT_ACTIONS = {"appended": "append", "archived": "archive"}  # a change's action as its commit names it


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
    superseded: str | None = None  # a supersede's old memory: its id, name and path
    superseded_name: str | None = None
    superseded_path: str | None = None
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
        if self.superseded:  # the memory written is `id`; the one it superseded, these
            out["superseded"] = self.superseded
            out["superseded_name"] = self.superseded_name
            out["superseded_path"] = self.superseded_path
        if self.action == "created":
            out["similar"] = self.similar
        if self.committed.commit:
            out["commit"] = self.committed.commit
        if self.committed.warning:
            out["warning"] = self.committed.warning
        if self.committed.setup:
            out["git_setup"] = self.committed.setup.as_json()
        if self.action in ("created", "updated", "superseded"):
            out["hints"] = self.hints
        return out


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
    new_project: bool = False,
) -> Written:
    """A new memory; or the active memory of `project` named `name` updated in place; with `supersedes`,
    that replacement written first and then the memory it replaces stamped invalid. With `within` (a session's
    project), a write to, or a supersede of, any project but that one and global is refused; a project the store
    does not have, unless `new_project`."""
    scope = project_scope(project, within)
    name = checked_name(name)
    content = Content.given(kind, description, tags, body)
    folder = f"memories/{scope or '_global'}"
    with session(root, db_path) as s:
        # and X's file: a supersede killed after stamping it, before the index followed, left the index behind
        named = references.indexed_paths(s, supersedes) if supersedes is not None else []
        s.open_index(s.candidates(folder, name) + named)
        known_project(s.conn, scope, new_project)
        old = None
        if supersedes is not None:
            retried = _supersede_done(s, supersedes, project, scope, name, content)
            if retried:  # a retry of a supersede that was done: answered before anything is written
                return retried
            old = _Superseded(*references.target(s, supersedes, project, within))  # X, found again on disk
        existing = _named(s, scope, name, folder, old)
        if existing and existing.record and not old and content.equals(existing.record):  # a retry: nothing written
            return _unchanged(s, existing, scope)
        now = timestamps.now()
        meta = {"source_session": session_id, "model": model}
        if existing:
            new = _updated(s, existing, content, now, old, meta)
        else:
            new = _created(s, folder, scope, name, content, now, old, meta)
        _write(s, new, old)
        action = "supersede" if old else "write" if new.created else "update"
        change = Change(action, name, new.id, scope, session=session_id, model=model)
        if old:
            change.supersedes, change.old_name = old.row["id"], old.row["name"]
        committed = s.commit([new.path] + ([old.row["path"]] if old else []), change)
        atomic.crash_point("indexed")
        return _written_memory(s, new, scope, name, old, committed)


@dataclass
class _Draft:
    """A memory file about to be written: where, its bytes, its id, its valid_from, and whether it is new."""

    path: str
    data: bytes
    id: str
    valid_from: str
    created: bool


@dataclass
class _Superseded:
    """The memory a supersede replaces: its index row, its file as it is now, and that file stamped invalid."""

    row: dict
    file: OnDisk
    stamped: bytes = b""


def _named(s: Session, scope: str | None, name: str, folder: str, old: _Superseded | None) -> OnDisk | None:
    """The active memory of `scope` named `name` (not the one superseded), which a write updates in place; refused
    when there are several."""
    existing = references.same_name(s, scope, name, folder, old.row["id"] if old else None)
    if len(existing) > 1:
        raise WriteRefused(
            "duplicate-name",
            f"{len(existing)} active memories of {scope or 'global'} are named {name!r}: "
            + ", ".join(e.path for e in existing)
            + "; supersede or archive all but one first",
        )
    return existing[0] if existing else None


def _unchanged(s: Session, existing: OnDisk, scope: str | None) -> Written:
    """The answer to a retried write: the memory as it is, and the commit a killed earlier run did not make."""
    record = existing.record
    assert record is not None  # same_name gives only files the indexer reads
    name = record["name"]
    change = Change("write", name, record["id"], scope, session=record["source_session"], model=record["model"])
    committed = s.commit_leftover([existing.path], change)
    return Written(record["id"], existing.path, scope, "active", "unchanged", name=name, committed=committed)


def _updated(s: Session, existing: OnDisk, content: Content, now: str, old: _Superseded | None, meta: dict) -> _Draft:
    """The active memory of that name with the write's fields and body: same id, file, created and valid_from."""
    record = existing.record
    assert record is not None  # same_name gives only files the indexer reads
    fields: dict[str, FieldValue] = {
        "kind": content.kind,
        "description": content.description,
        "updated": now,
        **({"supersedes": old.row["id"]} if old else {}),
        **({"tags": content.tags} if content.tags is not None else {}),
        **{key: value for key, value in meta.items() if value is not None},
    }
    data = edited(existing.data, fields, content.body)
    expected = {k: v for k, v in fields.items() if k != "tags"} | {"id": record["id"]}
    if content.tags is not None:
        expected["tags"] = json.dumps(content.tags, ensure_ascii=False)
    if content.body is not None:
        expected["body"] = content.body
    s.check(existing.path, data, expected, existing.problems)
    return _Draft(existing.path, data, record["id"], record["valid_from"], created=False)


def _created(
    s: Session,
    folder: str,
    scope: str | None,
    name: str,
    content: Content,
    now: str,
    old: _Superseded | None,
    meta: dict,
) -> _Draft:
    """A new memory at a free path of `folder`, with a new id; all times now."""
    memory_id = new_id()
    if s.rows("select 1 from memories where id = ?", (memory_id,)):  # never in practice: 80 random bits
        raise WriteRefused("duplicate-id", f"id {memory_id} is taken; try again")
    body = content.body or ""
    fields: dict[str, FieldValue] = {
        "id": memory_id,
        "kind": content.kind,
        "name": name,
        "description": content.description,
        "project": scope or "",
        "created": now,
        "updated": now,
        "valid_from": now,
        "invalid_at": None,
        "superseded_by": None,
        **({"supersedes": old.row["id"]} if old else {}),  # both ends of a supersession name each other
        **meta,
        "tags": content.tags or [],
    }
    path = s.free_path(folder, name)
    data = new_text(fields, body, MEMORY_ORDER).encode("utf-8")
    expected = {k: v for k, v in fields.items() if k != "tags"} | {
        "project": scope,
        "tags": json.dumps(content.tags or [], ensure_ascii=False),
        "body": body,
    }
    s.check(path, data, expected)
    return _Draft(path, data, memory_id, now, created=True)


def _write(s: Session, new: _Draft, old: _Superseded | None) -> None:
    """Write the memory, then stamp the one it supersedes: invalid from the replacement's valid_from, replaced by
    it. Both are checked before either is written; killed in between, the same command completes it."""
    if old:
        stamp = {"invalid_at": new.valid_from, "superseded_by": new.id}
        old.stamped = edited(old.file.data, stamp, None)
        s.check(old.row["path"], old.stamped, stamp, old.file.problems)
    s.write(new.path, new.data, create=new.created)
    atomic.crash_point("replacement")
    if old:
        try:
            s.write(old.row["path"], old.stamped, create=False)
        except WriteRefused as e:
            raise WriteRefused(
                e.code,
                f"the replacement {new.id} was written to {new.path}, but {old.row['id']} could not be stamped "
                f"({e.message}): run the same command again to complete the supersede",
            ) from None
        atomic.crash_point("stamped")


def _written_memory(
    s: Session, new: _Draft, scope: str | None, name: str, old: _Superseded | None, committed: Committed
) -> Written:
    """What a memory write did, with the similar memories of a new one and the gardener's hints."""
    similar = []
    if new.created and not old:
        similar = similar_memories(s.conn, new.id)
    return Written(
        new.id,
        new.path,
        scope,
        "active",
        "superseded" if old else "created" if new.created else "updated",
        name=name,
        superseded=old.row["id"] if old else None,
        superseded_name=old.row["name"] if old else None,
        superseded_path=old.row["path"] if old else None,
        similar=similar,
        committed=committed,
        hints=hints(s.conn, new.id),
    )


# A retried supersede is not applied twice (SPEC 11)


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
            record = s.read(pair["path"]).record
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
                superseded_name=pair["old_name"],
                superseded_path=pair["old_path"],
                committed=s.commit_leftover([pair["path"], pair["old_path"]], change, known="supersede"),
            )
    return None


def edited(data: bytes, fields: dict, body: str | None, order=MEMORY_ORDER) -> bytes:
    """A file's bytes with the frontmatter `fields` set (and the body, unless None), every other byte kept."""
    try:
        doc = Document.from_bytes(data)
        for key, value in fields.items():
            doc.set(key, value, order)
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
        s.open_index([])
        row, found = references.target(s, memory, project, within)
        record = found.record
        assert record is not None  # on_disk refuses a file the indexer does not read
        changes = fields(record)
        body = body_of(record["body"]) if body_of else None
        new_data = edited(found.data, changes, body)
        s.check(row["path"], new_data, changes | ({"body": body} if body is not None else {}), found.problems)
        s.write(row["path"], new_data, create=False)
        change = Change(COMMIT_ACTIONS[action], record["name"], row["id"], record["project"])
        committed = s.commit([row["path"]], change)
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
        s.open_index([])
        row, _ = references.target(s, memory, project, within, active=False)
        pointing = s.rows("select * from memories where superseded_by = ?", (row["id"],))
        if pointing:
            raise WriteRefused(
                "breaks-chain",
                f"{describe(row)} replaced " + "; ".join(map(describe, pointing)) + ": deleting it would break "
                "that chain. Archive it, or supersede it, instead",
            )
        s.remove(row["path"])
        committed = s.commit([row["path"]], Change("delete", row["name"], row["id"], row["project"]))
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
    new_project: bool = False,
) -> Written:
    """A new note under `notes/<scope>/`, its file named after its title (with `within`: only in that project or
    global; a project the store does not have, only with `new_project`)."""
    scope = project_scope(project, within)
    tags = checked_tags(tags)
    body = written_body(text_of(body, "body") or "")
    if not isinstance(title, str) or not title.strip() or "\n" in title.strip():
        raise WriteRefused("bad-title", "a note needs a title on one line")
    title = title.strip()
    with session(root, db_path) as s:
        s.open_index([])
        known_project(s.conn, scope, new_project)
        for path in s.candidates(f"notes/{scope or '_global'}", slug(title)):  # a retried note_write: answered first
            try:
                record = s.read(path, note=True).record
            except WriteRefused:
                continue
            if (
                record
                and (record["title"], record["project"], record["body"]) == (title, scope, body)
                and set(json.loads(record["tags"])) == set(tags or [])
            ):
                committed = s.commit_leftover([path], Change("note", title, record["id"], scope))
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
        s.write(path, data, create=True)
        atomic.crash_point("replacement")
        committed = s.commit([path], Change("note", title, note_id, scope))
        return Written(note_id, path, scope, "active", "noted", title=title, committed=committed)


def update_note(root, db_path, path: str, body: str | bytes) -> Written:
    """Replace the body of the note at store path `path` (`updated` = now; every other byte kept), or answer
    `unchanged` when it holds that body already."""
    body = written_body(text_of(body, "body") or "")
    with session(root, db_path) as s:
        s.open_index([])
        try:
            found = s.read(path, note=True) if path.startswith("notes/") else None
        except WriteRefused:
            found = None
        record = found.record if found else None
        if found is None or record is None:
            raise WriteRefused("unknown-note", f"no note at {path} that the indexer can read")
        if record["body"] == body:
            committed = s.commit_leftover([path], Change("note", record["title"], record["id"], record["project"]))
            return Written(
                record["id"], path, record["project"], "active", "unchanged", title=record["title"], committed=committed
            )
        data = edited(found.data, {"updated": timestamps.now()}, body, NOTE_ORDER)
        s.check(path, data, {"title": record["title"], "body": body}, found.problems, note=True)
        s.write(path, data, create=False)
        atomic.crash_point("replacement")
        committed = s.commit([path], Change("update", record["title"], record["id"], record["project"]))
        return Written(
            record["id"], path, record["project"], "active", "updated", title=record["title"], committed=committed
        )
