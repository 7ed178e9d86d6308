"""Finding X, the memory a write names (SPEC section 8): an id, which needs no project, or a name, looked up among
the active memories of the write's project, then global. An unknown or ambiguous X is refused with the candidates
listed. X is found in the index and then read again from its file, under the store's lock."""

import contextlib
import difflib
import os

from indexer.edit.session import OnDisk, Session
from indexer.edit.write_input import WriteRefused, within_session
from indexer.sqlite import sqlite3
from indexer.store import rules
from indexer.store.rules import ULID_TEXT


def describe(row: dict) -> str:
    """A memory as a refusal names it: `ID name (project, status)`."""
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
            listed = "; ".join(map(describe, rows))
            why = f"{len(rows)} active memories are named {ref!r}: {listed}; give the id, or --project"
            raise WriteRefused("ambiguous-memory", why)
        row = rows[0]
    if active and row["status"] != "active":
        successor = f", replaced by {row['superseded_by']}" if row["superseded_by"] else ""
        raise WriteRefused("not-active", f"{describe(row)} is no longer active{successor}: act on the active memory")
    return row


def indexed_paths(s: Session, ref: str) -> list[str]:
    """The files of the memories `ref` may name (an id, or a name) in the index as it is, before `open_index`."""
    if not isinstance(ref, str) or not ref.strip() or not os.path.isfile(s.db_path):
        return []
    ref = ref.strip()
    try:
        with contextlib.closing(sqlite3.connect(s.db_path)) as conn:
            query = "select path from memories where id = ? or name = ?"
            return [row[0] for row in conn.execute(query, (ref.upper(), ref))]
    except sqlite3.DatabaseError:  # not an index: `open_index` says so
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
            record = s.read(path).record
        except WriteRefused:
            continue
        if record is not None and record["id"] == memory_id:
            return [record | {"path": path}]
    return []


def _unknown(s: Session, name: str, project: str | None) -> str:
    where = f" in project {project!r} or global" if project is not None else ""
    inactive = s.rows("select * from memories where name = ? and status != 'active'", (name,))
    names = [r["name"] for r in s.rows("select distinct name from memories where status = 'active'")]
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
    message = f"no active memory is named {name!r}{where}"
    if inactive:
        message += "; inactive ones: " + "; ".join(map(describe, inactive[:5]))
    if close:
        message += "; did you mean: " + ", ".join(close)
    return message


def target(s: Session, ref: str, project: str | None, within: str | None, active: bool = True) -> tuple[dict, OnDisk]:
    """The index row of the memory `ref` names and its file as it is now, refused unless a session of `within`
    may write it (SPEC 8)."""
    row = resolve(s, ref, project, active)
    within_session(row["project"], within, describe(row))
    return row, on_disk(s, row, active)


def on_disk(s: Session, row: dict, active: bool) -> OnDisk:
    """X's file as it is now (checked again under the lock); `active`: X must still be active."""
    found = s.read(row["path"])
    if found.record is None or found.record["id"] != row["id"]:
        raise WriteRefused(
            "index-behind",
            f"{row['path']} no longer holds memory {row['id']}: run `seamless index {s.root} --db {s.db_path}`",
        )
    if active and found.record["status"] != "active":
        raise WriteRefused("not-active", f"{describe(found.record)} is no longer active")
    return found


def same_name(s: Session, scope: str | None, name: str, folder: str, exclude: str | None) -> list[OnDisk]:
    """The active memories of `scope` named `name` (but `exclude`), from their files: those the index knows and
    those at the paths a write of `name` would have used."""
    query = "select path from memories where name = ? and project is ? and status = 'active'"
    paths = [r["path"] for r in s.rows(query, (name, scope))]
    paths += [p for p in s.candidates(folder, name) if p not in paths]
    found, wanted = [], (("status", "active"), ("project", scope), ("name", name))
    for path in paths:
        try:
            file = s.read(path)
        except WriteRefused:
            continue
        record = file.record
        if record and record["id"] != exclude and all(record[key] == value for key, value in wanted):
            found.append(file)
    return found
