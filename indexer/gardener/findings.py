"""The gardener's findings in the index (SPEC section 12), kept in step with the active memories of each scope: how,
and why a settle of some memories gives what a settle of the whole store gives, is docs/queries.md's "Kept in step,
cheaply" (TOGETHER and COMMON are its three terms and its 100 groups).
"""

import hashlib
import json
import struct
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from itertools import chain, starmap

from indexer.gardener import rules
from indexer.gardener.reading import GENERIC, Reading, read
from indexer.gardener.stamp import stamp
from indexer.sql.canned import FINDINGS, PROPOSAL_ORDER
from indexer.store import timestamps

IN_RUN = 2_000  # the most memories an index run settles itself; more are left to a settle of its own
COMMON = 100  # a term in more groups of a scope than this brings no two together
TOGETHER = 3  # terms (each in at most COMMON groups) two groups share at least, to be compared
EVERY = "*"  # gardener_pending's id when every memory is to be read again
TABLES = ("gardener_words", "gardener_groups", "gardener_terms", "gardener_common", "gardener_findings")
RANK = {proposal: PROPOSAL_ORDER.index(proposal) for proposal in FINDINGS}  # a finding's place in the gardener's order
MEMBER = """coalesce(m.updated, m.created, ''), m.id, m.name, m.description, coalesce(m.project, ''), m.valid_from,
    coalesce(m.updated, '')"""
POSTINGS = "select signature from gardener_terms where scope = ? and term = ?"


@dataclass(slots=True, order=True)
class Member:
    """An active memory, as a finding names it; in order, the older first."""

    at: str  # updated (or created)
    id: str
    name: str
    description: str
    scope: str  # its project, '' for global
    valid_from: str | None
    updated: str  # as the gardener's order reads it ('' when none)

    @property
    def fingerprint(self) -> bytes:
        """The same while nothing a finding says of this memory changes."""
        said = (self.at, self.id, self.name, self.description, self.scope, self.valid_from or "", self.updated)
        return hashlib.blake2b("\x1f".join(said).encode("utf-8", "surrogatepass"), digest_size=8).digest()

    def reading(self) -> Reading:
        return read(self.name, self.description)


@lru_cache(maxsize=65536)
def _hash(text: str, size: int) -> int:
    """A group's key (its scope and signature, 8 bytes) or a term's (4 bytes: two terms of one key are one term, a
    rare extra pair to judge)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=size).digest()
    return int.from_bytes(digest, "big", signed=True)


def terms(reading: Reading) -> tuple[int, ...]:
    """What a group is found by, sorted: its telling words, and each value's slot (`=setting:chroma port`, and each
    part of a setting's key)."""
    found = set(reading.words - GENERIC)
    for value in reading.values:
        found.add(f"={value.kind}:{value.slot}")
        found.update(f"=setting:{part}" for part in value.slot.split() if value.kind == "setting")
    return tuple(sorted(_hash(term, 4) for term in found))


def pack(keys: Iterable[int]) -> bytes:
    return struct.pack(f"<{len(keys := sorted(keys))}i", *keys)


def unpack(blob: bytes | None) -> frozenset[int]:
    return frozenset(struct.unpack(f"<{len(blob) // 4}i", blob)) if blob else frozenset()


# --- The index run's share, and the state of the tables ---


