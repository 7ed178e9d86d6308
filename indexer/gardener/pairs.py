"""The gardener's findings in the index (SPEC section 12): duplicates, contradictions and vague descriptions among
the active memories of each scope.

Memories whose descriptions read alike word for word (gardener/wording.py's signature) are one group: a group of two
or more is one `duplicate` proposal, however large (10,000 copies of one description make one proposal, not 50
million pairs). Groups are paired by the newest memory of each, with gardener/sameness.py's verdict, among those
sharing TOGETHER terms (words, or values' slots) each found in at most COMMON groups of the scope: a word every
other memory uses does not bring two together, and so the work stays near linear in the size of the store. Every
pair the verdict accepts shares that much anyway (three specific words for a duplicate; a value's slot and a
subject word, or a setting's name and its words, for a contradiction), but for subjects that share only words
common to more than COMMON groups.

What the index holds: each active memory's group and fingerprint (`gardener_words`, kept across full runs: only a
memory whose fingerprint changed is settled again), each group's terms (`gardener_groups`), the groups holding
each term found in at most COMMON groups (`gardener_terms`, the postings pairs come from), how many groups hold
each term found in more (`gardener_common`: most of a big store's terms by count, which pair nothing and so need
no posting each), and the findings, each with its evidence: gardener.sql words the reason and the suggested
command from the memories as they are. No reading is stored: a settle reads again the few memories it needs.

`settle` is the index run's share (build.py's settle step): the memories the run touched, settled in the run when
that is little work, as every write and watcher batch is; otherwise noted in `gardener_pending` and left to a
settle of its own (gardener_settle.py), which `rebuild`s the tables from a snapshot. A settle of some memories
settles only the groups they left or joined, and the groups that share a term whose count crossed COMMON: the
findings come out as a settle of the whole store would make them (tests/test_gardener_reads.py checks it).
"""

import calendar
import functools
import hashlib
import json
import struct
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from indexer.gardener import reader, sameness, wording
from indexer.sql.canned import FINDINGS, PROPOSAL_ORDER
from indexer.store import timestamps

COMMON = 100  # a term in more groups of a scope than this does not bring two groups together
TOGETHER = 3  # terms (each in at most COMMON groups) two groups share at least, to be compared
GLOBAL = ""  # the global scope's `scope`
MEMBER_COLUMNS = (
    "m.id, m.name, m.kind, m.description, m.project, coalesce(m.updated, m.created, ''), m.valid_from, "
    "coalesce(m.updated, '')"
)
TABLES = ("gardener_words", "gardener_groups", "gardener_terms", "gardener_common", "gardener_findings")
EVERY = "*"  # gardener_pending's id when a run could not say which memories changed: every one is read again
REBUILD_SHARE = 0.2  # when more than this share of the active memories changed, a whole settle is cheaper
UPDATE_AT_MOST = 500  # memories below which a settle of some is always cheaper than a settle of the whole store


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
        """The same while nothing a finding says of this memory changes (its group among them: its text)."""
        fields = [self.name, self.kind, self.description, self.project or "\0", self.at, self.valid_from or ""]
        fields.append(self.updated)
        return hashlib.blake2b("\x1f".join(fields).encode("utf-8", "surrogatepass"), digest_size=8).digest()


Group = tuple[str, int]  # (scope, signature): a group's scope, and its key in the tables


def group(scope: str, signature: str) -> int:
    """A group's key in the tables: its scope and the reading's signature (gardener/wording.py) as a 64-bit integer, the
    one place they are mapped (8 bytes in every row and index that names a group, where the two took 30)."""
    text = f"{scope}\x1f{signature}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big", signed=True)


# The index run's share, and the state of the tables


