"""Whether two memories of one scope say the same thing, or disagree (SPEC section 12). Pure: two readings
(gardener/wording.py) in, a verdict out, so a pair's verdict depends on the pair alone and an index run may settle it
for the memories it touched only.

The rules, tried in this order; each is a small named function below, with its labelled examples, positive and
negative, in tests/test_gardener_rules.py. "Alike" is the share of the two memories' telling words that are in both
(`similarity`). What no rule is sure of is not proposed: at write time the write path's `similar` still names the
memories that may say the same as a new one (docs/writing.md).

contradiction
- `one_setting_two_values`: the same setting (`CHROMA_PORT`, `spark.executor.memory`, `pull.rebase`) given values
  the two never share.
- `one_product_two_versions`: the same product at versions the two never share (`Node 20`, `Node 22`; `26` and
  `26.2` are one), in two memories at least SAME_SUBJECT alike.
- `newer_says_it_changed`: the newer says the thing went to a value ("raised to 300 s") where the older states
  another, or that something the older names is no more ("goose is retired"), at least SAME_SUBJECT alike.
- `newer_tells_of_a_change`: the newer tells of a change ("moved to", "now", "no longer") in a clause naming what
  the older is about, and the older tells of none, at least SAME_NEWS alike.
duplicate
- `restates`: more than SAME_WORDS alike, no value differs, and no STRONG sign that the two disagree.
- `same_value_restated`: one exact value stated alike (a setting with its value, a path, a version), at least
  SAME_VALUE alike, no value differs, and no STRONG sign.
- `restates_in_other_words`: more than CLOSE_WORDS alike, no value differs, and no sign at all.
signs that two alike memories disagree (SIGNS; STRONG: whatever their likeness)
- `tells_of_a_change` (strong): the newer tells of a change, the older of none.
- `one_says_gone` (strong): one says something is no more ("C-b is unbound") that the other names.
- `one_forbids_what_the_other_bids` (strong): one forbids what the other bids ("Don't install pre-commit hooks"
  against "Install pre-commit hooks"), and the one that bids denies nothing.
- `nothing_named_alike`: neither mentions a thing the other names: the same sentence about two things.
- `two_kinds`: the two are memories of two kinds (a constraint and a runbook).
neither
- `two_of_a_family`: each names one of a family the other does not (`harbor-prod` and `harbor-ci`, production and
  staging, the public API and the internal one): two things, whose values may well differ.

The limits (SAME_*, CLOSE_WORDS) and which rules and signs are kept were chosen leaving one labelled split out at a
time (bench/gardener_loso.py, docs/performance.md). Not tried, because each fired on about as many pairs of another
kind as on the pairs it was meant for: a denial alone as a contradiction ("never auto-apply" against "auto-applied":
as many restatements of a rule carry one), two sides of a choice ("serially", "in parallel"), a port or a quantity
of two things (two services' ports, two rate limits), a choice said in other words ("trusted publishing" against
"`twine upload`"), and each naming something the other does not (`Postmark`, `SES`: as often two details of one
fact).
"""

import functools
from dataclasses import dataclass

from indexer.gardener import wording
from indexer.gardener.wording import Value, Wording, duration_text

# How alike (Jaccard of the telling words) two memories must be for a rule: chosen leaving one split out at a time
SAME_WORDS = 0.5  # `restates`: more than this
CLOSE_WORDS = 0.325  # `restates_in_other_words`: more than this
SAME_VALUE = 0.2  # `same_value_restated`: at least this
SAME_SUBJECT = 0.1  # `one_product_two_versions`, `newer_says_it_changed`: at least this
SAME_NEWS = 0.25  # `newer_tells_of_a_change`: at least this


@dataclass(frozen=True)
class Verdict:
    """A pair's verdict: `proposal` (duplicate or contradiction), the evidence a person checks at a glance, how
    alike the two read, and the `rule` that found it."""

    proposal: str
    evidence: str
    score: float  # `similarity`
    rule: str = ""


def judge(a: Wording, b: Wording) -> Verdict | None:
    """The verdict on two active memories of one scope (`a` the older), or None when no rule is sure."""
    if a.specific.isdisjoint(b.specific):
        return None
    alike = similarity(a, b)
    words_rules = alike >= SAME_VALUE or alike >= SAME_NEWS or alike > CLOSE_WORDS or alike > SAME_WORDS
    if (
        not words_rules
        and not ("setting" in a.stated and "setting" in b.stated)
        and not _values_to_compare(a, b, alike)
    ):
        return None  # most pairs: too little in common for any rule but a value's
    verdict = _first_rule(a, b, alike)
    if verdict is None or two_of_a_family(a, b):
        return None
    return verdict


