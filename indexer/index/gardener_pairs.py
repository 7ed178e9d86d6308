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

What the index holds: each active memory's reading (`gardener_words`, kept across full runs: a memory whose name
and description were read before by the same rules is not read again), each group's terms (`gardener_groups`),
the groups holding each term found in at most COMMON groups (`gardener_terms`, the postings pairs come from),
how many groups hold each term found in more (`gardener_common`: most of a big store's terms by count, which pair
nothing and so need no posting each), and the findings.

A run that touched some memories settles only the groups they left or joined, and the groups that share a term
whose count crossed COMMON with this run: the findings come out as a run over the whole store would make them
(tests/test_gardener_reads.py checks it).
"""

import functools
import hashlib
import json
import shlex
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from indexer.index import gardener_reader
from indexer.sql.canned import PROPOSAL_ORDER
from indexer.store import sameness, wording

COMMON = 100  # a term in more groups of a scope than this does not bring two groups together
TOGETHER = 3  # terms (each in at most COMMON groups) two groups share at least, to be compared; one less when one
# of them is a word either denies (a contradiction by a denial may share little more than what it denies)
GLOBAL = ""  # the global scope's `scope`
MEMBER_COLUMNS = (
    "m.id, m.name, m.kind, m.description, m.project, coalesce(m.updated, m.created, ''), m.valid_from, "
    "coalesce(m.updated, '')"
)
SEPARATOR = "\n"  # between a group's terms in gardener_groups (a term is one line: terms() makes sure)


class Member(NamedTuple):
    """An active memory, as a finding names it."""

    id: str
    name: str
    kind: str
    description: str
    project: str | None
    at: str  # updated (or created): which of two is newer
    valid_from: str | None
    updated: str  # as the gardener's order reads it ('' when none)

    @property
    def order(self) -> tuple[str, str]:
        return (self.at, self.id)

    @property
    def fingerprint(self) -> bytes:
        """The same while nothing a finding says of this memory changes."""
        fields = [self.name, self.kind, self.description, self.project or "\0", self.at, self.valid_from or ""]
        fields.append(self.updated)
        return hashlib.blake2b("\x1f".join(fields).encode("utf-8", "surrogatepass"), digest_size=12).digest()


Group = tuple[str, str]  # (scope, signature)
Read = gardener_reader.Read


def settle(db, root: str, changed: Iterable[str] | None) -> None:
    """Bring the gardener's tables in step: for every active memory (`changed` None), or after the memories with
    ids `changed` were added, edited or removed. Inside the caller's transaction.

    The tables say which rules settled them, for which store (index_meta `gardener`): while those hold, a run over
    the whole store settles only the memories whose findings may change (a fingerprint of what a finding says of
    each), as a run for some paths does; with other rules (an upgrade) or another store every memory is settled."""
    readings = Readings()
    stamp = f"{RULES}:{root}"
    if db.execute("select value from index_meta where key = 'gardener'").fetchone() != (stamp,):
        changed = None  # (a run for some paths, too: the tables are not this code's to update)
    elif changed is None:
        changed = _changed(db)
        if len(changed) > REBUILD_SHARE * _count(db):
            changed = None  # most of the store: settling it whole is cheaper
    if changed is None:
        _rebuild(db, root, readings)
        db.execute(
            "insert into index_meta (key, value) values ('gardener', ?) "
            "on conflict (key) do update set value = excluded.value",
            (stamp,),
        )
    else:
        changed = sorted(set(changed))
        if changed:
            _update(db, root, changed, readings)


def _rules() -> str:
    """What the findings depend on besides the store: the rules of reading, judging and pairing (these files)."""
    digest = hashlib.blake2b(wording.READER, digest_size=8)
    for module in (sameness.__file__, __file__):
        try:
            digest.update(Path(module).read_bytes())
        except (OSError, TypeError):  # not files: never taken as settled by this code
            digest.update(repr(object()).encode())
    return digest.hexdigest()


RULES = _rules()
REBUILD_SHARE = 0.2  # when more than this share of the active memories changed, a whole settle is cheaper


def _changed(db) -> list[str]:
    """The memories whose findings may have changed since the last settle: active ones with another fingerprint
    (or none), and those no longer active."""
    stored = dict(db.execute("select id, member from gardener_words"))
    changed = []
    for row in db.execute(f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active'"):
        member = Member(*row)
        if stored.pop(member.id, None) != member.fingerprint:
            changed.append(member.id)
    return changed + list(stored)


def _count(db) -> int:
    return db.execute("select count(*) from gardener_words").fetchone()[0]


def terms(reading: wording.Wording) -> set[str]:
    """What a group is found by: its specific words (not generic ones: the verdict never counts those), each word it
    denies again (`!goos`: a pair that disagrees on it needs one term less in common), and each value's kind and
    slot (`=port:`, `=setting:chroma port`)."""
    found = set(reading.words - wording.GENERIC)
    found.update([f"!{word}" for word in reading.negated & found])
    for value in reading.values:
        found.add(f"={value.kind}:")
        if value.slot:
            found.add(f"={value.kind}:{value.slot}")
            if value.kind == "setting":
                found.update(f"=setting:{part}" for part in value.slot.split())
    return {term.replace(SEPARATOR, " ") for term in found}


class Readings:
    """The readings of one settle, each memory's taken once: from the index when its stored reading is of the same
    name and description, else read (many at once on two cores: `read_ahead`). A reading is kept as stored bytes
    and decoded when needed (`of`); a whole settle lets go of the decoded ones it needs no more (`release`): at
    100,000 memories all of them at once weighed hundreds of megabytes."""

    def __init__(self):
        self.read: Read = {}  # readings made ahead (gardener_reader.py): key -> signature, reading
        self.stored: dict[str, bytes] = {}  # id -> its reading (wording.dump)
        self.decoded: dict[str, wording.Wording] = {}

    def of(self, member: Member) -> wording.Wording:
        reading = self.decoded.get(member.id)
        if reading is None:
            stored = self.stored.get(member.id)
            reading = wording.load(stored) if stored is not None else wording.read(member.name, member.description)
            self.decoded[member.id] = reading
        return reading

    def release(self, members: Iterable[Member]) -> None:
        """Decode the readings of `members` again when next needed."""
        for member in members:
            self.decoded.pop(member.id, None)

    def forget(self, members: Iterable[Member]) -> None:
        """Let go of the readings of `members` (not needed again in this settle)."""
        for member in members:
            self.decoded.pop(member.id, None)
            self.stored.pop(member.id, None)

    def read_ahead(self, rows: list[tuple], stored: dict[str, tuple]) -> None:
        """Read at once the memories of `rows` with no reading yet, on two cores when there are many."""
        texts = {}
        for row in rows:
            member = Member(*row)
            key = wording.key(member.name, member.description)
            kept = stored.get(member.id)
            if not (kept is not None and kept[2] == key) and key not in self.read:
                texts[key] = (key, member.name or "", member.description or "")
        self.read.update(gardener_reader.read_all(list(texts.values())))

    def take(self, rows: Iterable[tuple], stored: dict[str, tuple]) -> tuple[dict[str, tuple[Member, str]], list]:
        """Each active memory of `rows` (MEMBER_COLUMNS) with its group's scope and signature, and the
        gardener_words rows to write: those whose stored row (`stored`: id -> scope, signature, key, member,
        reading) is missing, or holds another text, scope or fingerprint."""
        found: dict[str, tuple[Member, str]] = {}
        rows_to_write = []
        for row in rows:
            member = Member(*row)
            scope, key, fingerprint = _scope(member.project), wording.key(member.name, member.description), None
            kept = stored.get(member.id)
            if kept is not None and kept[2] == key:
                signature, blob = kept[1], kept[4]
                if kept[0] != scope or kept[3] != (fingerprint := member.fingerprint):
                    rows_to_write.append((member.id, scope, signature, key, fingerprint, blob))
            else:
                if key in self.read:
                    signature, blob = self.read[key]
                else:
                    reading = self.decoded[member.id] = wording.read(member.name, member.description)
                    signature, blob = reading.signature, wording.dump(reading)
                rows_to_write.append((member.id, scope, signature, key, member.fingerprint, blob))
            self.stored[member.id] = blob
            found[member.id] = (member, signature)
        self.read = {}  # all taken
        return found, rows_to_write


def _scope(project: str | None) -> str:
    return project if project is not None else GLOBAL


WRITE_WORDS = (
    "insert or replace into gardener_words (id, scope, signature, key, member, reading) values (?, ?, ?, ?, ?, ?)"
)
WORDS = "select id, scope, signature, key, member, reading from gardener_words"


# A whole store at once: every reading in memory


def _rebuild(db, root: str, readings: Readings) -> None:
    for table in ("gardener_groups", "gardener_terms", "gardener_common", "gardener_findings"):
        db.execute(f"delete from {table}")
    stored = {row[0]: row[1:] for row in db.execute(WORDS)}
    rows = db.execute(f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active'").fetchall()
    readings.read_ahead(rows, stored)
    active, rows = readings.take(rows, stored)
    db.executemany("delete from gardener_words where id = ?", [(i,) for i in stored if i not in active])
    db.executemany(WRITE_WORDS, sorted(rows))  # in the order of the table's key: a new table's pages fill in turn
    del rows, stored  # (a big store's readings: the memory of a whole settle is watched, docs/performance.md)
    groups: dict[Group, list[Member]] = defaultdict(list)
    for member, signature in active.values():
        groups[(_scope(member.project), signature)].append(member)
    del active
    group_terms: dict[Group, set[str]] = {}
    denied: dict[Group, frozenset[str]] = {}  # the words each group denies (its `!` terms)
    counts: Counter[tuple[str, str]] = Counter()  # (scope, term) -> groups holding it
    findings = Findings(db)
    for group, members in groups.items():
        members.sort(key=lambda m: m.order)
        readings.forget(members[:-1])  # a group is judged by its newest memory
        found = group_terms[group] = terms(readings.of(members[-1]))
        denied[group] = frozenset(term[1:] for term in found if term[0] == "!") or wording.EMPTY
        counts.update((group[0], term) for term in found)
        findings.add(_group_findings(group, members, root, readings))
        readings.release(members[-1:])  # decoded again if the group is paired
    db.executemany(
        "insert into gardener_groups (scope, signature, terms) values (?, ?, ?)",
        sorted((scope, signature, SEPARATOR.join(sorted(found))) for (scope, signature), found in group_terms.items()),
    )
    postings: dict[tuple[str, str], list[str]] = {}  # (scope, term) -> signatures, for the terms not common
    unpaired: list[Group] = []
    for group, found in group_terms.items():
        rare = 0
        for term in found:
            if counts[(group[0], term)] <= COMMON:
                postings.setdefault((group[0], term), []).append(group[1])
                rare += 1
        if rare < TOGETHER - 1:  # never paired: its reading and terms are not needed again
            readings.forget(groups[group][-1:])
            unpaired.append(group)
    for group in unpaired:
        del group_terms[group], denied[group], groups[group]
    db.executemany(
        "insert into gardener_terms (scope, term, signature) values (?, ?, ?)",
        sorted((scope, term, signature) for (scope, term), signatures in postings.items() for signature in signatures),
    )
    db.executemany(
        "insert into gardener_common (scope, term, groups) values (?, ?, ?)",
        sorted((scope, term, n) for (scope, term), n in counts.items() if n > COMMON),
    )
    for group, members in groups.items():
        scope, signature = group
        mine, denies = group_terms[group], denied[group]
        holders = [postings[(scope, term)] for term in mine if (scope, term) in postings]
        if len(holders) < TOGETHER - (1 if denies else 0):
            continue  # most groups: too few terms that are not common to share enough with another
        others = []
        for other, n in Counter(chain.from_iterable(holders)).items():
            if n >= TOGETHER:
                if other > signature:
                    others.append(other)
            elif n == TOGETHER - 1 and denies and other != signature:  # (taken by the group that denies)
                both = mine & group_terms[(scope, other)]
                if not denies.isdisjoint(both) and (other > signature or denied[(scope, other)].isdisjoint(both)):
                    others.append(other)
        findings.add(_pair_findings(group, members, {(scope, o): groups[(scope, o)] for o in others}, root, readings))
    findings.flush()


class Findings:
    """Findings to insert, written a few thousand at a time (a big store's fifty thousand at once weigh)."""

    def __init__(self, db):
        self.db, self.rows = db, []

    def add(self, found: list[tuple]) -> None:
        self.rows += found
        if len(self.rows) >= 5000:
            self.flush()

    def flush(self) -> None:
        _insert(self.db, self.rows)
        self.rows = []


# Some memories changed: the groups they touch, read back from the index


def _update(db, root: str, changed: list[str], readings: Readings) -> None:
    affected: set[Group] = set()
    for chunk in _chunks(changed):
        marks = ",".join("?" * len(chunk))
        stored = {row[0]: row[1:] for row in db.execute(f"{WORDS} where id in ({marks})", chunk)}
        affected |= {(row[0], row[1]) for row in stored.values()}
        active, rows = readings.take(
            db.execute(
                f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active' and m.id in ({marks})", chunk
            ),
            stored,
        )
        db.executemany("delete from gardener_words where id = ?", [(i,) for i in stored if i not in active])
        db.executemany(WRITE_WORDS, rows)
        affected |= {(_scope(member.project), signature) for member, signature in active.values()}
    affected |= _update_terms(db, affected, readings)
    for scope, signature in affected:
        db.execute("delete from gardener_findings where scope = ? and signature = ?", (scope, signature))
        db.execute("delete from gardener_findings where scope = ? and other = ?", (scope, signature))
    findings = []
    for group in sorted(affected):
        members = _members(db, group, readings)
        if not members:
            continue
        findings += _group_findings(group, members, root, readings)
        others = {
            (group[0], other): _members(db, (group[0], other), readings)
            for other in _candidates(db, group)
            if (group[0], other) not in affected or other > group[1]
        }
        findings += _pair_findings(group, members, others, root, readings)
    _insert(db, findings)


def _chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _members(db, group: Group, readings: Readings) -> list[Member]:
    """The group's memories, oldest first (their stored readings handed to `readings`)."""
    members = []
    for row in db.execute(
        f"select {MEMBER_COLUMNS}, w.reading from gardener_words as w join memories as m on m.id = w.id "
        "where w.scope = ? and w.signature = ?",
        group,
    ):
        members.append(Member(*row[:-1]))
        if members[-1].id not in readings.decoded:
            readings.stored[members[-1].id] = row[-1]
    return sorted(members, key=lambda m: m.order)


def _group_terms(db, group: Group) -> set[str]:
    row = db.execute("select terms from gardener_groups where scope = ? and signature = ?", group).fetchone()
    return set(row[0].split(SEPARATOR)) if row and row[0] else set()


def _update_terms(db, groups: set[Group], readings: Readings) -> set[Group]:
    """Write the terms of `groups` again (their newest memory may have changed), and the postings and counts of the
    terms they gained or lost; return the other groups holding a term whose count crossed COMMON, whose pairs are
    to be settled again too."""
    gained: dict[tuple[str, str], list[str]] = defaultdict(list)  # (scope, term) -> signatures
    lost: dict[tuple[str, str], list[str]] = defaultdict(list)
    for group in sorted(groups):
        old = _group_terms(db, group)
        members = _members(db, group, readings)
        new = terms(readings.of(members[-1])) if members else set()
        if members:
            db.execute(
                "insert or replace into gardener_groups (scope, signature, terms) values (?, ?, ?)",
                (*group, SEPARATOR.join(sorted(new))),
            )
        else:
            db.execute("delete from gardener_groups where scope = ? and signature = ?", group)
        for term in new - old:
            gained[(group[0], term)].append(group[1])
        for term in old - new:
            lost[(group[0], term)].append(group[1])
    crossed: set[Group] = set()
    for key in sorted(gained.keys() | lost.keys()):
        crossed |= _recount(db, key, gained.get(key, []), lost.get(key, []))
    return crossed


def _recount(db, key: tuple[str, str], gained: list[str], lost: list[str]) -> set[Group]:
    """Bring one term's postings or count in step with the groups that gained or lost it; if it crossed COMMON,
    return the groups holding it now."""
    scope, term = key
    row = db.execute("select groups from gardener_common where scope = ? and term = ?", key).fetchone()
    holders = [] if row else [r[0] for r in db.execute(POSTINGS, key)]
    before = row[0] if row else len(holders)
    after = before + len(gained) - len(lost)
    if row and after > COMMON:  # common before and after
        db.execute("update gardener_common set groups = ? where scope = ? and term = ?", (after, scope, term))
        return set()
    if not row and after <= COMMON:  # rare before and after
        db.executemany(DELETE_POSTING, [(scope, term, s) for s in lost])
        db.executemany(INSERT_POSTING, [(scope, term, s) for s in gained])
        return set()
    if row:  # no longer common: its groups are found again (gardener_groups is written first)
        db.execute("delete from gardener_common where scope = ? and term = ?", key)
        now = [
            r[0]
            for r in db.execute(
                "select signature from gardener_groups where scope = ? "
                "and instr(char(10) || terms || char(10), char(10) || ? || char(10)) > 0",
                key,
            )
        ]
        db.executemany(INSERT_POSTING, [(scope, term, s) for s in now])
    else:  # common now: its postings go
        db.execute("delete from gardener_terms where scope = ? and term = ?", key)
        db.execute("insert into gardener_common (scope, term, groups) values (?, ?, ?)", (scope, term, after))
        now = sorted((set(holders) - set(lost)) | set(gained))
    return {(scope, signature) for signature in now}


POSTINGS = "select signature from gardener_terms where scope = ? and term = ?"
INSERT_POSTING = "insert into gardener_terms (scope, term, signature) values (?, ?, ?)"
DELETE_POSTING = "delete from gardener_terms where scope = ? and term = ? and signature = ?"


def _candidates(db, group: Group) -> set[str]:
    """The other groups of the scope sharing TOGETHER terms or more with `group`, each in at most COMMON groups."""
    shared: Counter[str] = Counter()
    mine = _group_terms(db, group)
    for term in mine:
        shared.update(row[0] for row in db.execute(POSTINGS, (group[0], term)))
    shared.pop(group[1], None)
    return {
        other
        for other, n in shared.items()
        if _together(n, mine, lambda other=other: _group_terms(db, (group[0], other)))
    }


def _together(shared: int, mine: set[str], theirs) -> bool:
    """Whether two groups sharing `shared` rare terms are compared: TOGETHER of them, or one less when one of those
    is a word either group denies. `theirs`: the other's terms (or a callable giving them, when needed)."""
    if shared >= TOGETHER:
        return True
    if shared < TOGETHER - 1:
        return False
    theirs = theirs() if callable(theirs) else theirs
    denied = {term[1:] for term in mine | theirs if term[0] == "!"}
    return bool(denied and not denied.isdisjoint(mine & theirs))


# The findings' rows


def _group_findings(group: Group, members: list[Member], root: str, readings: Readings) -> list[tuple]:
    """One group's own findings: its copies (two or more), and a vague description."""
    scope, signature = group
    found: list[tuple] = []
    oldest, newest = members[0], members[-1]
    vague = readings.of(newest).vague
    if len(members) == 1 and not vague:
        return found  # most groups
    ids = json.dumps([m.id for m in members])
    since = _since(members)
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
                RANK["duplicate"],
                oldest.updated,
            )
        )
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
                RANK["vague-description"],
                oldest.updated,
            )
        )
    return found