def settle(db, changed: Iterable[str] | None, most: int | None = None) -> bool:
    """Bring the gardener's tables in step after an index run wrote its rows, inside its transaction: for the
    memories with ids `changed` (added, edited or removed), or for any of them (`changed` None: a run over the
    whole store, which settles those whose fingerprint changed). Together with what earlier runs left pending.

    When that is more than `most` memories' work (None: whatever it is), settle nothing: note `changed` in
    gardener_pending for a settle of its own (gardener_settle.py) and return True, the findings left behind.
    The tables say which rules settled them (index_meta `gardener`): with other rules (an upgrade), or none, every
    memory is settled."""
    stamped = stamp(db) == RULES
    every = not stamped or pending_every(db)  # every memory is to be read again
    if stamped and changed is None:
        changed = _changed(db)  # exact: what differs from the tables
    if not every and not changed and not _more_pending(db, 0):
        return False  # in step (a run that changed no memory, in a store the gardener is in step with)
    # more than `most`? Pending rows read no further than that: a write while a big settle is due stays cheap
    if most is not None and (active(db) > most if every else _more_pending(db, most - len(set(changed or ())))):
        ids = [EVERY] if changed is None else list(changed)
        if not stamped and not pending_every(db):
            ids.append(EVERY)  # said once
        add_pending(db, ids)
        return True
    waiting = {EVERY} if every else {row[1] for row in pending(db)}
    work = len(waiting | set(changed or ()))
    # (the count of active memories, 15 ms at 100,000, only where a whole settle may be the cheaper: not for a write)
    if every or (work > UPDATE_AT_MOST and work > REBUILD_SHARE * active(db)):
        rebuild(db, Readings())
        latest(db)
    else:
        update(db, sorted(waiting | set(changed or ())), Readings())
    mark_settled(db)
    return False


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


def in_step(db) -> bool:
    """Whether the tables were settled by these rules with nothing pending since."""
    return stamp(db) == RULES and db.execute("select 1 from gardener_pending limit 1").fetchone() is None


def stamp(db) -> str | None:
    row = db.execute("select value from index_meta where key = 'gardener'").fetchone()
    return row[0] if row else None


def pending(db) -> list[tuple[int, str]]:
    """gardener_pending's rows, (seq, id), in order."""
    return db.execute("select seq, id from gardener_pending order by seq").fetchall()


def pending_every(db) -> bool:
    """Whether gardener_pending says every memory is to be read again."""
    return db.execute("select 1 from gardener_pending where id = ?", (EVERY,)).fetchone() is not None


def _more_pending(db, n: int) -> bool:
    """Whether gardener_pending holds more than `n` rows (an id once or more), read no further than that."""
    return n < 0 or db.execute("select 1 from gardener_pending limit 1 offset ?", (n,)).fetchone() is not None


def add_pending(db, ids: Iterable[str]) -> None:
    db.executemany("insert into gardener_pending (id) values (?)", [(i,) for i in ids])


def mark_settled(db) -> None:
    """The tables are in step: these rules, now, nothing pending; one more settle counted (`gardener_round`, which a
    settle from a snapshot compares before it writes)."""
    db.executemany(
        "insert into index_meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value",
        [("gardener", RULES), ("gardener_settled", timestamps.now())],
    )
    db.execute(
        "insert into index_meta (key, value) values ('gardener_round', 1) "
        "on conflict (key) do update set value = cast(value as integer) + 1"
    )
    db.execute("delete from gardener_pending")


def settle_round(db) -> int:
    row = db.execute("select cast(value as integer) from index_meta where key = 'gardener_round'").fetchone()
    return row[0] if row else 0


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


def active(db) -> int:
    return db.execute("select count(*) from memories where status = 'active'").fetchone()[0]


def terms(reading: wording.Wording) -> frozenset[int]:
    """What a group is found by: its specific words (not generic ones: the verdict never counts those), and each
    value's kind and slot (`=port:`, `=setting:chroma port`). The one place the reading's fields become what the
    index stores: each term as a 32-bit key (`term_key`)."""
    found = set(reading.words - wording.GENERIC)
    for value in reading.values:
        found.add(f"={value.kind}:")
        if value.slot:
            found.add(f"={value.kind}:{value.slot}")
            if value.kind == "setting":
                found.update(f"=setting:{part}" for part in value.slot.split())
    return frozenset(map(term_key, found))


@functools.lru_cache(maxsize=65536)
def term_key(term: str) -> int:
    """A term as the tables hold it: 4 bytes, where its text took about 10. Two terms of one key are one term to
    the pairing (a rare extra pair to judge, never a lost one), the same in every settle."""
    return int.from_bytes(
        hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=4).digest(), "big", signed=True
    )


