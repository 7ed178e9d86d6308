"""Whether two active memories of one scope disagree (CONTRADICTIONS, unless VETOES) or say the same thing
(DUPLICATES, with each of SAME), by SPEC 12's own conditions (SPEC): two readings in, a verdict out, which depends on
the pair alone. What no rule is sure of is not proposed. Each rule is a small named function, with its examples in
tests/test_gardener_rules.py; its limits were chosen, and it was kept, leaving one labelled split out at a time
(bench/gardener_loso.py). "Alike" is the share of the two memories' telling words found in both (`similarity`).
"""

from dataclasses import dataclass
from difflib import SequenceMatcher

from indexer.gardener.reading import Reading, Value

SAME_WORDS = 0.35  # `restates`: at least this alike
SAME_SUBJECT = 0.1  # `one_product_two_versions`: at least this alike
SAME_NEWS = 0.2  # `newer_says_gone`: at least this alike


@dataclass(slots=True)
class Verdict:
    proposal: str  # duplicate or contradiction
    evidence: str  # what a person checks at a glance
    score: float  # how alike the two read
    rule: str  # the rule that found it


def judge(a: Reading, b: Reading) -> Verdict | None:
    """The verdict on two active memories of one scope (`a` the older), or None when no rule is sure."""
    alike = similarity(a, b)
    for rule in CONTRADICTIONS:
        if found := rule(a, b, alike):
            return None if any(veto(a, b) for veto in VETOES) else Verdict("contradiction", found, alike, rule.__name__)
    same = next(((rule, why) for rule in DUPLICATES if (why := rule(a, b, alike))), None)
    return Verdict("duplicate", same[1], alike, same[0].__name__) if same else None


def similarity(a: Reading, b: Reading) -> float:
    """Jaccard of the two memories' telling words: every word but the generic ones, numbers and names included."""
    shared = len(a.telling & b.telling)
    return shared / (len(a.telling) + len(b.telling) - shared) if shared else 0.0


# --- Contradictions ---


def one_setting_two_values(a: Reading, b: Reading, alike: float) -> str | None:
    """The same setting given values the two never share: `CHROMA_PORT=8765` and `CHROMA_PORT is 9000`, `--timeout
    15m` and `--timeout 30m`. A setting's key says what the value is of, so the rest need not be alike; but not a
    setting of two things, each named beside it and never by the other (`retention.ms=` of the events topic and of
    the audit topic)."""
    return _conflict(a, b, "setting")


def one_product_two_versions(a: Reading, b: Reading, alike: float) -> str | None:
    """The same product at versions the two never share (`Postgres 15.6` and `Postgres 16.4`; `26` and `26.2` are one),
    in memories about the same thing (SAME_SUBJECT): two memories of other subjects may well name two versions of
    one product (a build image, a client library)."""
    return _conflict(a, b, "version") if alike >= SAME_SUBJECT else None


def newer_says_gone(a: Reading, b: Reading, alike: float) -> str | None:
    """The newer memory (`b`) says something is no more ("goose is retired", "moved from the cookie store to Redis",
    "ruff replaced Black") that the older names without saying so: a yes turned to a no, in memories about the same
    thing (SAME_NEWS)."""
    for phrase in sorted(b.gone - a.gone) if alike >= SAME_NEWS else ():
        if a.words.issuperset(phrase.split()):
            return f"the newer says {' '.join(b.spelled(phrase.split()))} is no more; the older still uses it"
    return None


def one_thing_two_times(a: Reading, b: Reading, alike: float) -> str | None:
    """One time of day each, not the same (`01:00 CET` and `03:00`), in memories about the same thing (SAME_SUBJECT)
    that both name one job, file or identifier (`hil-nightly`; a product's name, `Fivetran`, may be another thing's).
    Not when either gives more than one time (a job "at 04:30, after the sync finishes at 04:00")."""
    ta, tb = ({v.value for v in _stated(r, "time").get("time", [])} for r in (a, b))
    named = any(len(n) > 1 or n[0][:1] == "/" for n in set(a.names) & set(b.names))
    one = len(ta) == len(tb) == 1 and alike >= SAME_SUBJECT and named
    return _conflict(a, b, "time") if one else None


CONTRADICTIONS = (one_setting_two_values, one_product_two_versions, one_thing_two_times, newer_says_gone)


