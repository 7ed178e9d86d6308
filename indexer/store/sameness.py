"""Whether two memories of one scope say the same thing, or disagree (SPEC section 12). Pure: two `Wording`s in,
a verdict out, so a pair's verdict depends on the pair alone and an index run may settle it for the memories it
touched only.

- duplicate: the word sets (stems of the name and the description) overlap by DUPLICATE_AT (Jaccard) or more, and
  the numbers agree (one's are among the other's) and no value conflicts.
- contradiction: a named setting with two values (`CHROMA_PORT=8765` and `CHROMA_PORT=9000`); or another value of
  the same kind and slot (a port, a version of one product, a file's path, a quantity in one unit) that differs,
  between memories whose subjects overlap by SUBJECT_AT or more; or a word one denies ("never auto-apply") and the
  other states plainly ("auto-applied after 7 days"), between memories whose subjects overlap by SUBJECT_AT or
  more, unless the one that states it tells of a failure ("a stray print() corrupts stdout" restates "never print").

The thresholds were chosen on the dev half of tests/fixtures/gardener/pairs.yaml (docs/performance.md).
"""

from dataclasses import dataclass

from indexer.store.wording import GENERIC, STOPWORDS, Value, Wording, duration_text

DUPLICATE_AT = 0.33  # Jaccard of the word sets
AGREEING_AT = 0.25  # the same, for two that state a specific value alike (a version, a port, a path, a setting)
SPECIFIC_KINDS = ("version", "port", "path", "setting")
MIN_SHARED = 3  # specific (not generic) words two duplicates have in common at least
MAX_UNSHARED_NAMES = 3  # names (identifiers, products) one of two duplicates has and the other never mentions
SUBJECT_AT = 0.25  # overlap of the subjects' words (shared / the smaller set)
NAMED_SUBJECT_AT = 0.15  # the same, for a value in a named slot (a setting, a product's version, a file's path)
MAGNITUDE = 16  # two quantities of one thing are within this factor of each other


@dataclass(frozen=True)
class Verdict:
    """A pair's verdict: `proposal` (duplicate or contradiction) and the evidence a person checks at a glance."""

    proposal: str
    evidence: str
    score: float  # how alike the two read (Jaccard of the word sets)


def judge(a: Wording, b: Wording) -> Verdict | None:
    """The verdict on two active memories of one scope, or None when they are simply different."""
    wa, wb = a.words, b.words
    shared = len(wa & wb)
    similarity = shared / (len(wa) + len(wb) - shared) if wa or wb else 0.0  # Jaccard
    if similarity < DUPLICATE_AT:
        if (
            a.slots.isdisjoint(b.slots)
            and a.negated.isdisjoint(b.asserted)
            and b.negated.isdisjoint(a.asserted)
            and not (a.sides and b.sides)
        ):
            return None  # most pairs: not alike enough to say the same, and nothing to disagree on
        subject = subject_overlap(a, b)
        if subject < NAMED_SUBJECT_AT and similarity < AGREEING_AT and "setting" not in a.slots & b.slots:
            return None  # too little in common to disagree on, but a named setting (which needs no subject)
    else:
        subject = subject_overlap(a, b)
    conflicts = value_conflicts(a, b)
    apart: bool | None = None  # siblings(a, b), when a rule needs it

    def things_apart() -> bool:
        nonlocal apart
        if apart is None:
            apart = siblings(a, b)
        return apart

    def same_things() -> bool:
        # when both name things, one names something the other mentions
        named_alike = not (a.names and b.names) or not (a.names.isdisjoint(wb) and b.names.isdisjoint(wa))
        return named_alike and not things_apart()

    if conflicts:
        # a slot with a name (a setting's key, a named product's version) says what the value is of, whatever else
        # each names; an unnamed one (a port, a bare version) needs the same subject and the same things
        named = [c for c in conflicts if c.slot and c.kind in ("setting", "version", "path")]
        if named and (named[0].kind == "setting" or (subject >= NAMED_SUBJECT_AT and not things_apart())):
            return Verdict("contradiction", named[0].text, similarity)
        if subject >= SUBJECT_AT and same_things():
            return Verdict("contradiction", conflicts[0].text, similarity)
    # a denial: the two are about the same thing besides the word one denies and the other states
    gone = denials(a, b, gone=True)  # what one says is no more, the other uses: about it whatever else they name
    if gone and subject_overlap(a, b, gone[1]) >= SUBJECT_AT and not things_apart():
        return Verdict("contradiction", gone[0], similarity)
    said = denials(a, b)
    denied = said[0] if said else opposed(a, b)
    if denied and subject_overlap(a, b, said[1] if said else ()) >= SUBJECT_AT and same_things():
        return Verdict("contradiction", denied, similarity)
    if (
        (similarity >= DUPLICATE_AT or (similarity >= AGREEING_AT and agreements(a, b)))
        and not conflicts
        and not denied  # one says no to what the other says: not the same thing said twice
        and len((wa & wb) - GENERIC) >= MIN_SHARED
        and numbers_agree(a, b)
        and len(unshared_names(a, b)) <= MAX_UNSHARED_NAMES
    ):
        words = b.spelled(sorted(wa & wb, key=lambda w: (w.isalpha(), w)))
        more = f" and {len(words) - 8} more" if len(words) > 8 else ""
        return Verdict("duplicate", f"{len(words)} words in common: {', '.join(words[:8])}{more}", similarity)
    return None