def pack(keys: Iterable[int]) -> bytes:
    """Term keys as gardener_groups stores them: sorted, 4 bytes each, little-endian."""
    ordered = sorted(keys)
    return struct.pack(f"<{len(ordered)}i", *ordered)


def unpack(blob: bytes | None) -> frozenset[int]:
    return frozenset(struct.unpack(f"<{len(blob) // 4}i", blob)) if blob else wording.EMPTY


class Readings:
    """The readings of one settle, each memory's made once: here as needed, or many at once on two cores
    (`read_ahead`: kept as wording.dump's bytes and decoded when needed). A whole settle lets go of the decoded ones
    it needs no more (`release`, `forget`): at 100,000 memories all of them at once weighed hundreds of megabytes."""

    def __init__(self):
        self.ahead: reader.Read = {}  # id -> (signature, reading as wording.dump), made ahead
        self.decoded: dict[str, wording.Wording] = {}

    def of(self, member: Member) -> wording.Wording:
        reading = self.decoded.get(member.id)
        if reading is None:
            made = self.ahead.get(member.id)
            if made is not None:
                reading = wording.load(made[1], member.kind)  # (the kind is given, not read: not in the bytes)
            else:
                reading = wording.read(member.name, member.description, member.kind)
            self.decoded[member.id] = reading
        return reading

    def signature(self, member: Member) -> int:
        """The group `member` belongs to."""
        made = self.ahead.get(member.id)
        if made is not None and member.id not in self.decoded:
            return group(_scope(member.project), made[0])  # no need to decode it for that
        return group(_scope(member.project), self.of(member).signature)

    def release(self, members: Iterable[Member]) -> None:
        """Decode the readings of `members` again when next needed."""
        for member in members:
            self.decoded.pop(member.id, None)

    def forget(self, members: Iterable[Member]) -> None:
        """Let go of the readings of `members` (not needed again in this settle)."""
        for member in members:
            self.decoded.pop(member.id, None)
            self.ahead.pop(member.id, None)

    def read_ahead(self, members: list[Member]) -> None:
        """Read at once the memories of `members`, on two cores when there are many (none when few: each is read
        when needed)."""
        texts = [(m.id, m.name or "", m.description or "") for m in members if m.id not in self.decoded]
        self.ahead.update(reader.read_all(texts))

    def take(self, rows: Iterable[tuple], stored: dict[str, tuple]) -> tuple[dict[str, tuple[Member, int]], list]:
        """Each active memory of `rows` (MEMBER_COLUMNS) with its group, and the gardener_words rows to write: those
        whose stored row (`stored`: id -> signature, member) is missing or holds another fingerprint (which covers
        the text and the scope, so an unchanged memory keeps its group unread)."""
        found: dict[str, tuple[Member, int]] = {}
        rows_to_write = []
        for row in rows:
            member = Member(*row)
            fingerprint = member.fingerprint
            kept = stored.get(member.id)
            if kept is not None and kept[1] == fingerprint:
                signature = kept[0]
            else:
                signature = self.signature(member)
                rows_to_write.append((member.id, signature, fingerprint))
            found[member.id] = (member, signature)
        return found, rows_to_write


def _scope(project: str | None) -> str:
    return project if project is not None else GLOBAL


WRITE_WORDS = "insert or replace into {into}gardener_words (id, signature, member) values (?, ?, ?)"
WORDS = "select id, signature, member from gardener_words"


# A whole store at once


