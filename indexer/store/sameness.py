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

from indexer.store.wording import GENERIC, STOPWORDS, Value, Wording

DUPLICATE_AT = 0.35  # Jaccard of the word sets
SUBJECT_AT = 0.3  # overlap of the subjects' words (shared / the smaller set)
NAMED_SUBJECT_AT = 0.15  # the same, for a value in a named slot (a setting, a product's version, a file's path)
NUMBER_KINDS = ("port", "version", "quantity", "number")
MAGNITUDE = 16  # two quantities of one thing are within this factor of each other


@dataclass(frozen=True)
class Verdict:
    """A pair's verdict: `proposal` (duplicate or contradiction) and the evidence a person checks at a glance."""

    proposal: str
    evidence: str
    score: float  # how alike the two read (Jaccard of the word sets)


def judge(a: Wording, b: Wording) -> Verdict | None:
    """The verdict on two active memories of one scope, or None when they are simply different."""
    similarity = jaccard(a.words, b.words)
    conflicts = value_conflicts(a, b)
    subject = subject_overlap(a, b)
    # a slot with a name (a setting's key, a named product's version) says what the value is of; an unnamed one
    # (a port, a bare version) needs the same subject, and something named in common when both name things
    named = [c for c in conflicts if c[1] and c[0] in ("setting", "version", "path")]
    same_things = not (a.names and b.names) or bool(a.names & b.names)
    if named and (named[0][0] == "setting" or subject >= NAMED_SUBJECT_AT):
        return Verdict("contradiction", _conflict_text(named[0]), similarity)
    if conflicts and subject >= SUBJECT_AT and same_things:
        return Verdict("contradiction", _conflict_text(conflicts[0]), similarity)
    denied = denials(a, b)
    if denied and subject >= SUBJECT_AT and same_things:
        return Verdict("contradiction", denied, similarity)
    if similarity >= DUPLICATE_AT and not conflicts and numbers_agree(a, b):
        shared = sorted(a.words & b.words, key=lambda w: (w.isalpha(), w))
        return Verdict("duplicate", f"shared words: {', '.join(shared[:8])}", similarity)
    return None


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def subject_overlap(a: Wording, b: Wording) -> float:
    """Shared subject words (specific ones: not generic, not values) over the smaller subject."""
    sa = {w for w in a.subject if w not in GENERIC}
    sb = {w for w in b.subject if w not in GENERIC}
    return len(sa & sb) / min(len(sa), len(sb)) if sa and sb else 0.0


def _stated(w: Wording) -> dict[tuple[str, str], set[str]]:
    slots: dict[tuple[str, str], set[str]] = {}
    for v in w.values:
        if not v.former:
            slots.setdefault((v.kind, v.slot), set()).add(v.value)
    return slots


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


def value_conflicts(a: Wording, b: Wording) -> list[tuple[str, str, set[str], set[str]]]:
    """(kind, slot, a's values, b's values) for each slot both fill, each with a value the other never mentions."""
    sa, sb = _stated(a), _stated(b)
    mentioned_a = {v.value for v in a.values if not v.former}
    mentioned_b = {v.value for v in b.values if not v.former}
    found = []
    for (kind, slot_a), va in sorted(sa.items()):
        for (kind_b, slot_b), vb in sorted(sb.items()):
            if kind_b != kind or not _same_slot(kind, slot_a, slot_b):
                continue
            if (
                (va - mentioned_b)
                and (vb - mentioned_a)
                and (kind not in ("quantity", "number") or _comparable(va, vb))
            ):
                found.append((kind, slot_a if slot_a == slot_b else "", va, vb))
    return sorted(found, key=lambda c: not c[1])  # named slots first


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


def _conflict_text(conflict: tuple[str, str, set[str], set[str]]) -> str:
    kind, slot, va, vb = conflict
    what = {"setting": slot, "path": f"the path of {slot}", "port": "port", "version": f"{slot} version".strip()}.get(
        kind, f"{kind} in {slot}" if slot else kind
    )
    return f"{what}: {', '.join(sorted(va))} against {', '.join(sorted(vb))}"


def numbers_agree(a: Wording, b: Wording) -> bool:
    """Whether one memory's numbers are all among the other's (either may state fewer)."""
    na = {v.value for v in a.values if v.kind in NUMBER_KINDS}
    nb = {v.value for v in b.values if v.kind in NUMBER_KINDS}
    return na <= nb or nb <= na


def denials(a: Wording, b: Wording) -> str | None:
    """A word one memory denies and the other states plainly, unless that one tells of a failure."""
    for denier, stater in ((a, b), (b, a)):
        words = sorted(
            w
            for w in denier.negated & stater.asserted
            if w not in GENERIC
            and w not in STOPWORDS
            and not w.isdigit()
            and w not in denier.asserted
            and w not in stater.negated
        )
        if words and stater.failures <= denier.failures:
            return f"one denies what the other states: {', '.join(words)}"
    return None


__all__ = ["DUPLICATE_AT", "SUBJECT_AT", "Value", "Verdict", "judge"]
