"""The store's projects, as its index holds them, and what to say of a project it does not hold: a typo never
becomes a project, and a read that names an unknown project says so (SPEC 8). The write path, init, the hook, the
read commands and the MCP tools all ask here."""

import difflib

LISTED = 20  # projects named in a sentence; the rest are counted

# A project is a store's when a memory (of any status) or a note names it
SQL_HAS = "SELECT EXISTS (SELECT 1 FROM memories WHERE project = :p) OR EXISTS (SELECT 1 FROM notes WHERE project = :p)"
SQL_ALL = (
    "SELECT project FROM memories WHERE project IS NOT NULL UNION SELECT project FROM notes WHERE project IS NOT NULL"
)


def has(conn, project: str) -> bool:
    """Whether a memory or a note of the store belongs to `project` (two index lookups)."""
    return bool(conn.execute(SQL_HAS, {"p": project}).fetchone()[0])


def every(conn) -> list[str]:
    return sorted(row[0] for row in conn.execute(SQL_ALL))


def unknown(conn, project: str | None) -> str | None:
    """None when `project` is global (None, empty, `global`) or a project of the store; else what to say of it,
    to follow "the store": `has no project 'x': did you mean 'y'? Its projects: a, b.`, the closest first."""
    scope = (project or "").strip()  # global as rules.scope reads it; the reads that ask here do without its import
    if scope in ("", "global") or has(conn, scope):
        return None
    projects = every(conn)
    close = difflib.get_close_matches(scope, projects, n=1, cutoff=0.6)
    listed = ", ".join(projects[:LISTED]) + (f", and {len(projects) - LISTED} more" if len(projects) > LISTED else "")
    guess = f": did you mean {close[0]!r}?" if close else "."
    return f"has no project {scope!r}{guess}" + (f" Its projects: {listed}." if projects else " It has no project yet.")
