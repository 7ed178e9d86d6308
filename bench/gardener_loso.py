"""The gardener's pair rules measured without the index, and chosen leaving one labelled split out at a time.

The labelled stores of tests/fixtures/gardener/pairs.yaml are read and judged in this process as an index run would
judge them (indexer/gardener/pairs.py: memories with one signature are one group and one duplicate proposal;
two groups are judged by their newest memories when they share TOGETHER terms found in at most COMMON groups), so
a choice of limits is measured in milliseconds; tests/test_gardener_reads.py checks that the figures are the
indexed ones.

What is chosen (`Choice`): each kind's limits (gardener/sameness.py's SAME_* and CLOSE_WORDS, LIMITS) and whether each
of its rules and signs is kept. Each kind is chosen on its own, the other kind's choices as they are: first which
one rule or sign to leave out (or none), then the limits; each time the choice whose worst split is best, a split's
worth being the smaller of its precision's margin over 0.9 and its recall's over the target (`utility`), with the
ties broken as `best` says.
Leaving each split out in turn, the choice made on the others is measured on it: that is the estimate of how the
rules do on a split written apart (`python -m bench.gardener --loso`).
"""

import contextlib
import itertools
from collections import Counter
from dataclasses import dataclass

from indexer.gardener import sameness, wording
from indexer.gardener.pairs import COMMON, TOGETHER, terms

from .gardener import Score, labelled_stores

TARGETS = {"duplicate": 0.5, "contradiction": 0.3}  # recall; precision 0.9 for both
PRECISION = 0.9


@dataclass(frozen=True)
class Judged:
    """A split's pairs to judge, and how many of each kind are labelled."""

    split: str
    cases: list["Case"]
    positives: Counter


@dataclass(frozen=True)
class Case:
    """Two groups of one labelled store the index would judge, by their newest memories (or two copies of one)."""

    pair: frozenset[str]  # memory names
    label: str  # duplicate, contradiction, different, or '' when not labelled
    older: wording.Wording | None  # None for two copies of one description (a duplicate without a verdict)
    newer: wording.Wording | None


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
        readings = {name: wording.read(name, m["description"], m["kind"]) for _, _, name, m in active}
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


def scores(judged: Judged) -> dict[str, Score]:
    """Precision and recall of each pair kind on a split, with the rules as they are now."""
    found = {kind: Score(kind, judged.split, labelled=judged.positives[kind]) for kind in TARGETS}
    for case in judged.cases:
        if case.older is None:
            kind = "duplicate"
        else:
            verdict = sameness.judge(case.older, case.newer)
            if verdict is None:
                continue
            kind = verdict.proposal
        score = found[kind]
        score.proposed += 1
        if case.label == kind:
            score.right += 1
        else:
            score.wrong.append(f"{' / '.join(sorted(case.pair))} (labelled {case.label or 'different'})")
    return found


# What is chosen, per kind: limits (module constants of gardener/sameness.py) and rules or signs that may be left out


def _steps(low: float, high: float, step: float) -> list[float]:
    return [round(low + i * step, 3) for i in range(round((high - low) / step) + 1)]


# Below a tenth alike two memories share a word or two: the rules' own examples hold two subjects at two versions
# there (tests/test_gardener_rules.py), which the labelled stores do not, so no floor below 0.1 is offered.
LIMITS = {
    "contradiction": {"SAME_SUBJECT": _steps(0.1, 0.35, 0.05), "SAME_NEWS": _steps(0.1, 0.4, 0.025)},
    "duplicate": {
        "SAME_WORDS": _steps(0.4, 0.65, 0.05),
        "CLOSE_WORDS": _steps(0.25, 0.5, 0.025),
        "SAME_VALUE": _steps(0.1, 0.35, 0.05),
    },
}
RULES = {"contradiction": ("CONTRADICTIONS",), "duplicate": ("DUPLICATES", "SIGNS")}
LIMITS_NAMES = tuple(name for limits in LIMITS.values() for name in limits)
SIGN_NAMES = frozenset(sign.__name__ for sign in sameness.SIGNS)  # leaving one out may propose more, not less


@dataclass(frozen=True)
class Choice:
    """One kind's limits, and the rule or sign left out (if any)."""

    kind: str
    limits: tuple[tuple[str, float], ...]
    left_out: str = ""  # the name of a rule or sign

    def __str__(self) -> str:
        limits = ", ".join(f"{name} {value:g}" for name, value in self.limits)
        return limits + (f", without {self.left_out}" if self.left_out else "")


def current(kind: str) -> Choice:
    """The choice the rules hold now."""
    return Choice(kind, tuple((name, getattr(sameness, name)) for name in LIMITS[kind]))


def rule_choices(kind: str) -> list[Choice]:
    """The limits as they are, with all the rules and signs of `kind`, or one of them left out."""
    limits = current(kind).limits
    names = [rule.__name__ for group in RULES[kind] for rule in getattr(sameness, group)]
    return [Choice(kind, limits, left_out) for left_out in ["", *names]]


def limit_choices(kind: str, left_out: str) -> list[Choice]:
    """Every combination of the limits of `kind`, with `left_out` left out."""
    names = list(LIMITS[kind])
    return [
        Choice(kind, tuple(zip(names, values, strict=True)), left_out)
        for values in itertools.product(*(LIMITS[kind][n] for n in names))
    ]


