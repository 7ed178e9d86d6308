"""The gardener's pair rules measured without the index, and chosen leaving one labelled split out at a time.

The labelled stores of tests/fixtures/gardener/pairs.yaml are read and judged in this process as an index run judges
them (indexer/gardener/findings.py: memories with one signature are one group and one duplicate proposal; two groups
are judged by their newest memories when they share TOGETHER terms found in at most COMMON groups), so a choice is
measured in milliseconds; tests/test_gardener_reads.py checks that the figures are the indexed ones.

What is chosen (`Choice`), for each kind on its own, the other kind's as it is: its limits (gardener/rules.py's
SAME_*). The choice made on some splits is the one whose worst split's precision is best (precision first), then the
one that finds the most right pairs, then the fewest wrong, then the strictest. Leaving each split out in turn, the
choice made on the others is measured on it: that is the estimate of how the rules do on a split written apart
(`python -m bench.gardener --loso`).

Each rule is kept only if it earns its precision there, on the splits left out with the limits chosen without them
(`earned`): a rule that proposes, when at least 90% of what it proposes is right; a condition or a veto (what stops
a proposal), when it stops something and what it alone stops would be proposed at less than 90% right. SPEC 12's
own conditions (`rules.SPEC`) are kept whatever they earn.
"""

import contextlib
import itertools
from collections import Counter
from dataclasses import dataclass

from indexer.gardener import reading, rules
from indexer.gardener.findings import COMMON, TOGETHER, terms

from .gardener import Score, labelled_stores

PRECISION = 0.9
KINDS = ("duplicate", "contradiction")


@dataclass(frozen=True)
class Case:
    """Two groups of one labelled store the index would judge, by their newest memories (or two copies of one)."""

    pair: frozenset[str]  # memory names
    label: str  # duplicate, contradiction, different, or '' when not labelled
    older: reading.Reading | None  # None for two copies of one description (a duplicate without a verdict)
    newer: reading.Reading | None


@dataclass(frozen=True)
class Judged:
    split: str
    cases: list[Case]
    positives: Counter


def cases(split: str) -> Judged:
    """Every pair of memories of the split's stores that the index would propose or judge."""
    found = []
    for store in labelled_stores(split):
        labels = {frozenset(p[:2]): p[2] for p in store["pairs"]}
        active = [
            (str(m["created"]), n, name, m)
            for n, (name, m) in enumerate(store["memories"].items())
            if not m.get("superseded_by")
        ]
        readings = {name: reading.read(name, m["description"]) for _, _, name, m in active}
        groups: dict[str, list[str]] = {}
        for *_, name, _ in sorted(active):  # oldest first, as the index orders a group
            groups.setdefault(readings[name].signature, []).append(name)
        for members in groups.values():
            for pair in itertools.combinations(members, 2):
                found.append(Case(frozenset(pair), labels.get(frozenset(pair), ""), None, None))
        newest = [members[-1] for members in groups.values()]
        group_terms = {name: terms(readings[name]) for name in newest}
        counts = Counter(t for ts in group_terms.values() for t in ts)
        rare = {name: {t for t in ts if counts[t] <= COMMON} for name, ts in group_terms.items()}
        order = {name: (created, n) for created, n, name, _ in active}
        for x, y in itertools.combinations(newest, 2):
            if len(rare[x] & rare[y]) >= TOGETHER:
                older, newer = sorted((x, y), key=order.__getitem__)
                pair = frozenset((x, y))
                found.append(Case(pair, labels.get(pair, ""), readings[older], readings[newer]))
    positives = Counter(p[2] for store in labelled_stores(split) for p in store["pairs"])
    return Judged(split, found, positives)