def agreements(a: Wording, b: Wording) -> int:
    """How many specific values the two state alike: a version, a port, a path, a setting (`2.9.3` and `2.10` in
    both); not quantities, which boilerplate shares ("a day ahead", "for 30 s")."""
    va = {(v.kind, v.slot, v.value) for v in a.values if v.kind in SPECIFIC_KINDS and not v.former}
    vb = {(v.kind, v.slot, v.value) for v in b.values if v.kind in SPECIFIC_KINDS and not v.former}
    return len(va & vb)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared) if a or b else 0.0


def subject_overlap(a: Wording, b: Wording, besides=()) -> float:
    """Shared subject words (specific ones: not generic, not values) over the smaller subject, `besides` left out."""
    sa, sb = a.specific_subject, b.specific_subject
    if besides:
        sa, sb = sa.difference(besides), sb.difference(besides)
    return len(sa & sb) / min(len(sa), len(sb)) if sa and sb else 0.0


def _same_slot(kind: str, slot_a: str, slot_b: str) -> bool:
    """A version of no named product may be of any; a setting's key may name fewer parts (`budget`, `budget chars`)."""
    if slot_a == slot_b:
        return True
    if kind == "version":
        return not slot_a or not slot_b
    if kind == "setting":
        pa, pb = set(slot_a.split()), set(slot_b.split())
        return pa <= pb or pb <= pa
    return False


@dataclass(frozen=True)
class Conflict:
    """One slot both memories fill with values neither holds all of."""

    kind: str
    slot: str  # '' when the two name it differently (a version of no named product)
    label: str
    older: tuple[str, ...]
    newer: tuple[str, ...]

    @property
    def text(self) -> str:
        what = self.label or self.kind
        if self.kind == "version" and self.label:
            what = f"{self.label} version"
        elif self.kind == "quantity" and self.slot in ("duration", "frequency"):
            older, newer = (", ".join(duration_text(v) for v in values) for values in (self.older, self.newer))
            every = "every " if self.slot == "frequency" else ""
            return f"{'how often' if every else 'duration'}: {every}{older} in one, {every}{newer} in the other"
        elif self.kind == "quantity" and self.slot == "duration":
            older, newer = (", ".join(duration_text(v) for v in values) for values in (self.older, self.newer))
            return f"duration: {older} in one, {newer} in the other"
        elif self.kind == "quantity":
            what = f"{self.label or 'quantity'}"
        elif self.kind == "polar":
            what = f"{self.label or 'which way'}"
        return f"{what}: {', '.join(self.older)} in one, {', '.join(self.newer)} in the other"


