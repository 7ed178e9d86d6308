"""The canned queries' SQL, text only: each a core of CTEs in `indexer/sql/` that reads its parameters from a
relation (`briefing_params`, ...), which the queries below fill from named parameters ('' is "not given", as
Datasette sends a missing one) and views and other callers fill their own way (`compose`).
"""

from collections.abc import Callable, Iterator, Mapping

from indexer.sql import expand
from indexer.sql import source as sql_source

# as_of '' is now; a date or a time with an offset becomes canonical UTC text, anything else NULL (an empty answer):
# for callers that do not check it first (MCP, ad hoc SQL), where strftime reads `2026` as a Julian day
AS_OF = """CASE WHEN coalesce(:as_of, '') = '' THEN strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
    WHEN trim(:as_of) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
        AND date(substr(trim(:as_of), 1, 10)) IS substr(trim(:as_of), 1, 10)
    THEN strftime('%Y-%m-%dT%H:%M:%SZ', trim(:as_of)) END"""

# project '' or `global`: the global scope only; budget '': the store's briefing.budget_chars (in settings)
BRIEFING_PARAMS = f"""SELECT
    CASE WHEN :project IN ('', 'global') THEN NULL ELSE :project END AS project,
    {AS_OF} AS as_of,
    coalesce(CAST(nullif(:budget, '') AS INTEGER),
             (SELECT value FROM settings WHERE key = 'briefing.budget_chars')) AS budget"""

LEDGER_COLUMNS = """position, id, kind, name, description, project, pinned, stage_status, stage_gate, status,
    updated, valid_from, invalid_at, length(description) AS chars, running_chars, included, reason, as_of, budget"""
# the ledger's reading order within one briefing: the briefing, then what was left out and why
LEDGER_ORDER = "ledger_group, position, rank_group, updated DESC, id"
# The briefing's order (briefing_ledger.sql's, checked below), numbered in the outermost SELECT so that SQLite sorts
# once for the window and the ORDER BY: sorting twice was most of the query's time at 579 pinned rows.
BRIEFING_WINDOW = "PARTITION BY briefing ORDER BY rank_group, updated DESC, id ROWS UNBOUNDED PRECEDING"
BRIEFING_SELECT = f"""SELECT row_number() OVER briefing_order AS position, id, kind, name, description, project, pinned,
    stage_status, stage_gate, status, updated, valid_from, invalid_at, length(description) AS chars,
    sum(length(description)) OVER briefing_order AS running_chars, included, reason, as_of, budget
FROM briefing_included_rows
WINDOW briefing_order AS ({BRIEFING_WINDOW})
ORDER BY briefing, rank_group, updated DESC, id"""

RECALL_COLUMNS = "type, id, path, project, kind, name, description, title, snippet, highlights, rank, updated, matched"
# around each match in recall.sql's snippets: private-use characters no store text means (a body's `**` is no match)
MATCH_START, MATCH_END = "\ue000", "\ue001"
# the columns of a query's rows that hold JSON: its JSON gives them as JSON (plugins/canned_parameters.py)
JSON_COLUMNS = {"recall": ("matched", "highlights")}
RECALL_DEFAULT = 20  # recall answers with the best matches; agents read the first few
RECALL_MAX = 100
# project '': every project, else it and the global scope. limit: digits give at most RECALL_MAX, anything else
# RECALL_DEFAULT. all: 1 (or true, yes, on) requires every term (`--all`).
RECALL_PARAMS = f"""SELECT :q AS q, :project AS project,
    CASE WHEN trim(:limit) GLOB '[0-9]*' AND trim(:limit) NOT GLOB '*[^0-9]*'
        THEN min(CAST(trim(:limit) AS INTEGER), {RECALL_MAX}) ELSE {RECALL_DEFAULT} END AS max_rows,
    {AS_OF} AS as_of,
    lower(trim(coalesce(:all, ''))) IN ('1', 'true', 'yes', 'on') AS every"""
RECALL_ORDER = "rank, arm, id"  # bm25, then a memory before a note, then the id: equal files, equal answers