def scores(judged: Judged, by_rule: Counter | None = None) -> dict[str, Score]:
    """Precision and recall of each pair kind on a split, with the rules as they are now; `by_rule` counts each
    rule's (right, proposed) when given."""
    found = {kind: Score(kind, judged.split, labelled=judged.positives[kind]) for kind in KINDS}
    for case in judged.cases:
        if case.older is None or case.newer is None:
            kind, rule = "duplicate", "the same description"
        else:
            verdict = rules.judge(case.older, case.newer)
            if verdict is None:
                continue
            kind, rule = verdict.proposal, verdict.rule
        score = found[kind]
        score.proposed += 1
        right = case.label == kind
        score.right += right
        if not right:
            score.wrong.append(f"{' / '.join(sorted(case.pair))} (labelled {case.label or 'different'})")
        if by_rule is not None:
            by_rule[(rule, "right")] += right
            by_rule[(rule, "proposed")] += 1
    return found


def _steps(low: float, high: float, step: float) -> list[float]:
    return [round(low + i * step, 3) for i in range(round((high - low) / step) + 1)]


# The limits offered. Below 0.3 alike, two memories of one length share less than half of their words: they do not
# "say the same thing" (SPEC 12), however the labelled splits fare there (whose identifiers stop most pairs). Below
# 0.1 two memories share a word or two: the rules' own examples hold two subjects at two versions there
# (tests/test_gardener_rules.py), which the labelled stores do not.
LIMITS = {
    "duplicate": {"SAME_WORDS": _steps(0.3, 0.7, 0.05)},
    "contradiction": {"SAME_SUBJECT": _steps(0.1, 0.4, 0.05), "SAME_NEWS": _steps(0.1, 0.5, 0.05)},
}
PROPOSING = {"duplicate": "DUPLICATES", "contradiction": "CONTRADICTIONS"}  # gardener/rules.py's, per kind
STOPPING = {"duplicate": ("SAME",), "contradiction": ("VETOES",)}


@dataclass(frozen=True)
class Choice:
    """One kind's limits."""

    kind: str
    limits: tuple[tuple[str, float], ...]

    def __str__(self) -> str:
        return ", ".join(f"{name} {value:g}" for name, value in self.limits)


def current(kind: str) -> Choice:
    return Choice(kind, tuple((name, getattr(rules, name)) for name in LIMITS[kind]))


def choices(kind: str) -> list[Choice]:
    names = list(LIMITS[kind])
    return [
        Choice(kind, tuple(zip(names, v, strict=True))) for v in itertools.product(*(LIMITS[kind][n] for n in names))
    ]


@contextlib.contextmanager
def rules_as(*made: Choice, without: str = ""):
    """gardener/rules.py with the choices `made`, and without the rule named `without`, for the time of a `with`."""
    names = {"CONTRADICTIONS", "DUPLICATES", "SAME", "VETOES", *(n for limits in LIMITS.values() for n in limits)}
    saved = {name: getattr(rules, name) for name in names}
    try:
        for choice in made:
            for name, value in choice.limits:
                setattr(rules, name, value)
        for group in ("CONTRADICTIONS", "DUPLICATES", "SAME", "VETOES"):
            setattr(rules, group, tuple(r for r in getattr(rules, group) if r.__name__ != without))
        yield
    finally:
        for name, value in saved.items():
            setattr(rules, name, value)


def best(measured: dict[Choice, dict[str, Score]], splits: list[str]) -> Choice:
    """The choice made on `splits` (the module's docstring says how)."""

    def rank(choice: Choice):
        found = [measured[choice][s] for s in splits]
        right = sum(score.right for score in found)
        wrong = sum(score.proposed - score.right for score in found)
        return (min(score.precision for score in found), right, -wrong, [v for _, v in choice.limits])

    return max(measured, key=rank)


@dataclass
class Fold:
    """One split left out: the choice made on the others, how it did on the split, and what each rule did there."""

    left_out: str
    choice: Choice
    score: Score
    by_rule: Counter  # (rule, "right" | "proposed" | "stopped right" | "stopped wrong") -> pairs


def _proposed(judged: Judged, kind: str) -> dict[frozenset, str]:
    """The pairs the rules as they are propose as `kind`, with their labels."""
    found = {}
    for case in judged.cases:
        verdict = None if case.older is None or case.newer is None else rules.judge(case.older, case.newer)
        if verdict is not None and verdict.proposal == kind:
            found[case.pair] = case.label
    return found