def rebuild(db, readings: Readings, into: str = "") -> None:
    """Settle every active memory from nothing, into the tables of schema `into` ("temp.": a settle from a snapshot
    writes its own copies, gardener_settle.py; "": the index's own)."""
    for table in TABLES:
        db.execute(f"delete from {into}{table}")
    members = [
        Member(*row) for row in db.execute(f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active'")
    ]
    readings.read_ahead(members)
    groups: dict[Group, list[Member]] = defaultdict(list)
    rows = []
    for member in members:
        signature = readings.signature(member)
        rows.append((member.id, signature, member.fingerprint))
        groups[(_scope(member.project), signature)].append(member)
    del members
    for group_members in groups.values():  # a memory alone in its group, read ahead, is judged by its reading alone:
        only = group_members[0]  # its name and description go (some 20 MB at 100,000)
        if len(group_members) == 1 and only.id in readings.ahead:
            group_members[0] = only._replace(name="", description="")
    rows.sort()  # in the order of the table's key: a new table's pages fill in turn
    db.executemany(WRITE_WORDS.format(into=into), rows)
    del rows  # (a big store's: the memory of a whole settle is watched, docs/performance.md)
    # each group's terms as a sorted tuple: a fifth of a frozenset's weight, eighty thousand times
    group_terms: dict[Group, tuple[int, ...]] = {}
    counts: dict[str, Counter[int]] = defaultdict(Counter)  # scope -> term -> groups holding it
    findings = Findings(db, into)
    for key, members_of in groups.items():
        members_of.sort(key=lambda m: m.order)
        readings.forget(members_of[:-1])  # a group is judged by its newest memory
        read = terms(readings.of(members_of[-1]))
        group_terms[key] = tuple(sorted(read))
        counts[key[0]].update(read)
        findings.add(_group_findings(key, members_of, readings))
        readings.release(members_of[-1:])  # decoded again if the group is paired
    db.executemany(
        f"insert into {into}gardener_groups (signature, scope, terms) values (?, ?, ?)",
        sorted((signature, scope, pack(held)) for (scope, signature), held in group_terms.items()),
    )
    postings: dict[str, dict[int, list[int]]] = defaultdict(dict)  # scope -> term -> groups, the terms not common
    unpaired: list[Group] = []
    for key, held in group_terms.items():
        rare, counted, posted = 0, counts[key[0]], postings[key[0]]
        for term in held:
            if counted[term] <= COMMON:
                posted.setdefault(term, []).append(key[1])
                rare += 1
        if rare < TOGETHER:  # never paired: its reading and terms are not needed again
            readings.forget(groups[key][-1:])
            unpaired.append(key)
    for key in unpaired:
        del group_terms[key], groups[key]
    db.executemany(
        f"insert into {into}gardener_terms (scope, term, signature) values (?, ?, ?)",
        sorted(
            (scope, term, signature)
            for scope, posted in postings.items()
            for term, signatures in posted.items()
            for signature in signatures
        ),
    )
    db.executemany(
        f"insert into {into}gardener_common (scope, term, groups) values (?, ?, ?)",
        sorted((scope, term, n) for scope, counted in counts.items() for term, n in counted.items() if n > COMMON),
    )
    del counts
    for key, members_of in groups.items():
        scope, signature = key
        posted = postings[key[0]]
        holders = [posted[term] for term in group_terms[key] if term in posted]
        if len(holders) < TOGETHER:
            continue  # most groups: too few terms that are not common to share enough with another
        others = [o for o, n in Counter(chain.from_iterable(holders)).items() if n >= TOGETHER and o > signature]
        findings.add(_pair_findings(key, members_of, {(scope, o): groups[(scope, o)] for o in others}, readings))
    findings.flush()


class Findings:
    """Findings to insert, written a few thousand at a time (a big store's fifty thousand at once weigh)."""

    def __init__(self, db, into: str = ""):
        self.db, self.into = db, into
        self.rows: list[tuple] = []

    def add(self, found: list[tuple]) -> None:
        self.rows += found
        if len(self.rows) >= 5000:
            self.flush()

    def flush(self) -> None:
        _insert(self.db, self.rows, self.into)
        self.rows = []


# Some memories changed: the groups they touch, read back from the index


def update(db, changed: list[str], readings: Readings) -> None:
    """Settle the memories with ids `changed` (added, edited or removed) into the index's tables."""
    affected: set[int] = set()
    for chunk in _chunks(changed):
        marks = ",".join("?" * len(chunk))
        stored = {row[0]: row[1:] for row in db.execute(f"{WORDS} where id in ({marks})", chunk)}
        affected |= {row[0] for row in stored.values()}
        active, rows = readings.take(
            db.execute(
                f"select {MEMBER_COLUMNS} from memories as m where m.status = 'active' and m.id in ({marks})", chunk
            ),
            stored,
        )
        db.executemany("delete from gardener_words where id = ?", [(i,) for i in stored if i not in active])
        db.executemany(WRITE_WORDS.format(into=""), rows)
        affected |= {signature for _, signature in active.values()}
    affected |= _update_terms(db, affected, readings)
    for signature in affected:
        db.execute("delete from gardener_findings where signature = ?", (signature,))
        db.execute("delete from gardener_findings where other = ?", (signature,))
    findings = []
    for signature in sorted(affected):
        members = _members(db, signature)
        if not members:
            continue
        key = (_scope(members[-1].project), signature)
        findings += _group_findings(key, members, readings)
        others = {
            (key[0], other): _members(db, other)
            for other in _candidates(db, key)
            if other not in affected or other > signature
        }
        findings += _pair_findings(key, members, others, readings)
    _insert(db, findings)


def _chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _members(db, signature: int) -> list[Member]:
    """The group's memories, oldest first."""
    rows = db.execute(
        f"select {MEMBER_COLUMNS} from gardener_words as w join memories as m on m.id = w.id where w.signature = ?",
        (signature,),
    )
    return sorted((Member(*row) for row in rows), key=lambda m: m.order)


def _group_terms(db, signature: int) -> frozenset[int]:
    """A group's terms, as stored."""
    row = db.execute("select terms from gardener_groups where signature = ?", (signature,)).fetchone()
    return unpack(row[0]) if row else wording.EMPTY


def _update_terms(db, groups: set[int], readings: Readings) -> set[int]:
    """Write the terms of `groups` again (their newest memory may have changed), and the postings and counts of the
    terms they gained or lost; return the other groups holding a term whose count crossed COMMON, whose pairs are
    to be settled again too."""
    gained: dict[tuple[str, int], list[int]] = defaultdict(list)  # (scope, term) -> groups
    lost: dict[tuple[str, int], list[int]] = defaultdict(list)
    for signature in sorted(groups):
        row = db.execute("select scope, terms from gardener_groups where signature = ?", (signature,)).fetchone()
        old = unpack(row[1]) if row else wording.EMPTY
        members = _members(db, signature)
        if members:
            scope = _scope(members[-1].project)
            new = terms(readings.of(members[-1]))
            db.execute(
                "insert or replace into gardener_groups (signature, scope, terms) values (?, ?, ?)",
                (signature, scope, pack(new)),
            )
        elif row:
            scope, new = row[0], wording.EMPTY
            db.execute("delete from gardener_groups where signature = ?", (signature,))
        else:
            continue
        for term in new - old:
            gained[(scope, term)].append(signature)
        for term in old - new:
            lost[(scope, term)].append(signature)
    crossed: set[int] = set()
    for term_key in sorted(gained.keys() | lost.keys()):
        crossed |= _recount(db, term_key, gained.get(term_key, []), lost.get(term_key, []))
    return crossed


def _recount(db, key: tuple[str, int], gained: list[int], lost: list[int]) -> set[int]:
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
            signature
            for signature, held in db.execute("select signature, terms from gardener_groups where scope = ?", (scope,))
            if term in unpack(held)
        ]
        db.executemany(INSERT_POSTING, [(scope, term, s) for s in now])
    else:  # common now: its postings go
        db.execute("delete from gardener_terms where scope = ? and term = ?", key)
        db.execute("insert into gardener_common (scope, term, groups) values (?, ?, ?)", (scope, term, after))
        now = sorted((set(holders) - set(lost)) | set(gained))
    return set(now)


