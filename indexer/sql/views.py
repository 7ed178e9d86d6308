"""SQL views in seamless.db for ad hoc queries (docs/queries.md lists them): each is `canned.compose` over its
canned query's core, with every parameter left empty where the query takes none: "now" (read when the view is
read, never when it was created) and the store's settings.
"""

import os
import re

from indexer import sql
from indexer.sql import canned
from indexer.sql.canned import compose

NOW = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"


def active_memories() -> str:
    # the validity test of SPEC section 2, as every query reads it (indexer/sql/shared.sql)
    return sql.expand(f"SELECT m.*\nFROM memories AS m\nWHERE VALID_AT(m, {NOW})")


# The global-only briefing is included as project 'global' (what `seamless briefing --project global`
# prints): `project` is the project briefed, never NULL, so `where project = 'x'` always works.
GLOBAL = "global"


def unbound(sql: str, names) -> str:
    """`sql` with each named parameter in `names` given as '' (how Datasette sends a missing one)."""
    return re.sub(rf":({'|'.join(map(re.escape, names))})\b", "''", sql)


def _columns(columns: str, replaced: dict[str, str | None]) -> str:
    """A select list from a `queries` column list, some columns replaced by an expression, or left out (None)."""
    names = [c.strip() for c in columns.split(",")]
    return ", ".join(expression for c in names if (expression := replaced.get(c, c)) is not None)


def _integer(column: str) -> str:
    # a window or boolean result has no type: an integer affinity lets `included = '1'` (how Datasette's
    # table filters send values) match
    return f"CAST({column} AS INTEGER) AS {column}"


INTEGERS = {column: _integer(column) for column in ("position", "pinned", "included")}
CHAIN = {"start_id": "start_id AS chain_id", "position": INTEGERS["position"], "is_start": None}  # history's columns


def briefings() -> str:
    return compose(
        "briefing_params",
        # one row per briefing: every project with memories, and the global scope alone (project NULL);
        # as_of and budget are the canned query's own reading of "no parameter given"
        f"""SELECT scope.project, defaults.as_of, defaults.budget
FROM (SELECT DISTINCT project FROM memories WHERE project IS NOT NULL UNION ALL SELECT NULL) AS scope,
    ({unbound(canned.BRIEFING_PARAMS, canned.PARAMS["briefing_ledger"])}) AS defaults""",
        ["briefing_ledger"],
        f"""SELECT coalesce(briefing_project, '{GLOBAL}') AS project,
    {_columns(canned.LEDGER_COLUMNS, {"project": "project AS memory_project", **INTEGERS})}
FROM briefing_ledger
ORDER BY briefing_project IS NOT NULL, briefing_project, {canned.LEDGER_ORDER}""",
    )


def supersession_history() -> str:
    return compose(
        "history_params",
        # Walks start at a chain's first (a successor, no predecessor) and at every member of a supersession cycle,
        # which may have none: walking from every superseded memory took the view over the explorer's time limit.
        """SELECT m.id FROM memories AS m
WHERE m.superseded_by IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM memories AS predecessor WHERE predecessor.superseded_by = m.id)
UNION
SELECT m.id FROM problems AS p JOIN memories AS m ON m.path = p.path WHERE p.code = 'supersession-cycle'""",
        ["history"],
        # each chain once, as told from its first memory (or, in a cycle with no way in, from its smallest id)
        f"""SELECT {_columns(canned.HISTORY_COLUMNS, CHAIN)}
FROM history
WHERE start_id IN (
    SELECT first.start_id FROM history AS first
    WHERE first.position = 1 AND first.is_start
        AND (first.link IS NOT 'cycle' OR first.id = (SELECT min(id) FROM history WHERE start_id = first.start_id))
)
ORDER BY chain_id, position""",
    )


# each view's SQL, composed when an index run first installs or compares the views
VIEWS = canned.Composed(
    {
        "active_memories": active_memories,
        "briefings": briefings,
        "supersession_history": supersession_history,
        "gardener_proposals": lambda: unbound(canned.QUERIES["gardener"], canned.PARAMS["gardener"]),
        "attribution": lambda: canned.QUERIES["attribution"],  # it takes no parameters: the canned query itself
    }
)


def statements() -> dict[str, str]:
    """Each view's CREATE VIEW statement, exactly as SQLite keeps it in sqlite_master."""
    return {name: f"CREATE VIEW {name} AS\n{sql}" for name, sql in VIEWS.items()}


def create_views(db) -> None:
    """Drop and create every view, in one transaction (idempotent)."""
    with db.atomic():
        for name, sql in statements().items():
            db.execute(f"DROP VIEW IF EXISTS {name}")
            db.execute(sql)


def made_from() -> str:
    """The views' sources (the SQL files and modules of this package) as their names, sizes and times: while these are
    the same, so are the views."""
    folder = os.path.dirname(__file__)
    found = [
        (name, os.stat(os.path.join(folder, name))) for name in os.listdir(folder) if name.endswith((".sql", ".py"))
    ]
    return " ".join(f"{name}:{info.st_size}:{info.st_mtime_ns}" for name, info in sorted(found))


def ensure_views(db) -> bool:
    """Create the views unless the database already holds exactly these; True if it had to."""
    stored = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'").fetchall())
    if all(stored.get(name) == sql for name, sql in statements().items()):
        return False
    create_views(db)
    return True