def settle(db, changed: Iterable[str] | None, most: int | None = None) -> bool:
    """Bring the tables in step after an index run wrote its rows, in its transaction: for the memories with ids
    `changed` (added, edited or removed), or (None) those whose fingerprint changed, and what earlier runs left
    pending. When that is more than `most` memories (None: any number), note it in gardener_pending for a settle of
    its own and return True: the findings are left behind."""
    pending_every = db.execute("select 1 from gardener_pending where id = ?", (EVERY,)).fetchone() is not None
    every = db.execute("select value from index_meta where key = 'gardener'").fetchone() != (stamp(db),)
    every = every or pending_every
    ids = set(_changed(db) if changed is None and not every else changed or ())
    if most is not None:  # pending rows counted no further than `most`: a write while a big settle is due is cheap
        waiting = db.execute("select count(*) from (select 1 from gardener_pending limit ?)", (max(most, 0) + 1,))
        if _active(db) > most if every else len(ids) + waiting.fetchone()[0] > most:
            # a run over the whole store that could not say what it changed, or a first `*`: every memory
            new = [EVERY] if every and (changed is None or not pending_every) else sorted(ids)
            db.executemany("insert into gardener_pending (id) values (?)", [(i,) for i in new])
            return True
    ids |= {row[0] for row in db.execute("select id from gardener_pending")}
    if not (every or ids):
        return False
    # (the count of active memories, 15 ms at 100,000, only where a whole settle may be the cheaper: not for a write)
    if every or (len(ids) > 500 and len(ids) > 0.2 * _active(db)):
        write(db, rebuild(db))
    else:
        update(db, sorted(ids))
    now = [("gardener", stamp(db)), ("gardener_settled", timestamps.now())]
    db.executemany("insert or replace into index_meta (key, value) values (?, ?)", now)
    db.execute("delete from gardener_pending")
    return False


def _active(db) -> int:
    return db.execute("select count(*) from memories where status = 'active'").fetchone()[0]


def _changed(db) -> list[str]:
    """The memories whose findings may have changed since the last settle: active ones with another fingerprint
    (or none), and those no longer active."""
    stored = dict(db.execute("select id, member from gardener_words"))
    changed = []
    for member in starmap(Member, db.execute(f"select {MEMBER} from memories as m where m.status = 'active'")):
        if stored.pop(member.id, None) != member.fingerprint:
            changed.append(member.id)
    return changed + list(stored)


# --- A whole store at once ---


def rebuild(db) -> dict[str, list[tuple]]:
    """Every active memory settled from nothing: the rows of each table (TABLES), to `write`."""
    on = stamp(db).split()[1:]
    groups: dict[tuple[str, int], list[tuple[Member, tuple[int, ...], str | None]]] = defaultdict(list)
    for member in starmap(Member, db.execute(f"select {MEMBER} from memories as m where m.status = 'active'")):
        reading = member.reading()  # (what a group needs of its newest is kept, small: its terms and vagueness)
        key = _hash(f"{member.scope}\x1f{reading.signature}", 8)
        groups[(member.scope, key)].append((member, terms(reading), reading.vague))
    words, found, members, group_terms = [], [], {}, {}
    counts: dict[str, Counter[int]] = defaultdict(Counter)  # scope -> term -> groups holding it
    for (scope, key), read_ in groups.items():
        read_.sort()
        members[key] = [m for m, _, _ in read_]
        words += [(m.id, key, m.fingerprint) for m in members[key]]
        found += _group_findings(key, members[key], on, read_[-1][2])
        group_terms[(scope, key)] = read_[-1][1]
        counts[scope].update(read_[-1][1])
    postings: dict[str, dict[int, list[int]]] = defaultdict(dict)  # scope -> term -> groups, for the terms not common
    for (scope, key), held in group_terms.items():
        for term in held:
            if counts[scope][term] <= COMMON:
                postings[scope].setdefault(term, []).append(key)
    readings: dict[str, Reading] = {}  # of the groups that pair, each read once
    for (scope, key), held in group_terms.items():
        holders = [postings[scope][term] for term in held if term in postings[scope]]
        if len(holders) >= TOGETHER:  # (most groups share too few terms that are not common with any other)
            others = [o for o, n in Counter(chain.from_iterable(holders)).items() if n >= TOGETHER and o > key]
            found += _pair_findings(key, members[key], {o: members[o] for o in others}, on, readings)
    posted = [(s, t, g) for s, by_term in postings.items() for t, keys in by_term.items() for g in keys]
    return {
        "gardener_words": sorted(words),
        "gardener_groups": sorted((key, scope, pack(held)) for (scope, key), held in group_terms.items()),
        "gardener_terms": sorted(posted),
        "gardener_common": sorted((s, t, n) for s, counted in counts.items() for t, n in counted.items() if n > COMMON),
        "gardener_findings": found,
    }