POSTINGS = "select signature from gardener_terms where scope = ? and term = ?"
INSERT_POSTING = "insert into gardener_terms (scope, term, signature) values (?, ?, ?)"
DELETE_POSTING = "delete from gardener_terms where scope = ? and term = ? and signature = ?"


def _candidates(db, key: Group) -> set[int]:
    """The other groups of the scope sharing TOGETHER terms or more with `key`, each in at most COMMON groups."""
    shared: Counter[int] = Counter()
    for term in _group_terms(db, key[1]):
        shared.update(row[0] for row in db.execute(POSTINGS, (key[0], term)))
    shared.pop(key[1], None)
    return {other for other, n in shared.items() if n >= TOGETHER}


# The findings' rows: what was found and about whom. gardener.sql words each one's reason and command from its
# memories as they are, so a rename shows at once and no text is stored twice.


def _group_findings(key: Group, members: list[Member], readings: Readings) -> list[tuple]:
    """One group's own findings: its copies (two or more), and a vague description."""
    signature = key[1]
    found: list[tuple] = []
    oldest, newest = members[0], members[-1]
    vague = readings.of(newest).vague
    if len(members) == 1 and not vague:
        return found  # most groups
    ids = json.dumps([m.id for m in members])
    since = _since(members)
    if len(members) > 1:
        evidence = f"the same description: {_quoted(newest.description)}"
        found.append((RANK["duplicate"], oldest.updated or None, ids, signature, None, evidence, since))
    if vague:
        found.append((RANK["vague-description"], oldest.updated or None, ids, signature, None, vague, since))
    return found


