"""Rules that span files: duplicate ids, duplicate active names, dangling links, cycles and forks."""

from collections.abc import Callable
from dataclasses import dataclass

from indexer.store.problems import Problem, error, warning

LINK_CODES = ("dangling-supersession", "supersession-cycle")
FORK_CODE = "supersession-fork"


@dataclass(frozen=True, slots=True)
class Entry:
    """What the cross-file rules need to know of one memory."""

    id: str
    project: str | None
    name: str
    active: bool
    created: str | None
    path: str

    @property
    def precedence(self) -> tuple[str, str]:
        return precedence(self.created, self.path)


def precedence(created: str | None, path: str) -> tuple[str, str]:
    """Which of two files giving one id or name keeps it, least first (SPEC 5): the earliest created (none: last),
    then the first path without its `.md`, so that `x.md` comes before `x-2.md` (as a sync's rule 4 left them)."""
    return (created or "\uffff", path.removesuffix(".md"))


LineOf = Callable[[str, str], int]  # (path, frontmatter key) -> line in that file


def _losers(groups: dict, code: str, what: Callable[[Entry], str], key: str, line_of: LineOf) -> dict[str, Problem]:
    losers = {}
    for entries in groups.values():
        if len(entries) < 2:
            continue
        winner, *others = sorted(entries, key=lambda e: e.precedence)
        for e in others:
            if not winner.created:
                why = "and neither has a created date: the first path is indexed"
            elif winner.created == e.created:
                why = f"(created {winner.created}, as this one was): the first path is indexed"
            else:
                why = f"(created {winner.created}); the earliest created is indexed"
            losers[e.path] = error(e.path, line_of(e.path, key), code, f"{what(e)} is also used by {winner.path} {why}")
    return losers


def duplicate_losers(entries: list[Entry], line_of: LineOf) -> dict[str, Problem]:
    """The paths that lose a duplicate id or a duplicate active name, each with its error."""
    by_id: dict[str, list[Entry]] = {}
    for e in entries:
        by_id.setdefault(e.id, []).append(e)
    losers = _losers(by_id, "duplicate-id", lambda e: f"id {e.id}", "id", line_of)
    by_name: dict[tuple, list[Entry]] = {}
    for e in entries:
        if e.active and e.path not in losers:
            by_name.setdefault((e.project, e.name), []).append(e)
    losers.update(
        _losers(
            by_name, "duplicate-name", lambda e: f"name {e.name!r} (project {e.project or 'global'})", "name", line_of
        )
    )
    return losers


def link_problems(links: dict[str, tuple[str, str]], dangling: set[str], line_of: LineOf) -> list[Problem]:
    """Warnings for superseded_by pointing to no memory, and for every member of a cycle. `links`: each indexed
    memory with a superseded_by -> (superseded_by, path); `dangling`: those whose superseded_by names none."""
    problems = []
    for memory_id, (target, path) in links.items():
        if memory_id in dangling:
            why = f"superseded_by {target} points to no memory in the store"
            problems.append(warning(path, line_of(path, "superseded_by"), "dangling-supersession", why))
    in_cycle: set[str] = set()
    done: set[str] = set()
    for start in links:
        trail: list[str] = []
        seen_here: set[str] = set()
        node = start
        while node in links and node not in done and node not in seen_here:
            seen_here.add(node)
            trail.append(node)
            node = links[node][0]
        if node in seen_here:
            in_cycle.update(trail[trail.index(node) :])
        done.update(trail)
    for memory_id in sorted(in_cycle):
        path = links[memory_id][1]
        why = f"supersession cycle: following superseded_by from {memory_id} comes back to it"
        problems.append(warning(path, line_of(path, "superseded_by"), "supersession-cycle", why))
    return problems


def fork_problems(
    claims: dict[str, tuple[str, str, bool]], replaced: dict[str, tuple[bool, str | None]], line_of: LineOf
) -> list[Problem]:
    """A warning on every active memory that says `supersedes: X` while X is invalid and names another successor
    (or none): two hosts replaced X at once, and the merge kept the other one (SPEC section 10). `claims`: each
    memory with a `supersedes` -> (X, path, active); `replaced`: each X indexed -> (X is invalid, its superseded_by).
    An X still active (a supersede not finished), or not in the store, or a claim no longer active is no fork."""
    problems = []
    for memory_id, (target, path, active) in claims.items():
        if target not in replaced or not active:
            continue
        invalid, successor = replaced[target]
        if not invalid or successor == memory_id:
            continue
        other = f"{target} names {successor} as its successor" if successor else f"{target} was archived without one"
        why = f"supersedes {target}, but {other}: both replaced it at once (on two hosts?); decide which one stands"
        problems.append(
            warning(path, line_of(path, "supersedes"), FORK_CODE, why + " and archive or supersede the other")
        )
    return problems