# :id is an id (any case), or else a name: one start in each project using it (only :project's if given), its
# active memory if it has one, else its newest; each start gives its own chain (start_id).
HISTORY_PARAMS = """SELECT id FROM memories WHERE id = upper(trim(:id))
UNION
SELECT (
    SELECT m.id FROM memories AS m WHERE m.name = named.name AND m.project IS named.project
    ORDER BY m.status = 'active' DESC, m.updated DESC, m.id LIMIT 1
)
FROM (
    SELECT DISTINCT name, project FROM memories
    WHERE name = trim(:id)
        AND (coalesce(:project, '') = '' OR project IS (CASE WHEN :project = 'global' THEN NULL ELSE :project END))
) AS named
WHERE NOT EXISTS (SELECT 1 FROM memories WHERE id = upper(trim(:id)))"""
HISTORY_COLUMNS = """start_id, position, id, kind, name, description, project, status, valid_from, invalid_at,
    superseded_by, link, is_start, chain_end_id, current_id"""

GARDENER_PARAMS = f"SELECT {AS_OF} AS as_of"

# The explorer's pages (docs/pages.md). by: 'week' or 'month', else store_life.sql chooses by the history's length;
# project: one project's life ('global': the global memories), '' the whole store's.
OVERVIEW_PARAMS = f"SELECT {AS_OF} AS as_of"
LIFE_PARAMS = f"SELECT {AS_OF} AS as_of, :by AS by, coalesce(:project, '') AS scope"
OVERVIEW_COLUMNS = """project, active, pinned, stages_open, stages_in_progress, stages_blocked, changed_7d, memories,
    notes, errors, warnings, as_of"""
NEEDS_HUMAN_COLUMNS = """position, section, section_position, in_section, id, path, kind, name, description, project,
    stage_status, updated, detail, proposal, ids, command, dismiss, settled, changed_since"""
ATTRIBUTION_COLUMNS = "by, who, written, superseded, archived, refuted, median_days_to_superseded"
GARDENER_COLUMNS = """proposal, id, kind, name, description, project, stage_status, updated, idle_days, reason, path, ids,
    command, settled, changed_since, as_of, rank"""  # (rank: the kind's place in the gardener's order)
# each proposal with the command that dismisses it (shared.sql; NULL for a kind no dismissal answers)
GARDENER_SELECT = f"{GARDENER_COLUMNS}, DISMISS_COMMAND(proposal, ids) AS dismiss"
# the gardener's order (needs_human.sql's too; gardener_findings.rank is a finding's place in it), each kind oldest
# first, then by the memories involved
PROPOSAL_ORDER = (
    "unsettled",
    "contradiction",
    "duplicate",
    "vague-description",
    "archive",
    "supersession-fork",
    "concurrent-edit",
)
PROPOSAL_RANK = (
    "CASE proposal "
    + " ".join(f"WHEN '{p}' THEN {n}" for n, p in enumerate(PROPOSAL_ORDER))
    + f"\n    ELSE {len(PROPOSAL_ORDER)} END"
)
FINDINGS = ("contradiction", "duplicate", "vague-description")  # what gardener_findings holds, by its rank
ANSWERABLE = (*FINDINGS, "archive")  # what a dismissal answers (store/dismissals.py; shared.sql's DISMISS_COMMAND)
# The gardener's proposals that a dismissal answers, in groups of one kind and project, counted, each with the commands
# that answer it whole (`seamless gardener`, the explorer's proposals): in the gardener's order, the largest first
GARDENER_GROUPS = """SELECT proposal, project, count(*) AS proposals,
    'seamless gardener dismiss ' || (SELECT store FROM gardener_settings) || ' --kind ' || proposal || ' --project '
        || SHELL_QUOTE(project) || ' --why ''...''' AS dismiss,
    CASE proposal WHEN 'archive' THEN 'seamless gardener archive ' || (SELECT store FROM gardener_settings)
        || ' --project ' || SHELL_QUOTE(project) END AS archive
FROM (
    SELECT proposal, coalesce(project, 'global') AS project, rank FROM gardener_found_valid
    UNION ALL SELECT 'archive', coalesce(project, 'global'), 4 FROM gardener_candidates
)
GROUP BY proposal, project
ORDER BY min(rank), proposals DESC, project"""
# The gardener's runs (gardener.sql), in its order: the canned query is their compound, which SQLite merges as it
# reads each in order (ORDER BY rank, updated, ids: ids start with `id`, and `updated` is never '')
GARDENER_RUNS = tuple(f"gardener_run_{run}" for run in ("unsettled", "current", "archive", "forks", "concurrent"))

