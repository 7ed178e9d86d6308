"""The gardener's findings in the index (SPEC section 12): duplicates, contradictions and vague descriptions among
the active memories of each scope, kept in step by every index run (build.py's settle step).

Memories whose descriptions read alike word for word (store/wording.py's signature) are one group: a group of two
or more is one `duplicate` proposal, however large (10,000 copies of one description make one proposal, not 50
million pairs). Groups are paired by the newest memory of each, with store/sameness.py's verdict, among those
sharing TOGETHER terms (words, or values' slots) each found in at most COMMON groups of the scope: a word every
other memory uses does not bring two together, and so the work stays near linear in the size of the store. Every
pair the verdict accepts shares that much anyway (three specific words for a duplicate; a value's slot and a
subject word, or a setting's name and its words, for a contradiction), but for subjects that share only words
common to more than COMMON groups.

A run that touched some memories settles only the groups they left or joined, and the groups that share a term
whose count crossed COMMON with this run: the findings come out as a run over the whole store would make them
(tests/test_gardener_pairs.py checks it).
"""

import json
import shlex
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from indexer.store import sameness, wording

COMMON = 100  # a term in more groups of a scope than this does not bring two groups together
TOGETHER = 3  # terms (each in at most COMMON groups) two groups share at least, to be compared
GLOBAL = ""  # the global scope's `scope`
MEMBER_COLUMNS = "m.id, m.name, m.kind, m.description, m.project, coalesce(m.updated, m.created, ''), m.valid_from"


@dataclass(frozen=True)
class Member:
    """An active memory, as a finding names it."""

    id: str
    name: str
    kind: str
    description: str
    project: str | None
    at: str  # updated (or created): which of two is newer
    valid_from: str | None

    @property
    def order(self) -> tuple[str, str]:
        return (self.at, self.id)


Group = tuple[str, str]  # (scope, signature)


def settle(db, root: str, changed: Iterable[str] | None) -> None:
    """Bring the gardener's tables in step: for every active memory (`changed` None), or after the memories with
    ids `changed` were added, edited or removed. Inside the caller's transaction."""
    if changed is not None and not db.execute("select 1 from gardener_words limit 1").fetchone():
        changed = None if db.execute("select 1 from memories where status = 'active' limit 1").fetchone() else ()
    try:
        if changed is None:
            _rebuild(db, root)
        else:
            changed = sorted(set(changed))
            if changed:
                _update(db, root, changed)
    finally:
        _readings.clear()


def terms(reading: wording.Wording) -> set[str]:
    """What a group is found by: its specific words (not generic ones: the verdict never counts those), and each
    value's kind and slot (`=port:`, `=setting:chroma port`)."""
    found = set(reading.words - wording.GENERIC)
    for value in reading.values:
        found.add(f"={value.kind}:")
        if value.slot:
            found.add(f"={value.kind}:{value.slot}")
            if value.kind == "setting":
                found.update(f"=setting:{part}" for part in value.slot.split())
    return found


_readings: dict[str, wording.Wording] = {}  # within one settle: each memory read once (by id)


def _read(member: Member) -> wording.Wording:
    reading = _readings.get(member.id)
    if reading is None:
        reading = _readings[member.id] = wording.read(member.name, member.description)
    return reading


def _scope(project: str | None) -> str:
    return project if project is not None else GLOBAL


# A whole store at once: every reading in memory