def write(db, tables: dict[str, list[tuple]]) -> None:
    """Put `tables` (rebuild's) in place of the gardener's tables."""
    for table, rows in tables.items():
        db.execute(f"delete from {table}")
        if rows:
            db.executemany(f"insert into {table} values ({', '.join('?' * len(rows[0]))})", rows)
    db.execute("delete from index_meta where key = 'gardener_since'")
    latest(db, db.execute("select max(since) from gardener_findings").fetchone()[0])


# --- Some memories changed: the groups they touch, read back from the index ---


def update(db, changed: list[str]) -> None:
    """Settle the memories with ids `changed` (added, edited or removed) into the index's tables."""
    on = stamp(db).split()[1:]
    affected: set[int] = set()
    for start in range(0, len(changed), 500):
        chunk = changed[start : start + 500]
        marks = ",".join("?" * len(chunk))
        affected |= {r[0] for r in db.execute(f"select signature from gardener_words where id in ({marks})", chunk)}
        db.execute(f"delete from gardener_words where id in ({marks})", chunk)
        query = f"select {MEMBER} from memories as m where m.status = 'active' and m.id in ({marks})"
        for member in starmap(Member, db.execute(query, chunk).fetchall()):
            key = _hash(f"{member.scope}\x1f{member.reading().signature}", 8)
            db.execute("insert into gardener_words values (?, ?, ?)", (member.id, key, member.fingerprint))
            affected.add(key)
    affected |= _update_terms(db, affected)
    found = []
    for key in sorted(affected):
        db.execute("delete from gardener_findings where signature = ? or other = ?", (key, key))
        if members := _members(db, key):
            candidates = _candidates(db, members[-1].scope, key)
            others = {o: _members(db, o) for o in candidates if o not in affected or o > key}
            found += _group_findings(key, members, on) + _pair_findings(key, members, others, on)
    db.executemany("insert into gardener_findings values (?, ?, ?, ?, ?, ?, ?)", found)
    latest(db, max((f[-1] for f in found), default=None))


def _members(db, key: int) -> list[Member]:
    """The group's memories, oldest first."""
    query = f"select {MEMBER} from gardener_words as w join memories as m on m.id = w.id where w.signature = ?"
    return sorted(starmap(Member, db.execute(query, (key,))))


def _update_terms(db, keys: set[int]) -> set[int]:
    """Write the terms of the groups `keys` again (their newest memory may have changed), and the postings and counts
    of the terms they gained or lost; return the other groups holding a term whose count crossed COMMON."""
    gained: dict[tuple[str, int], list[int]] = defaultdict(list)  # (scope, term) -> groups
    lost: dict[tuple[str, int], list[int]] = defaultdict(list)
    for key in sorted(keys):
        row = db.execute("select scope, terms from gardener_groups where signature = ?", (key,)).fetchone()
        db.execute("delete from gardener_groups where signature = ?", (key,))
        old, scope, new = unpack(row[1] if row else None), row[0] if row else "", frozenset[int]()
        if members := _members(db, key):
            scope, new = members[-1].scope, frozenset(terms(members[-1].reading()))
            db.execute("insert into gardener_groups values (?, ?, ?)", (key, scope, pack(new)))
        for term in new - old:
            gained[(scope, term)].append(key)
        for term in old - new:
            lost[(scope, term)].append(key)
    crossed: set[int] = set()
    for scope, term in sorted(gained.keys() | lost.keys()):
        plus, minus = gained[(scope, term)], lost[(scope, term)]
        row = db.execute("select groups from gardener_common where scope = ? and term = ?", (scope, term)).fetchone()
        holders = set() if row else {r[0] for r in db.execute(POSTINGS, (scope, term))}
        after = (row[0] if row else len(holders)) + len(plus) - len(minus)
        if row and after > COMMON:  # common before and after
            db.execute("update gardener_common set groups = ? where scope = ? and term = ?", (after, scope, term))
        elif not row and after <= COMMON:  # rare before and after
            deleting = [(scope, term, k) for k in minus]
            db.executemany("delete from gardener_terms where scope = ? and term = ? and signature = ?", deleting)
            db.executemany("insert into gardener_terms values (?, ?, ?)", [(scope, term, k) for k in plus])
        elif row:  # no longer common: its groups are found again (their terms are written first)
            db.execute("delete from gardener_common where scope = ? and term = ?", (scope, term))
            held = db.execute("select signature, terms from gardener_groups where scope = ?", (scope,)).fetchall()
            now = {k for k, blob in held if term in unpack(blob)}
            db.executemany("insert into gardener_terms values (?, ?, ?)", [(scope, term, k) for k in now])
            crossed |= now
        else:  # common now: its postings go
            db.execute("delete from gardener_terms where scope = ? and term = ?", (scope, term))
            db.execute("insert into gardener_common values (?, ?, ?)", (scope, term, after))
            crossed |= (holders - set(minus)) | set(plus)
    return crossed


