"""Rules that span files: duplicate ids, duplicate active names, dangling links and cycles."""

from dataclasses import dataclass

from .problems import Problem, error, warning

CONFLICT_CODES = ("duplicate-id", "duplicate-name")
LINK_CODES = ("dangling-supersession", "supersession-cycle")


@dataclass(frozen=True)
class Entry:
    """What the cross-file rules need to know of one memory."""

    id: str
    project: str | None
    name: str
    active: bool
    created: str | None
    path: str
    id_line: int = 1
    name_line: int = 1

    @property
    def precedence(self) -> tuple[str, str]:
        """Earliest created first, then the first path in sort order."""
        return (self.created or "\uffff", self.path)


def _losers(groups: dict, code: str, what: str, line_of) -> dict[str, Problem]:
    losers = {}
    for entries in groups.values():
        if len(entries) < 2:
            continue
        winner, *others = sorted(entries, key=lambda e: e.precedence)
        for e in others:
            losers[e.path] = error(
                e.path, line_of(e), code,
                f"{what(e)} is also used by {winner.path} (created {winner.created}); the earliest created is indexed",
            )
    return losers


def duplicate_losers(entries: list[Entry]) -> dict[str, Problem]:
    """The paths that lose a duplicate id or a duplicate active name, each with its error."""
    by_id: dict[str, list[Entry]] = {}
    for e in entries:
        by_id.setdefault(e.id, []).append(e)
    losers = _losers(by_id, "duplicate-id", lambda e: f"id {e.id}", lambda e: e.id_line)
    by_name: dict[tuple, list[Entry]] = {}
    for e in entries:
        if e.active and e.path not in losers:
            by_name.setdefault((e.project, e.name), []).append(e)
    losers.update(
        _losers(by_name, "duplicate-name",
                lambda e: f"name {e.name!r} (project {e.project or 'global'})", lambda e: e.name_line)
    )
    return losers


def link_problems(links: dict[str, tuple[str | None, str, int]]) -> list[Problem]:
    """Warnings for superseded_by pointing to no memory, and for every member of a cycle.

    `links` maps each indexed memory id to (superseded_by, path, line of superseded_by).
    """
    problems = []
    for memory_id, (target, path, line) in links.items():
        if target and target not in links:
            problems.append(warning(path, line, "dangling-supersession",
                                    f"superseded_by {target} points to no memory in the store"))
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
            in_cycle.update(trail[trail.index(node):])
        done.update(trail)
    for memory_id in sorted(in_cycle):
        _, path, line = links[memory_id]
        problems.append(warning(path, line, "supersession-cycle",
                                f"supersession cycle: following superseded_by from {memory_id} comes back to it"))
    return problems