def _values_to_compare(a: Wording, b: Wording, alike: float) -> bool:
    """Whether a rule that reads values (but a setting's) may fire on two memories less alike than the rules that read
    words need: at least SAME_SUBJECT alike, and both give a version, or the newer says what changed."""
    if alike < SAME_SUBJECT:
        return False
    return ("version" in a.stated and "version" in b.stated) or bool(b.changed_to or b.gone)


def _first_rule(a: Wording, b: Wording, alike: float) -> Verdict | None:
    for rule in CONTRADICTIONS:
        found = rule(a, b, alike)
        if found:
            return Verdict("contradiction", found, alike, rule.__name__)
    for rule in DUPLICATES:
        found = rule(a, b, alike)
        if found:
            return Verdict("duplicate", found, alike, rule.__name__)
    return None


def similarity(a: Wording, b: Wording) -> float:
    """Jaccard of the two memories' telling words: every word but the generic ones, numbers and names included."""
    sa, sb = a.telling, b.telling
    shared = len(sa & sb)
    return shared / (len(sa) + len(sb) - shared) if shared else 0.0


# --- Contradictions ---


def one_setting_two_values(a: Wording, b: Wording, alike: float) -> str | None:
    """The same setting given values the two never share: `CHROMA_PORT=8765` and `CHROMA_PORT is 9000`,
    `DISABLE_SERVER_SIDE_CURSORS is True` and `False`, `--timeout 15m` and `--timeout 30m`. A setting's key says
    what the value is of, so the rest of the two memories need not be alike."""
    conflict = _conflict(a, b, "setting")
    return conflict.text if conflict else None


def one_product_two_versions(a: Wording, b: Wording, alike: float) -> str | None:
    """The same product at versions the two never share (`Postgres 15.6` and `Postgres 16.4`; `26` and `26.2` are one
    version said more or less exactly), in memories about the same thing: a product named by two memories of other
    subjects may well be at two versions (a build image and a client library)."""
    if alike < SAME_SUBJECT:
        return None
    conflict = _conflict(a, b, "version")
    return conflict.text if conflict else None


def newer_says_it_changed(a: Wording, b: Wording, alike: float) -> str | None:
    """The newer memory (`b`) says the thing both are about changed, and the older still tells it as it was: the newer
    says it went to a value ("auto-suspend raised to 300 s", "Triton upgraded to 24.08") where the older states
    another value of that kind and never this one; or it says something is no more ("goose is retired", "the
    CloudFront distribution is deleted", "moved from the cookie store") that the older names and does not say is
    gone itself. The two must be about the same thing (SAME_SUBJECT)."""
    if alike < SAME_SUBJECT or not (b.changed_to or b.gone):
        return None
    known = a.words | {v.value for v in a.values}  # (a duration is compared in seconds: `5m` is `300 s`)
    new = [v for v in b.values if v.value in b.changed_to and v.value not in known and v.kind != "number"]
    kinds = {(v.kind, v.slot) if v.kind == "quantity" else v.kind for v in new}
    old = [v for v in a.values if ((v.kind, v.slot) if v.kind == "quantity" else v.kind) in kinds and not v.former]
    if new and old:
        return f"the newer says it changed to {_said(new)}; the older says {_said(old)}"
    for phrase in sorted(b.gone - a.gone):  # (what the older says is gone too is no news)
        stems = phrase.split()
        if a.words.issuperset(stems):
            said = " ".join(a.spelled(stems))
            return f"the newer says {' '.join(b.spelled(stems))} is no more; the older still says {said}"
    return None


def _said(values: list[Value]) -> str:
    """Values as a person reads them: a duration in its unit (`300` seconds is `5 min`)."""
    shown = (duration_text(v.value) if v.slot in ("duration", "frequency") else v.value for v in values)
    return ", ".join(dict.fromkeys(shown))


def newer_tells_of_a_change(a: Wording, b: Wording, alike: float) -> str | None:
    """The newer memory (`b`) tells of a change ("Transactional email moved to Amazon SES", "Fly machines run in fra,
    iad and sin now", "Upgraded to Elixir 1.17 and OTP 27") in a clause that names what the older is about, and says
    there what the older does not: a value the older never gives where the older states one ("1.17" against
    "Elixir 1.16"), or, with no value, a word ("sin"). The older tells of no change: it still says how it was. The
    two must be at least SAME_NEWS alike."""
    if alike < SAME_NEWS or not b.announces or a.announces:
        return None
    if b.news.isdisjoint(a.words):
        return None  # news of another thing
    told = {w for w in b.news if w[:1].isdigit()}  # the values of its news
    if told and not (a.numbers and not told <= a.words | {v.value for v in a.values}):
        return None  # a value changed: news only if the older gives another value, and not this one
    if not told and b.news <= a.words:
        return None  # the older says it already
    subject = b.news & a.words
    return f"the newer tells of a change ({', '.join(b.spelled(sorted(subject)))}); the older tells it as it was"