def _candidates(db, scope: str, key: int) -> set[int]:
    """The other groups of the scope sharing TOGETHER terms or more with `key`, each in at most COMMON groups."""
    row = db.execute("select terms from gardener_groups where signature = ?", (key,)).fetchone()
    shared = Counter(r[0] for term in unpack(row[0] if row else None) for r in db.execute(POSTINGS, (scope, term)))
    return {other for other, n in shared.items() if n >= TOGETHER and other != key}


# --- The findings' rows: what was found and about whom (gardener.sql words the rest from the memories as they are) ---


def _group_findings(key: int, members: list[Member], on: list[str], vague: str | None = "?") -> list[tuple]:
    """One group's own findings: its copies (two or more), and a vague description (`vague`: why, when known)."""
    oldest, newest = members[0], members[-1]
    vague = (newest.reading().vague if vague == "?" else vague) if "vague-description" in on else None
    ids, since, found = json.dumps([m.id for m in members]), _since(members), []
    if len(members) > 1 and "duplicate" in on:
        shown = newest.description if len(newest.description) <= 80 else newest.description[:77] + "..."
        evidence = f"the same description: “{shown}”"
        found.append((RANK["duplicate"], oldest.updated or None, ids, key, None, evidence, since))
    if vague:
        found.append((RANK["vague-description"], oldest.updated or None, ids, key, None, vague, since))
    return found


def _pair_findings(key, members: list[Member], others: dict[int, list[Member]], on, readings=None) -> list[tuple]:
    """The verdicts on group `key` with each of `others`, each group by its newest memory (`readings`: those made)."""
    readings, found = {} if readings is None else readings, []
    for other, their_members in sorted(others.items()):
        if not their_members:
            continue
        (older, first), (newer, second) = sorted([(members[-1], key), (their_members[-1], other)])
        for m in (older, newer):
            if m.id not in readings:
                readings[m.id] = m.reading()
        verdict = rules.judge(readings[older.id], readings[newer.id])
        if verdict is not None and verdict.proposal in on:
            ids, since = json.dumps([older.id, newer.id]), _since([older, newer])
            found.append((RANK[verdict.proposal], older.updated or None, ids, first, second, verdict.evidence, since))
    return found


def _since(members: list[Member]) -> int:
    """From when every one of `members` is valid, in seconds since 1970 (0001-01-01 when none says)."""
    latest_ = max(m.valid_from or "" for m in members)
    return int(datetime.fromisoformat(latest_).timestamp()) if latest_ else -62135596800


def latest(db, since: int | None) -> None:
    """Keep index_meta `gardener_since` at least `since`, the latest of any finding: from then on every finding is
    valid, and a page counts them without reading one (needs_human_page.sql)."""
    if since is not None:
        db.execute(
            "insert into index_meta (key, value) values ('gardener_since', ?) on conflict (key) do update "
            "set value = max(cast(value as integer), excluded.value)",
            (since,),
        )
