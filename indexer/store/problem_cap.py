"""At most MAX_WARNINGS_PER_FILE warnings per file: the rest are counted in one `more-warnings`."""

from collections import Counter

from indexer.store.problems import WARNING, Problem, warning

# One file could give a warning per list item (`tags: [[], [], ...]` gave 16,000): past this many, the rest are
# counted in one `more-warnings`, so a run's table and output stay in proportion to the store. Errors are never
# dropped (each field gives at most one): a file that is not indexed always says why.
MAX_WARNINGS_PER_FILE = 20


def capped(problems: list[Problem]) -> list[Problem]:
    """One file's `problems` with at most MAX_WARNINGS_PER_FILE warnings, the rest counted in a last one."""
    if len(problems) <= MAX_WARNINGS_PER_FILE:
        return problems
    kept, rest, warnings = [], [], 0
    for problem in problems:
        if problem.severity == WARNING:
            warnings += 1
            if warnings > MAX_WARNINGS_PER_FILE:
                rest.append(problem)
                continue
        kept.append(problem)
    if not rest:
        return problems
    counts = ", ".join(f"{n:,} {code}" for code, n in Counter(p.code for p in rest).most_common())
    why = f"{len(rest):,} more warnings not listed: {counts}"
    return [*kept, warning(rest[0].path, rest[0].line, "more-warnings", why)]