# What a core's SQL and this module must say alike: each core is checked when a statement is composed from it
AGREED = {
    "recall": [(f"char({ord(MATCH_START)}), char({ord(MATCH_END)})", "marks matches", "MATCH_START and MATCH_END")],
    "briefing_ledger": [(f"WINDOW briefing_order AS ({BRIEFING_WINDOW})", "numbers the briefing", "BRIEFING_WINDOW")],
    "needs_human": [(PROPOSAL_RANK, "orders the proposals", "PROPOSAL_RANK")],
    "gardener": [
        (
            "(CASE f.rank " + " ".join(f"WHEN {PROPOSAL_ORDER.index(p)} THEN '{p}'" for p in FINDINGS) + " END)",
            "reads a finding's rank",
            "PROPOSAL_ORDER",
        ),
        (
            "gardener AS (\n    SELECT * FROM " + "\n    UNION ALL SELECT * FROM ".join(GARDENER_RUNS) + "\n)",
            "unites other runs in `gardener`",
            "GARDENER_RUNS",
        ),
    ],
}


def compose(
    params_name: str, params_sql: str, cores: list[str], select: str, given: dict[str, str] | None = None
) -> str:
    """One statement: `WITH RECURSIVE <params_name> AS (<params_sql>), <each given name AS (its SQL)>, <each core
    .sql> <select>`: `given` are relations a core reads that the caller fills instead of another core."""
    texts = [sql_source(core).strip() for core in cores]
    for core, text in zip(cores, texts):
        for needed, what, name in AGREED.get(core, ()):
            if needed not in text:
                raise RuntimeError(f"{core}.sql {what} differently from canned.{name}")
    relations = {params_name: params_sql, **(given or {})}
    parts = [f"{name} AS (\n{body}\n)" for name, body in relations.items()] + texts
    return "WITH RECURSIVE\n" + ",\n\n".join(parts) + "\n" + select


class Composed(Mapping[str, str]):
    """Statements by name, each composed the first time it is asked for: a command reads and composes only the
    cores of the queries it runs (composing every one cost each command's start-up a few ms)."""

    def __init__(self, makers: dict[str, Callable[[], str]]):
        self._makers: dict[str, Callable[[], str]] = makers
        self._made: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._made:
            self._made[name] = self._makers[name]()
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


# name -> what composes it (QUERIES below composes each when first asked for)
_QUERIES = {
    "briefing": lambda: compose("briefing_params", BRIEFING_PARAMS, ["briefing_ledger"], BRIEFING_SELECT),
    "briefing_ledger": lambda: compose(
        "briefing_params",
        BRIEFING_PARAMS,
        ["briefing_ledger"],
        f"SELECT {LEDGER_COLUMNS}\nFROM briefing_ledger ORDER BY briefing, {LEDGER_ORDER}",
    ),
    "recall": lambda: compose(
        "recall_params",
        RECALL_PARAMS,
        ["recall_query", "recall"],
        f"SELECT {RECALL_COLUMNS}\nFROM recall ORDER BY {RECALL_ORDER}",
    ),
    "history": lambda: compose(
        "history_params",
        HISTORY_PARAMS,
        ["history"],
        f"SELECT {HISTORY_COLUMNS}\nFROM history ORDER BY start_id, position",
    ),
    "gardener": lambda: compose(
        "gardener_params",
        GARDENER_PARAMS,
        ["gardener"],
        "\nUNION ALL\n".join(f"SELECT {expand(GARDENER_SELECT)} FROM {run}" for run in GARDENER_RUNS)
        + "\nORDER BY rank, updated, ids",
    ),
    "gardener_groups": lambda: compose("gardener_params", GARDENER_PARAMS, ["gardener"], expand(GARDENER_GROUPS)),
    "overview": lambda: compose(
        "overview_params",
        OVERVIEW_PARAMS,
        ["problem_scope", "overview"],
        f"SELECT {OVERVIEW_COLUMNS}\nFROM overview ORDER BY project = 'global', project",
    ),
    "needs_human": lambda: compose(
        "gardener_params",
        GARDENER_PARAMS,
        ["gardener", "problem_scope", "needs_human"],
        f"SELECT {NEEDS_HUMAN_COLUMNS}\nFROM needs_human ORDER BY position",
    ),
    "store_life": lambda: compose(
        "life_params",
        LIFE_PARAMS,
        ["store_life"],
        "SELECT period, by, kind, written, superseded, archived\nFROM store_life ORDER BY period, kind",
    ),
    # no parameters: the same SQL is the `attribution` view (sql/views.py)
    "attribution": lambda: (
        f"WITH RECURSIVE\n{sql_source('attribution').strip()}\nSELECT {ATTRIBUTION_COLUMNS}\n"
        "FROM attribution ORDER BY by = 'author', written DESC, who"
    ),
}
QUERIES = Composed(_QUERIES)