@contextlib.contextmanager
def rules_as(*made: Choice):
    """gardener/sameness.py with the choices `made`, for the time of a `with`."""
    saved = {name: getattr(sameness, name) for name in ("CONTRADICTIONS", "DUPLICATES", "SIGNS", *LIMITS_NAMES)}
    try:
        for choice in made:
            for name, value in choice.limits:
                setattr(sameness, name, value)
            for group in RULES[choice.kind]:
                rules = getattr(sameness, group)
                setattr(sameness, group, tuple(r for r in rules if r.__name__ != choice.left_out))
        yield
    finally:
        for name, value in saved.items():
            setattr(sameness, name, value)


def utility(score: Score) -> float:
    """A split's worth for a choice: the smaller of its two margins, precision's over 0.9 (in tenths: 1.00 is 1) and
    recall's over its target (as a share of the target: twice the target is 1); at most 1, below zero for a miss."""
    precision = (score.precision - PRECISION) / (1 - PRECISION)
    recall = score.recall / TARGETS[score.kind] - 1
    return min(precision, recall, 1.0)


Measured = dict[Choice, dict[str, Score]]  # choice -> split -> the kind's score


def measure(choices: list[Choice], judged: dict[str, Judged], others: tuple[Choice, ...]) -> Measured:
    """Each of `choices` (with `others` made) -> split -> its kind's Score."""
    found = {}
    for choice in choices:
        with rules_as(*others, choice):
            found[choice] = {split: scores(judged[split])[choice.kind] for split in judged}
    return found


def best(measured: Measured, splits: list[str]) -> Choice:
    """The choice whose worst split of `splits` is best; then the best on average; then the one with fewer wrong
    proposals, then more right ones; then the one that may propose less: without a rule that earns nothing, with a
    sign that stops nothing, with the strictest limits."""

    def rank(choice: Choice):
        found = [measured[choice][s] for s in splits]
        worth = [utility(score) for score in found]
        right = sum(score.right for score in found)
        wrong = sum(score.proposed - score.right for score in found)
        less = 0 if not choice.left_out else -1 if choice.left_out in SIGN_NAMES else 1
        return (min(worth), sum(worth) / len(worth), -wrong, right, less, [v for _, v in choice.limits])

    return max(measured, key=rank)


@dataclass
class Fold:
    """One split left out: the choice made on the others, and how it did on the split."""

    left_out: str
    choice: Choice
    score: Score


def choose(kind: str, splits: list[str], judged: dict[str, Judged], cache: dict) -> Choice:
    """The choice for `kind` made on `splits`: first which rule or sign to leave out (if any), the limits as they
    are; then the limits."""
    others = tuple(current(k) for k in TARGETS if k != kind)
    if ("rules", kind) not in cache:
        cache[("rules", kind)] = measure(rule_choices(kind), judged, others)
    left_out = best(cache[("rules", kind)], splits).left_out
    if ("limits", kind, left_out) not in cache:
        cache[("limits", kind, left_out)] = measure(limit_choices(kind, left_out), judged, others)
    return best(cache[("limits", kind, left_out)], splits)


def loso(splits: list[str]) -> tuple[dict[str, list[Fold]], dict[str, Choice]]:
    """For each kind: each split left out in turn, with the choice made on the others and its score on the split;
    and the choice made on all the splits (the one the rules should hold)."""
    judged = {split: cases(split) for split in splits}
    cache: dict = {}
    folds: dict[str, list[Fold]] = {}
    chosen: dict[str, Choice] = {}
    for kind in TARGETS:
        folds[kind] = []
        for left in splits:
            choice = choose(kind, [s for s in splits if s != left], judged, cache)
            others = tuple(current(k) for k in TARGETS if k != kind)
            with rules_as(*others, choice):
                folds[kind].append(Fold(left, choice, scores(judged[left])[kind]))
        chosen[kind] = choose(kind, splits, judged, cache)
    return folds, chosen


def report(splits: list[str]) -> str:
    """The leave-one-split-out estimate as markdown: a row per kind, a column per split left out."""
    folds, chosen = loso(splits)
    lines = [
        "| kind | " + " | ".join(f"{s} left out" for s in splits) + " | pooled |",
        "| --- |" + " --- |" * (len(splits) + 1),
    ]
    for kind, kind_folds in folds.items():
        cells = [
            f"{f.score.precision:.2f} ({f.score.right}/{f.score.proposed}) / {f.score.recall:.2f} "
            f"({f.score.right}/{f.score.labelled})"
            for f in kind_folds
        ]
        right = sum(f.score.right for f in kind_folds)
        proposed = sum(f.score.proposed for f in kind_folds)
        labelled = sum(f.score.labelled for f in kind_folds)
        pooled = f"{right / proposed if proposed else 1:.2f} ({right}/{proposed}) / {right / labelled:.2f}"
        lines.append(f"| {kind} | " + " | ".join(cells) + f" | {pooled} |")
    lines.append("")
    for kind, kind_folds in folds.items():
        lines.append(f"{kind}: now {current(kind)}; chosen on all the splits: {chosen[kind]}")
        for fold in kind_folds:
            lines.append(f"    {fold.left_out} left out: {fold.choice}")
    return "\n".join(lines)