def value_conflicts(a: Wording, b: Wording) -> list[Conflict]:
    """Each slot both fill, each with a value the other never mentions (`a` is the older memory)."""
    sa, sb = a.stated, b.stated
    if not sa or not sb:
        return []
    mentioned_a, mentioned_b = a.mentioned, b.mentioned
    labels: dict[tuple[str, str], str] | None = None
    found = []
    for (kind, slot_a), va in a.stated_items:
        if kind == "number":
            continue  # a bare number (no unit, product or key) does not say what it counts: `gate 00`, `gate 01`
        for (kind_b, slot_b), vb in b.stated_items:
            if kind_b != kind or not _same_slot(kind, slot_a, slot_b):
                continue
            if kind == "setting" and slot_a == slot_b:
                differ = va.isdisjoint(vb)  # one key, two values: whatever else either mentions
            else:
                differ = bool(va - mentioned_b) and bool(vb - mentioned_a)
            if differ and (kind not in ("quantity", "number") or _comparable(va, vb)):
                slot = slot_a if slot_a == slot_b else ""
                if labels is None:
                    labels = {(v.kind, v.slot): v.label for v in (*b.values, *a.values)}
                label = labels.get((kind, slot_a)) or labels.get((kind, slot_b)) or ""
                found.append(Conflict(kind, slot, label, tuple(sorted(va)), tuple(sorted(vb))))
    return sorted(found, key=lambda c: not c.slot)  # named slots first


def _comparable(va: set[str], vb: set[str]) -> bool:
    """Whether two sets of numbers hold a pair of the same order (within MAGNITUDE of each other): 200 characters
    for one description and 6000 for a whole briefing are not two values of one thing."""
    for x in va:
        for y in vb:
            try:
                low, high = sorted((abs(float(x)), abs(float(y))))
            except ValueError:
                return True
            if high <= MAGNITUDE * max(low, 1e-9):
                return True
    return False


def unshared_names(a: Wording, b: Wording) -> set[str]:
    """The names (of three letters or more) one memory uses that the other never mentions: two that say the same
    name the same things (`twine`, `PYPI_TOKEN` against `CHANGELOG` is another procedure)."""
    return {n for n in (a.names - b.words) | (b.names - a.words) if len(n) >= 3}


def siblings(a: Wording, b: Wording) -> bool:
    """Whether the two are about two of one family, whose values may differ: each names a compound name the other
    does not, and two of those share their first or last part only (`harbor-prod` and `harbor-ci`, `snowflake_pool`
    and `s3_pool`, the buckets `atlas-raw-events` and `atlas-curated`); or each is qualified as one of a family and never as the other's (the public API and the internal
    one, production and staging)."""
    only_a, only_b = a.instances - b.instances, b.instances - a.instances
    if any(_kin(x, y) for x in only_a for y in only_b):
        return True
    if a.qualifiers and b.qualifiers:
        families = {family for family, _ in a.qualifiers} & {family for family, _ in b.qualifiers}
        return any(
            {q for f, q in a.qualifiers if f == family}.isdisjoint(q for f, q in b.qualifiers if f == family)
            for family in families
        )
    return False


def _kin(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """Two compound names of one family: the same first or last part, and not one the start of the other."""
    return (x[0] == y[0] or x[-1] == y[-1]) and x[: len(y)] != y and y[: len(x)] != x


def numbers_agree(a: Wording, b: Wording) -> bool:
    """Whether one memory's numbers are all among the other's (either may state fewer)."""
    return a.numbers <= b.numbers or b.numbers <= a.numbers


def denials(a: Wording, b: Wording, gone: bool = False) -> tuple[str, list[str]] | None:
    """A word one memory denies (`gone`: says is no more) and the other states plainly, not only beside a failure
    ("a stray print() corrupts the stream" restates "never print", it does not deny it)."""
    if not ((a.removed or b.removed) if gone else (a.negated or b.negated)):
        return None  # most memories deny nothing
    for denier, stater in ((a, b), (b, a)):
        words = sorted(
            w
            for w in (denier.removed if gone else denier.negated) & stater.asserted
            if w not in GENERIC
            and w not in STOPWORDS
            and not w.isdigit()
            and w not in denier.asserted
            and w not in stater.negated
            and w not in stater.troubled
        )
        if words:
            shown = ", ".join(stater.spelled(words))
            text = f"one says {shown} is gone, the other uses it" if gone else f"one says no to {shown}, the other yes"
            return text, words
    return None


def opposed(a: Wording, b: Wording) -> str | None:
    """One side of a choice in one, the other side in the other: "run serially" against "in parallel"."""
    if not (a.sides and b.sides):
        return None
    for axis, side in sorted(a.sides):
        theirs = sorted(other for other_axis, other in b.sides if other_axis == axis and other != side)
        if theirs and (axis, theirs[0]) not in a.sides and (axis, side) not in b.sides:
            return f"one says {side}, the other {theirs[0]}"
    return None


__all__ = ["DUPLICATE_AT", "SUBJECT_AT", "Value", "Verdict", "judge"]