def _pair_findings(
    group: Group, members: list[Member], others: dict[Group, list[Member]], root: str, readings: Readings
) -> list[tuple]:
    """The verdicts on `group` with each of `others` (each group by its newest memory)."""
    found = []
    mine = members[-1]
    for other_group, other_members in sorted(others.items()):
        if not other_members:
            continue
        theirs = other_members[-1]
        older, newer = (mine, theirs) if mine.order < theirs.order else (theirs, mine)
        verdict = sameness.judge(readings.of(older), readings.of(newer))
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
                RANK[verdict.proposal],
                older.updated,
            )
        )
    return found


def supersede_command(root: str, newer: Member, older: Member) -> str:
    """The write that keeps `newer` as it is and marks `older` superseded by it (the supersede path, docs/writing.md)."""
    return f"{_write_again(root, newer)} --supersedes {shlex.quote(older.id)}"


@functools.lru_cache(maxsize=1024)
def _write_again(root: str, memory: Member) -> str:
    """The write of `memory` as it is (a memory newer than several is named by each of their commands)."""
    project = memory.project if memory.project is not None else "global"
    words = ["seamless", "write", str(root), "--project", project, "--kind", memory.kind, "--name", memory.name]
    return shlex.join([*words, "--description", memory.description])


def _since(members: list[Member]) -> str:
    """From when every one of `members` is valid (they are active: none stops being valid)."""
    return max(m.valid_from or "" for m in members)


def _label(scope: str) -> str:
    return scope or "the global scope"


def _quoted(description: str) -> str:
    shown = description if len(description) <= 80 else description[:77] + "..."
    return f"“{shown}”"


RANK = {proposal: n for n, proposal in enumerate(PROPOSAL_ORDER)}  # the gardener's order, as PROPOSAL_RANK


def _insert(db, findings: list[tuple]) -> None:
    db.executemany(
        "insert into gardener_findings "
        "(proposal, scope, signature, other, id, ids, reason, evidence, command, since, rank, updated) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        findings,
    )