def _conflict(a: Reading, b: Reading, kind: str) -> str | None:
    """The first slot of `kind` (a setting's key, a product) both fill with values that never match, as a person reads
    it; a value given up ("moved from 8001") is not stated."""
    mine, theirs = _stated(a, kind), _stated(b, kind)
    for slot in sorted(mine.keys() & theirs.keys()):
        va, vb = mine[slot], theirs[slot]
        if _two_things(va, b) and _two_things(vb, a):
            continue
        if not any(_one_value(x.value, y.value) for x in va for y in vb):
            label = f"{b.spelled([slot])[0]} version" if kind == "version" else vb[0].label
            older, newer = (", ".join(dict.fromkeys(v.value for v in vs)) for vs in (va, vb))
            return f"{label}: {older} in the older, {newer} in the newer"
    return None


def _stated(reading: Reading, kind: str) -> dict[str, list[Value]]:
    found: dict[str, list[Value]] = {}
    for v in reading.values:
        if v.kind == kind and v.slot and not v.former:
            found.setdefault(v.slot, []).append(v)
    return found


def _one_value(x: str, y: str) -> bool:
    """Whether two values may be one: equal, or one a version the other says more exactly (`26` and `26.2`)."""
    return x == y or x.startswith(y + ".") or y.startswith(x + ".")


def _two_things(values: list[Value], other: Reading) -> bool:
    """Whether each of `values` is of a thing named beside it that `other` never mentions ("the events topic")."""
    return all(not set(v.of) <= other.words for v in values)


def two_of_a_kind(a: Reading, b: Reading) -> bool:
    """Whether each names one of a family the other never names: compound names of two or three parts that share
    their first or last (`harbor-prod` and `harbor-ci`, `orders.v1` and `payments.v1`). Two things: their values
    may differ."""
    return any(
        2 <= len(x) <= 3 and 2 <= len(y) <= 3 and x != y and (x[0] == y[0] or x[-1] == y[-1])
        and not set(x) <= b.words and not set(y) <= a.words
        for x in a.names
        for y in b.names
    )  # fmt: skip


VETOES = (two_of_a_kind,)


# --- Duplicates ---


def restates(a: Reading, b: Reading, alike: float) -> str | None:
    """At least SAME_WORDS alike (generic words and paths left out), and each of `SAME`: the same thing said twice."""
    if alike < SAME_WORDS or not all(condition(a, b) for condition in SAME):
        return None
    words = b.spelled(sorted(a.telling & b.telling, key=lambda w: (not w[:1].isalpha(), w)))
    more = f" and {len(words) - 8} more" if len(words) > 8 else ""
    return f"{len(words)} words in common ({', '.join(words[:8])}{more}), the same numbers and names"


DUPLICATES = (restates,)


def same_numbers(a: Reading, b: Reading) -> bool:
    """Both state the same numbers, all of them (`4 hours` is `14400 s`): "keeps 14 days" and "keeps 30 days" say
    two things."""
    return a.numbers == b.numbers


def same_names(a: Reading, b: Reading) -> bool:
    """Every thing one names (an identifier, code, a path, an address, a proper name), the other mentions: two
    memories about `/api` that name two handlers say two things."""
    return all(set(n) <= b.words for n in a.names) and all(set(n) <= a.words for n in b.names)


def same_polarity(a: Reading, b: Reading) -> bool:
    """Both deny (never, don't, not) or neither does: "backfills may run in the day" and "never run backfills in the
    day" are opposites, however many words they share."""
    return a.denies == b.denies


def same_news(a: Reading, b: Reading) -> bool:
    """Both tell of a change ("moved to", "now", "no longer", "X is retired") or neither does: news is not a
    restatement of how it was."""
    return a.news == b.news


def one_subject(a: Reading, b: Reading) -> bool:
    """Not one sentence said of two things: each opening with a subject the other never says ("Refunds above 500 EUR
    need a second approver", "Chargebacks above 500 EUR need a second approver too"), or one word put for another
    (and perhaps one more word in one: "Kafka events topic keeps 14 days", "Kafka audit topic keeps 14 days too")."""
    sa, sb = a.sequence, b.sequence
    if sa and sb and sa[0] not in b.words and sb[0] not in a.words:
        return False
    ops = [op for op in SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes() if op[0] != "equal"]
    swaps = [op for op in ops if op[0] == "replace" and op[2] - op[1] == op[4] - op[3] == 1]
    rest = [op for op in ops if op not in swaps and max(op[2] - op[1], op[4] - op[3]) == 1 and op[0] != "replace"]
    return not (len(swaps) == 1 and len(ops) - 1 == len(rest) <= 1 and min(len(sa), len(sb)) > 2)


SAME = (same_numbers, same_names, same_polarity, same_news, one_subject)  # what a restatement keeps
SPEC = (same_numbers, same_names, same_polarity)  # SPEC 12's own conditions: kept whatever they earn