CONTRADICTIONS = (one_setting_two_values, one_product_two_versions, newer_says_it_changed, newer_tells_of_a_change)


@dataclass(frozen=True)
class Conflict:
    """One slot both memories fill, with values they never share."""

    kind: str
    label: str
    older: tuple[str, ...]
    newer: tuple[str, ...]

    @property
    def text(self) -> str:
        what = f"{self.label} version" if self.kind == "version" else self.label
        return f"{what}: {', '.join(self.older)} in one, {', '.join(self.newer)} in the other"


def _conflict(a: Wording, b: Wording, kind: str) -> Conflict | None:
    """The first slot of `kind` with a name (a setting's key, a product, a unit, a file's name) that both fill, with
    values that never match."""
    mine, theirs = a.stated.get(kind), b.stated.get(kind)
    if not (mine and theirs):
        return None  # most pairs
    for slot in sorted(mine.keys() & theirs.keys()):
        va, vb = mine[slot], theirs[slot]
        if not any(_same_value(x.value, y.value) for x in va for y in vb):
            label = b.spelled([slot])[0] if kind == "version" else vb[0].label or va[0].label or slot
            return Conflict(kind, label, _shown(va), _shown(vb))
    return None


def _same_value(x: str, y: str) -> bool:
    """Whether two values may be one: equal, one a version the other says more exactly (`26` and `26.2`), or the
    same number with a unit in one only (`STRIPE_TIMEOUT=10`, `STRIPE_TIMEOUT is 10 s`)."""
    if x == y or x.startswith(y + ".") or y.startswith(x + "."):
        return True
    return (" " in x) != (" " in y) and x.split(" ", 1)[0] == y.split(" ", 1)[0]


def _shown(values: list[Value]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.value for v in values))


# --- Duplicates ---


def restates(a: Wording, b: Wording, alike: float) -> str | None:
    """More than half of the words either memory uses are in both (SAME_WORDS; generic words left out), no value
    differs (`any_value_differs`), and neither says gone what the other names (`one_says_gone`): the same thing said
    twice."""
    if alike <= SAME_WORDS or any_value_differs(a, b) or disagree(a, b, strong=True):
        return None
    return _in_common(a, b)


def same_value_restated(a: Wording, b: Wording, alike: float) -> str | None:
    """One named value stated alike (a setting with its value, a product at one exact version, one path), in two
    memories about the same thing (SAME_VALUE), no value stated differently, and neither says gone what the other
    names: the same fact, in other words around it."""
    if alike < SAME_VALUE:
        return None
    agreed = sorted(a.exact_values & b.exact_values)
    if not agreed or any_value_differs(a, b) or disagree(a, b, strong=True):
        return None
    kind, slot, value = agreed[0]
    label = b.spelled([slot])[0] if kind == "version" else next(v.label for v in b.values if v.slot == slot)
    what = {"version": f"{label} {value}", "path": value}.get(kind, f"{label} = {value}")
    return f"both say {what}, with {len(a.telling & b.telling)} words in common"


def restates_in_other_words(a: Wording, b: Wording, alike: float) -> str | None:
    """More than 32.5% of the words either memory uses are in both (CLOSE_WORDS), no value differs, and no sign says
    the two disagree (`disagree`): the same thing in other words."""
    if alike <= CLOSE_WORDS or disagree(a, b) or any_value_differs(a, b):
        return None
    return _in_common(a, b)


def _in_common(a: Wording, b: Wording) -> str:
    words = b.spelled(sorted(a.telling & b.telling, key=lambda w: (not w[:1].isalpha(), w)))
    more = f" and {len(words) - 8} more" if len(words) > 8 else ""
    return f"{len(words)} words in common: {', '.join(words[:8])}{more}"


DUPLICATES = (restates, same_value_restated, restates_in_other_words)


def disagree(a: Wording, b: Wording, strong: bool = False) -> str:
    """The first sign (SIGNS; STRONG ones only, if `strong`) that two alike memories disagree (the name of its
    function), or ''."""
    for sign in SIGNS:
        if (not strong or sign in STRONG) and sign(a, b):
            return sign.__name__
    return ""


def tells_of_a_change(a: Wording, b: Wording) -> bool:
    """The newer tells of a change ("raised visibility_timeout to 4 h") and the older tells of none: news is not a
    restatement."""
    return b.announces and not a.announces


def one_says_gone(a: Wording, b: Wording) -> bool:
    """One says something is no more ("C-b is unbound") that the other names without saying so."""
    return any(y.words.issuperset(p.split()) for x, y in ((a, b), (b, a)) for p in x.gone - y.gone)