# Not canned queries: the explorer's windows on what needs a human (needs_human_page.sql, plugins/home_page.py), in
# needs_human's order, without ordering the rest. Each takes :as_of; a window :skip and :take. A section other than
# the proposals: its size, and a window of its rows; the proposals: their runs' sizes, and a window of each run.
NEEDS_HUMAN_PAGE_COLUMNS = """section, id, path, kind, name, description, project, stage_status, updated, detail, proposal,
    ids, command, dismiss, settled, changed_since"""
SECTIONS = ("stage", "error", "fork", "concurrent")


def _page(select: str, cores=("gardener", "problem_scope", "needs_human", "needs_human_page")) -> Callable[[], str]:
    return lambda: compose("gardener_params", GARDENER_PARAMS, list(cores), select)


NEEDS_HUMAN_PAGE = Composed(
    {
        **{
            f"size_{section}": _page(f"SELECT count(*) AS size FROM needs_human_section_{section}")
            for section in SECTIONS
        },
        **{
            f"window_{section}": _page(
                f"SELECT {NEEDS_HUMAN_PAGE_COLUMNS}\nFROM needs_human_section_{section}\n"
                "ORDER BY rank_in_section, error_path, coalesce(updated, ''), id, ids LIMIT :take OFFSET :skip"
            )
            for section in SECTIONS
        },
        "size_proposal": _page("SELECT * FROM needs_human_proposal_size"),
        **{part: _page(f"SELECT * FROM needs_human_{part}") for part in ("unsettled", "findings", "archive")},
    }
)


def _recall_superseded(shown: bool) -> str:
    """What replaced the superseded memories a recall matches that would rank among its results (:limit as recall's).
    `shown`: for a caller that has those results (the recall page), :shown_rows of them, the worst ranked :shown_worst,
    so that recall is not run again (at 100,000 memories it was most of the page's time)."""
    worst = "SELECT CASE WHEN :shown_rows < (SELECT max_rows FROM recall_params) THEN NULL ELSE :shown_worst END"
    return compose(
        "recall_params",
        f"{RECALL_PARAMS}, :superseded_limit AS superseded_limit",
        ["recall_query", *([] if shown else ["recall", "recall_shown"]), "recall_superseded"],
        "SELECT id, kind, name, description, project, replaces, replaces_ids, rank\nFROM recall_superseded ORDER BY rank, id",
        given={"recall_shown": worst + " AS worst"} if shown else None,
    )


# composed when first read, as QUERIES' statements are; GARDENER_STATE: how current the gardener's findings are
_LATER: dict[str, Callable[[], str]] = {
    "GARDENER_STATE": _page("SELECT * FROM gardener_state", ("gardener",)),
    "RECALL_SUPERSEDED": lambda: _recall_superseded(False),
    "RECALL_SUPERSEDED_SHOWN": lambda: _recall_superseded(True),
}


def __getattr__(name: str) -> str:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = made = _LATER[name]()
    return made


# Not canned queries: a memory's or note's revisions, oldest first (parents before children: the same on every
# clone), by its id or, for a note without one, by its path
REVISIONS_COLUMNS = '"commit", committed_at, author, message, change, path, old_path, blob'
REVISIONS_ORDER = 'generation, committed_at, "commit", path'
REVISIONS = f"SELECT {REVISIONS_COLUMNS}\nFROM revisions WHERE id = :id ORDER BY {REVISIONS_ORDER}"
REVISIONS_BY_PATH = f"SELECT {REVISIONS_COLUMNS}\nFROM revisions WHERE path = :path ORDER BY {REVISIONS_ORDER}"
# The memory page's: the newest :shown revisions of :id with their texts (kept for a memory with more than one),
# newest first, and how many there are in all
REVISIONS_SHOWN = f"""SELECT r."commit", r.committed_at, r.author, r.message, r.change, r.path, r.old_path, t.text,
    (SELECT count(*) FROM revisions WHERE id = :id) AS total
FROM revisions AS r LEFT JOIN revision_texts AS t ON t.blob = r.blob
WHERE r.id = :id
ORDER BY {", ".join(f"{column.strip()} DESC" for column in REVISIONS_ORDER.split(","))} LIMIT :shown"""

PARAMS = {
    "briefing": ("project", "as_of", "budget"),
    "briefing_ledger": ("project", "as_of", "budget"),
    "recall": ("q", "project", "limit", "as_of", "all"),
    "history": ("id", "project"),
    "gardener": ("as_of",),
    "gardener_groups": ("as_of",),
    "overview": ("as_of",),
    "needs_human": ("as_of",),
    "store_life": ("as_of", "by", "project"),
    "attribution": (),
}
