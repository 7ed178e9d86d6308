"""Answering the gardener (SPEC section 12): one proposal dismissed with a reason, a group of them (one kind, one
project) dismissed, or a project's archive proposals carried out, each one write under the store's lock and one
commit (`Session.commit`). A group act only says what it would do unless told to act (`yes`)."""

import getpass
import json
import os
import socket
from dataclasses import dataclass, field

from indexer import gardener
from indexer.edit import references
from indexer.edit.session import Session, session
from indexer.edit.store_write import edited
from indexer.edit.write_input import WriteRefused, within_session
from indexer.git.commit import Change, Committed
from indexer.sql import expand
from indexer.sql.canned import ANSWERABLE
from indexer.store import dismissals, rules, timestamps
from indexer.store.walk import FolderFds


@dataclass
class Acted:
    """What an act did, or would do (`would-dismiss`, `would-archive`): the proposals it answered."""

    action: str  # dismissed, archived, unchanged (nothing to do), would-dismiss, would-archive
    proposal: str  # their kind
    proposals: list[dict] = field(default_factory=list)
    committed: Committed = field(default_factory=Committed)
    held: dict | None = None  # `unchanged`: the dismissal that holds already (its line and why)

    @property
    def what(self) -> str:
        """`3 archive proposals`, `1 memory` (what an archive acts on)."""
        return _count(self.proposals, "memory" if "archive" in self.action else f"{self.proposal} proposal")

    def as_json(self) -> dict:
        keys = ("proposal", "id", "name", "project", "ids", "reason")
        found = {"action": self.action, "proposal": self.proposal, "count": len(self.proposals)}
        found["proposals"] = [{key: row[key] for key in keys} for row in self.proposals]
        found |= {"held": self.held} if self.held else {}
        found |= {"commit": self.committed.commit} if self.committed.commit else {}
        return found | ({"warning": self.committed.warning} if self.committed.warning else {})


@dataclass
class _Act(Change):
    """An act's commit: its own subject, the trailers of a write."""

    said: str = ""

    @property
    def subject(self) -> str:
        return self.said


def dismiss(root, db_path, proposal: str, ids: list[str], why: str, by=None, within: str | None = None) -> Acted:
    """Dismiss the listed proposal of kind `proposal` of the memories `ids` (in any order), for the reason `why`;
    `unchanged` when a dismissal holds for it already. `within`: a session's project, which dismisses in no other."""
    why, wanted = _reason(why), sorted(i.strip().upper() for i in ids)
    _known(proposal)
    with session(root, db_path) as s:
        s.open_index([dismissals.FILE])
        rows = [r for r in _listed(s, proposal) if sorted(r["ids"]) == wanted]
        if not rows:
            if held := _held(s, proposal, wanted):
                return Acted("unchanged", proposal, held=held)
            raise WriteRefused("unknown-proposal", f"the gardener lists no {proposal} proposal of {' '.join(wanted)}")
        within_session(rows[0]["project"], within, f"the proposal of {rows[0]['id']}")
        return _dismissed(s, rows, why, by, f"dismiss {proposal} of {rows[0]['name']} ({rows[0]['id']})")


def dismiss_group(root, db_path, proposal: str, project: str, why: str, by=None, yes: bool = False) -> Acted:
    """Dismiss every listed proposal of kind `proposal` in `project` ('global'), for the reason `why`; without `yes`,
    only say which."""
    why = _reason(why)
    _known(proposal)
    with session(root, db_path) as s:
        s.open_index([dismissals.FILE])
        rows = [r for r in _listed(s, proposal) if _scope(r) == project]
        if not rows or not yes:
            return Acted("would-dismiss" if rows else "unchanged", proposal, rows)
        return _dismissed(s, rows, why, by, f"dismiss {_count(rows, proposal + ' proposal')} of {project}")