def one_forbids_what_the_other_bids(a: Wording, b: Wording) -> bool:
    """One forbids what the other bids, each at the head of a clause, and the one that bids denies nothing:
    "Don't install pre-commit hooks locally" against "Install pre-commit hooks in every repo". A rule and its
    opposite, however many words they share. (A rule restated keeps its no: "never evaluate on data newer than the
    cutoff" against "Evaluate every model ... on nothing after the cutoff".)"""
    return any("!" + w in y.orders for x, y in ((a, b), (b, a)) if not x.denied for w in x.orders if w[:1] != "!")


def nothing_named_alike(a: Wording, b: Wording) -> bool:
    """Neither mentions a thing the other names (a product, a file, a command, a setting): the same sentence about two
    things ("Search changes are announced in the auth channel", "Vectors changes are announced in the alerts
    channel")."""
    return a.named.isdisjoint(b.words) and b.named.isdisjoint(a.words)


def two_kinds(a: Wording, b: Wording) -> bool:
    """The two are memories of two kinds (a constraint and a runbook, a decision and a constraint), each kind known:
    written for two purposes, they share the words of their subject ("never keep state only in seamless.db, which
    must be rebuildable with `seamless index --full`" against the runbook that rebuilds it) more often than they say
    one thing in other words. A weak sign: a restatement in many of the same words is one whatever its kind."""
    return bool(a.kind and b.kind) and a.kind != b.kind


SIGNS = (two_kinds, nothing_named_alike, tells_of_a_change, one_says_gone, one_forbids_what_the_other_bids)
# the signs that hold however alike the two are
STRONG = (tells_of_a_change, one_says_gone, one_forbids_what_the_other_bids)


def any_value_differs(a: Wording, b: Wording) -> bool:
    """Whether the two fill a slot with values they never share (a setting, a version, a quantity in one unit, a
    file's path, a port, a cloud region), give two paths of one shape, or each states a number the other never
    mentions."""
    if any(_conflict(a, b, kind) for kind in a.stated.keys() & b.stated.keys()):
        return True
    ports_a = {v.value for v in a.values if v.kind == "port" and not v.former}
    ports_b = {v.value for v in b.values if v.kind == "port" and not v.former}
    if ports_a and ports_b and ports_a.isdisjoint(ports_b):
        return True
    if _two_paths_of_one_shape(a, b):
        return True
    na, nb = a.numbers, b.numbers
    return bool(na - nb) and bool(nb - na)


def _two_paths_of_one_shape(a: Wording, b: Wording) -> bool:
    """Each states a path the other does not, the two of one shape: as many parts, one of them in both
    (`bw/<device_id>/telemetry` and `devices/<device_id>/tele`): one place or topic, given two values."""
    paths_a = {v.value for v in a.values if v.kind == "path" and not v.former}
    paths_b = {v.value for v in b.values if v.kind == "path" and not v.former}
    if not (paths_a and paths_b) or not paths_a.isdisjoint(paths_b):
        return False
    for x in paths_a:
        px = x.strip("/").split("/")
        for y in paths_b:
            py = y.strip("/").split("/")
            if len(px) == len(py) and not set(px).isdisjoint(py):
                return True
    return False


# --- Neither ---

# words that say which of a family a memory is about (as stems): two environments, two audiences
FAMILIES = (
    {"prod": "prod", "production": "prod", "staging": "staging", "dev": "dev", "development": "dev",
     "local": "local", "preview": "preview", "sandbox": "sandbox", "ci": "ci"},
    {"public": "public", "internal": "internal", "private": "private", "external": "external"},
)  # fmt: skip


@functools.cache
def _families() -> tuple[tuple[dict[str, str], frozenset[str]], ...]:
    """FAMILIES by stem (`production` is read as `product`), each with the set of its stems."""
    by_stem = [{wording.stem(word): member for word, member in family.items()} for family in FAMILIES]
    return tuple((members, frozenset(members)) for members in by_stem)


def two_of_a_family(a: Wording, b: Wording) -> bool:
    """Whether each is about one of a family the other never names: a compound name each has and the other does not,
    the two sharing their first or last part (`harbor-prod` and `harbor-ci`, `snowflake_pool` and `s3_pool`); or one
    environment or audience each, never the other's (production and staging, the public API and the internal one).
    Their values may well differ: they are two things."""
    only_a, only_b = a.names - b.names, b.names - a.names
    for x in only_a:
        px = x.split()
        for y in only_b:
            py = y.split()
            if (px[0] == py[0] or px[-1] == py[-1]) and px[: len(py)] != py and py[: len(px)] != px:
                return True
    for members, stems in _families():
        qa, qb = a.words & stems, b.words & stems
        if qa and qb and {members[w] for w in qa}.isdisjoint(members[w] for w in qb):
            return True
    return False


__all__ = ["SAME_SUBJECT", "SAME_WORDS", "Verdict", "judge"]