def _rebuild(db, root: str) -> None:
    for table in ("gardener_words", "gardener_terms", "gardener_findings"):
        db.execute(f"delete from {table}")
    groups: dict[Group, list[Member]] = defaultdict(list)
    words_rows = []
    for row in db.execute(f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active'"):
        member = Member(*row)
        group = (_scope(member.project), _read(member).signature)
        groups[group].append(member)
        words_rows.append((member.id, *group))
    db.executemany("insert into gardener_words (id, scope, signature) values (?, ?, ?)", words_rows)
    postings: dict[tuple[str, str], list[str]] = defaultdict(list)  # (scope, term) -> signatures
    group_terms: dict[Group, set[str]] = {}
    for group, members in groups.items():
        members.sort(key=lambda m: m.order)
        group_terms[group] = terms(_read(members[-1]))
        for term in group_terms[group]:
            postings[(group[0], term)].append(group[1])
    db.executemany(
        "insert into gardener_terms (scope, term, signature) values (?, ?, ?)",
        ((scope, term, signature) for (scope, term), signatures in postings.items() for signature in signatures),
    )
    findings = []
    for group, members in groups.items():
        findings += _group_findings(group, members, root)
        scope, signature = group
        shared: Counter[str] = Counter()
        for term in group_terms[group]:
            holders = postings[(scope, term)]
            if len(holders) <= COMMON:
                shared.update(holders)
        others = [other for other, n in shared.items() if n >= TOGETHER and other > signature]
        findings += _pair_findings(group, members, {(scope, o): groups[(scope, o)] for o in others}, root)
    _insert(db, findings)


# Some memories changed: the groups they touch, read back from the index


def _update(db, root: str, changed: list[str]) -> None:
    affected: set[Group] = set()
    for chunk in _chunks(changed):
        marks = ",".join("?" * len(chunk))
        affected |= set(db.execute(f"select scope, signature from gardener_words where id in ({marks})", chunk))
        db.execute(f"delete from gardener_words where id in ({marks})", chunk)
        rows = []
        for row in db.execute(
            f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active' and m.id in ({marks})", chunk
        ):
            member = Member(*row)
            rows.append((member.id, _scope(member.project), _read(member).signature))
        db.executemany("insert into gardener_words (id, scope, signature) values (?, ?, ?)", rows)
        affected |= {(scope, signature) for _, scope, signature in rows}
    affected |= _update_terms(db, affected)
    for scope, signature in affected:
        db.execute("delete from gardener_findings where scope = ? and signature = ?", (scope, signature))
        db.execute("delete from gardener_findings where scope = ? and other = ?", (scope, signature))
    findings = []
    for group in sorted(affected):
        members = _members(db, group)
        if not members:
            continue
        findings += _group_findings(group, members, root)
        others = {
            (group[0], other): _members(db, (group[0], other))
            for other in _candidates(db, group)
            if (group[0], other) not in affected or other > group[1]
        }
        findings += _pair_findings(group, members, others, root)
    _insert(db, findings)


def _chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _members(db, group: Group) -> list[Member]:
    """The group's memories, oldest first."""
    rows = db.execute(
        f"select {MEMBER_COLUMNS} from gardener_words as w join memories as m on m.id = w.id "
        "where w.scope = ? and w.signature = ?",
        group,
    )
    return sorted((Member(*row) for row in rows), key=lambda m: m.order)


def _update_terms(db, groups: set[Group]) -> set[Group]:
    """Write the terms of `groups` again (their newest memory may have changed); return the other groups holding a
    term whose count crossed COMMON, whose pairs are to be settled again too."""
    changes: dict[Group, tuple[set[str], set[str]]] = {}
    for group in groups:
        old = {row[0] for row in db.execute("select term from gardener_terms where scope = ? and signature = ?", group)}
        members = _members(db, group)
        new = terms(_read(members[-1])) if members else set()
        if old != new:
            changes[group] = (old, new)
    moved = {(group[0], term) for group, (old, new) in changes.items() for term in old ^ new}
    before = {key: _common(db, key) for key in moved}
    for group, (old, new) in changes.items():
        db.executemany(
            "delete from gardener_terms where scope = ? and term = ? and signature = ?",
            ((group[0], term, group[1]) for term in old - new),
        )
        db.executemany(
            "insert into gardener_terms (scope, term, signature) values (?, ?, ?)",
            ((group[0], term, group[1]) for term in new - old),
        )
    crossed = [key for key in sorted(moved) if _common(db, key) != before[key]]
    return {
        (key[0], row[0])
        for key in crossed
        for row in db.execute("select signature from gardener_terms where scope = ? and term = ?", key)
    }


def _common(db, key: tuple[str, str]) -> bool:
    """Whether a term is in more than COMMON groups of its scope (counted no further than that)."""
    return (
        db.execute(
            f"select count(*) from (select 1 from gardener_terms where scope = ? and term = ? limit {COMMON + 1})", key
        ).fetchone()[0]
        > COMMON
    )


def _candidates(db, group: Group) -> set[str]:
    """The other groups of the scope sharing TOGETHER terms or more with `group`, each in at most COMMON groups."""
    shared: Counter[str] = Counter()
    for (term,) in db.execute("select term from gardener_terms where scope = ? and signature = ?", group).fetchall():
        holders = [
            row[0]
            for row in db.execute(
                f"select signature from gardener_terms where scope = ? and term = ? limit {COMMON + 1}",
                (group[0], term),
            )
        ]
        if len(holders) <= COMMON:
            shared.update(holders)
    shared.pop(group[1], None)
    return {other for other, n in shared.items() if n >= TOGETHER}


# The findings' rows


def _group_findings(group: Group, members: list[Member], root: str) -> list[tuple]:
    """One group's own findings: its copies (two or more), and a vague description."""
    scope, signature = group
    found: list[tuple] = []
    ids = json.dumps([m.id for m in members])
    since = _since(members)
    oldest, newest = members[0], members[-1]
    if len(members) > 1:
        found.append(
            (
                "duplicate",
                scope,
                signature,
                None,
                oldest.id,
                ids,
                f"{len(members)} active memories of {_label(scope)} have the same description (up to case, "
                f"punctuation and word endings): keep one, the newest is {newest.name} ({newest.id}), and supersede "
                "the others",
                f"the same description: {_quoted(newest.description)}",
                supersede_command(root, newest, oldest),
                since,
            )
        )
    vague = _read(newest).vague
    if vague:
        copies = f"{len(members)} memories have the description" if len(members) > 1 else "the description"
        found.append(
            (
                "vague-description",
                scope,
                signature,
                None,
                oldest.id,
                ids,
                f"{copies} {_quoted(newest.description)}: {vague}; rewrite it so an agent can act on it without "
                "opening the body",
                vague,
                None,
                since,
            )
        )
    return found


def _pair_findings(group: Group, members: list[Member], others: dict[Group, list[Member]], root: str) -> list[tuple]:
    """The verdicts on `group` with each of `others` (each group by its newest memory)."""
    found = []
    mine = members[-1]
    for other_group, other_members in sorted(others.items()):
        if not other_members:
            continue
        theirs = other_members[-1]
        older, newer = sorted((mine, theirs), key=lambda m: m.order)
        verdict = sameness.judge(_read(older), _read(newer))
        if verdict is None:
            continue
        groups = {mine.id: group[1], theirs.id: other_group[1]}
        if verdict.proposal == "duplicate":
            reason = f"says the same as {newer.name} ({newer.id}), which is newer: {verdict.evidence}"
        else:
            reason = (
                f"disagrees with {newer.name} ({newer.id}), which is newer: {verdict.evidence}; if the newer is "
                "right, supersede this one"
            )
        found.append(
            (
                verdict.proposal,
                group[0],
                groups[older.id],
                groups[newer.id],
                older.id,
                json.dumps([older.id, newer.id]),
                reason,
                verdict.evidence,
                supersede_command(root, newer, older),
                _since([older, newer]),
            )
        )
    return found


def supersede_command(root: str, newer: Member, older: Member) -> str:
    """The write that keeps `newer` as it is and marks `older` superseded by it (the supersede path, docs/writing.md)."""
    return shlex.join(
        [
            "seamless",
            "write",
            str(root),
            "--project",
            newer.project if newer.project is not None else "global",
            "--kind",
            newer.kind,
            "--name",
            newer.name,
            "--description",
            newer.description,
            "--supersedes",
            older.id,
        ]
    )


def _since(members: list[Member]) -> str:
    """From when every one of `members` is valid (they are active: none stops being valid)."""
    return max(m.valid_from or "" for m in members)


def _label(scope: str) -> str:
    return scope or "the global scope"


def _quoted(description: str) -> str:
    shown = description if len(description) <= 80 else description[:77] + "..."
    return f"“{shown}”"


def _insert(db, findings: list[tuple]) -> None:
    db.executemany(
        "insert into gardener_findings (proposal, scope, signature, other, id, ids, reason, evidence, command, since) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        findings,
    )