def _pair_findings(key: Group, members: list[Member], others: dict[Group, list[Member]], readings: Readings) -> list:
    """The verdicts on group `key` with each of `others` (each group by its newest memory)."""
    found = []
    mine = members[-1]
    for other_key, other_members in sorted(others.items()):
        if not other_members:
            continue
        theirs = other_members[-1]
        older, newer = (mine, theirs) if mine.order < theirs.order else (theirs, mine)
        verdict = sameness.judge(readings.of(older), readings.of(newer))
        if verdict is None:
            continue
        groups = {mine.id: key[1], theirs.id: other_key[1]}
        found.append(
            (
                RANK[verdict.proposal],
                older.updated or None,  # (as memories.updated: the gardener's order is theirs)
                json.dumps([older.id, newer.id]),
                groups[older.id],
                groups[newer.id],
                verdict.evidence,
                _since([older, newer]),
            )
        )
    return found


def _since(members: list[Member]) -> int:
    """From when every one of `members` is valid (they are active: none stops being valid), in seconds since 1970:
    8 bytes where the text took 20, and as exact (the index's times are whole seconds, canonical UTC text)."""
    latest = max(m.valid_from or "" for m in members)
    return _epoch(latest) if latest else ALWAYS


@functools.lru_cache(maxsize=4096)
def _epoch(timestamp: str) -> int:
    return calendar.timegm(time.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ"))


ALWAYS = -62135596800  # 0001-01-01T00:00:00Z: before any time an as_of can name


def _quoted(description: str) -> str:
    shown = description if len(description) <= 80 else description[:77] + "..."
    return f"“{shown}”"


RANK = {proposal: PROPOSAL_ORDER.index(proposal) for proposal in FINDINGS}  # a finding's rank: what it is, and its
# place in the gardener's order (as PROPOSAL_RANK, and gardener.sql's PROPOSAL_OF)


def _insert(db, findings: list[tuple], into: str = "") -> None:
    db.executemany(
        f"insert into {into}gardener_findings (rank, updated, ids, signature, other, evidence, since) "
        "values (?, ?, ?, ?, ?, ?, ?)",
        findings,
    )
    if findings and not into:
        latest(db, max(f[-1] for f in findings))


def latest(db, since: int | None = None) -> None:
    """Keep index_meta `gardener_since` at least the latest `since` of any finding (raised to `since`; None: read
    from the findings): from then on every finding is valid, and a page counts them without reading one
    (needs_human_page.sql). A finding removed leaves it as it was: still at least the latest."""
    if since is None:
        since = db.execute("select max(since) from gardener_findings").fetchone()[0]
        if since is None:
            db.execute("delete from index_meta where key = 'gardener_since'")
            return
        db.execute(
            "insert into index_meta (key, value) values ('gardener_since', ?) "
            "on conflict (key) do update set value = excluded.value",
            (since,),
        )
        return
    db.execute(
        "insert into index_meta (key, value) values ('gardener_since', ?) on conflict (key) do update "
        "set value = max(cast(value as integer), excluded.value)",
        (since,),
    )