def archive_group(root, db_path, project: str, yes: bool = False) -> Acted:
    """Archive every memory the gardener proposes to archive in `project` ('global'), each invalid from now as
    `seamless archive` makes one; without `yes`, only say which."""
    with session(root, db_path) as s:
        s.open_index([dismissals.FILE])
        rows = [r for r in _listed(s, "archive") if _scope(r) == project]
        if not rows or not yes:
            return Acted("would-archive" if rows else "unchanged", "archive", rows)
        now, paths = timestamps.now(), []
        for row in rows:  # each file read again under the lock, stamped and checked as `seamless archive` does
            found = references.on_disk(s, row, active=True)
            data = edited(found.data, {"invalid_at": now}, None)
            s.check(found.path, data, {"invalid_at": now}, found.problems)
            s.write(found.path, data, create=False)
            paths.append(found.path)
        act = _Act("archive", "", "", rules.scope(project), said=f"archive {_count(rows, 'memory')} of {project}")
        return Acted("archived", "archive", rows, s.commit(paths, act))


def _known(proposal: str) -> None:
    if proposal not in ANSWERABLE:
        raise WriteRefused("unknown-proposal", f"a dismissal answers a proposal of kind {', '.join(ANSWERABLE)}")


def _reason(why) -> str:
    if not isinstance(why, str) or not any(c.isalnum() for c in why) or "\n" in why.strip():
        raise WriteRefused("no-reason", "say why it is dismissed, in one line (--why): the next reader needs it")
    return why.strip()


def _listed(s: Session, proposal: str) -> list[dict]:
    return [row for row in gardener.proposals(s.conn, db_path=s.db_path) if row["proposal"] == proposal]


def _scope(row: dict) -> str:
    return row["project"] or "global"


def _count(rows: list, thing: str) -> str:
    return f"{len(rows):,} {thing if len(rows) == 1 else thing[:-1] + 'ies' if thing.endswith('y') else thing + 's'}"


def _held(s: Session, proposal: str, wanted: list[str]) -> dict | None:
    """The dismissal that holds for the proposal of kind `proposal` of the memories `wanted`, if one does."""
    for row in s.rows("select line, ids, why, by, at from gardener_dismissed where kind = ?", (proposal,)):
        if sorted(json.loads(row["ids"])) == wanted:
            holds = s.rows(expand("select DISMISSED(:kind, :ids) as holds"), {"kind": proposal, "ids": row["ids"]})
            if holds[0]["holds"]:
                return {key: row[key] for key in ("line", "why", "by", "at")}
    return None


_UPDATED = "select id, updated from memories where id in (select value from json_each(?))"


def _dismissed(s: Session, rows: list[dict], why: str, by, said: str) -> Acted:
    """Add a dismissal of each proposal of `rows` to the file, commit it and bring the index in step."""
    by = by or os.environ.get("SEAMLESS_MODEL") or f"{getpass.getuser()}@{socket.gethostname()}"
    ids = json.dumps(sorted({i for row in rows for i in row["ids"]}))
    updated = {r["id"]: r["updated"] for r in s.rows(_UPDATED, (ids,))}
    at = timestamps.now()
    lines = b"".join(
        dismissals.line(r["proposal"], r["ids"], {i: updated.get(i) for i in r["ids"]}, why, by, at) for r in rows
    )
    try:
        with FolderFds(str(s.root)) as folders:
            before: bytes | None = folders.read(dismissals.FILE, 1 << 40)
    except FileNotFoundError:
        before = None
    except OSError as e:
        raise WriteRefused("unreadable", f"cannot read {dismissals.FILE}: {e.strerror or e}") from None
    if before and not before.endswith(b"\n"):  # a hand edit's last line, ended
        before += b"\n"
    s.write(dismissals.FILE, (before or b"") + lines, create=before is None)
    first = rows[0]
    act = _Act("dismiss", first["name"], first["id"] if len(rows) == 1 else "", first["project"], said=said)
    return Acted("dismissed", first["proposal"], rows, s.commit([dismissals.FILE], act))