def loso(splits: list[str]) -> tuple[dict[str, list[Fold]], dict[str, Choice]]:
    """For each kind: each split left out in turn, with the choice made on the others, its score on the split and
    what each rule did there; and the choice made on all the splits (the one the rules should hold)."""
    judged = {split: cases(split) for split in splits}
    folds: dict[str, list[Fold]] = {}
    chosen: dict[str, Choice] = {}
    for kind in KINDS:
        others = tuple(current(k) for k in KINDS if k != kind)
        measured = {}
        for choice in choices(kind):
            with rules_as(*others, choice):
                measured[choice] = {split: scores(judged[split])[kind] for split in judged}
        folds[kind] = []
        for left in splits:
            choice = best(measured, [s for s in splits if s != left])
            by_rule: Counter = Counter()
            with rules_as(*others, choice):
                score = scores(judged[left], by_rule)[kind]
                kept = _proposed(judged[left], kind)
            for name in (r.__name__ for group in STOPPING[kind] for r in getattr(rules, group)):
                with rules_as(*others, choice, without=name):
                    for pair, label in _proposed(judged[left], kind).items():
                        if pair not in kept:
                            by_rule[(name, "stopped right" if label == kind else "stopped wrong")] += 1
            folds[kind].append(Fold(left, choice, score, by_rule))
        chosen[kind] = best(measured, splits)
    return folds, chosen


def earned(kind: str, kind_folds: list[Fold]) -> dict[str, tuple[str, bool]]:
    """Each rule of `kind`: what it did on the splits left out, pooled, and whether that earns its keep."""
    pooled: Counter = Counter()
    for fold in kind_folds:
        pooled.update(fold.by_rule)
    found = {}
    for rule in getattr(rules, PROPOSING[kind]):
        right, proposed = pooled[(rule.__name__, "right")], pooled[(rule.__name__, "proposed")]
        found[rule.__name__] = (f"proposes {right}/{proposed} right", proposed > 0 and right >= PRECISION * proposed)
    for rule in (r for group in STOPPING[kind] for r in getattr(rules, group)):
        wrong, right = pooled[(rule.__name__, "stopped wrong")], pooled[(rule.__name__, "stopped right")]
        spec = " (SPEC 12: kept)" if rule in rules.SPEC else ""
        found[rule.__name__] = (
            f"alone stops {wrong} wrong, {right} right{spec}",
            bool(spec) or (wrong > 0 and right < PRECISION * (right + wrong)),
        )
    return found


def report(splits: list[str]) -> str:
    """The leave-one-split-out estimate as markdown: a row per kind, a column per split left out; then what each
    rule earned there, and the choices."""
    folds, chosen = loso(splits)
    lines = [
        "| kind | " + " | ".join(f"{s} left out" for s in splits) + " | pooled |",
        "| --- |" + " --- |" * (len(splits) + 1),
    ]
    for kind, kind_folds in folds.items():
        cells = [
            f"{f.score.precision:.2f} ({f.score.right}/{f.score.proposed}) / {f.score.recall:.2f}" for f in kind_folds
        ]
        right = sum(f.score.right for f in kind_folds)
        proposed = sum(f.score.proposed for f in kind_folds)
        labelled = sum(f.score.labelled for f in kind_folds)
        pooled = f"{right / proposed if proposed else 1:.2f} ({right}/{proposed}) / {right / labelled:.2f}"
        lines.append(f"| {kind} | " + " | ".join(cells) + f" | {pooled} |")
    lines.append("")
    for kind, kind_folds in folds.items():
        lines.append(f"{kind}: now {current(kind)}; chosen on all the splits: {chosen[kind]}")
        for rule, (did, kept) in earned(kind, kind_folds).items():
            lines.append(f"    {rule}: on the splits left out, {did}{'' if kept else ': NOT EARNED, delete it'}")
        lines.append(
            "    limits chosen with each split left out: " + "; ".join(f"{f.left_out}: {f.choice}" for f in kind_folds)
        )
    return "\n".join(lines)
