"""The canned queries, none writable: the indexer's own SQL (indexer.sql.canned.QUERIES, shared with the CLI), and a
problems overview."""

from datasette import hookimpl

from indexer.index.database import DATABASE
from indexer.sql.canned import QUERIES

DESCRIPTIONS = {
    "briefing": (
        "Briefing",
        "What an agent working on a project is told before it starts: pinned memories first, then the newest "
        "that fit the budget. Empty as_of means now; empty budget means the store's briefing.budget_chars. "
        "Plain markdown for a prompt: add .md to the path.",
    ),
    "briefing_ledger": (
        "Briefing ledger",
        "Every memory in a briefing's scope, and whether it went in and why: pinned, included, dropped "
        "(budget, age, stage unknown) or not valid at as_of. Nothing leaves a briefing silently.",
    ),
    "recall": (
        "Recall",
        "Full-text search over the memories valid now and the notes, best first (description weighted above "
        "body). Optionally limited to one project plus global. Invalid memories never come back. The best 20 "
        "unless limit says how many (at most 100), like `seamless recall`.",
    ),
    "history": (
        "History",
        "The whole supersession chain of a memory (by id), oldest first, with each link's times and the current truth.",
    ),
    "gardener": (
        "Gardener",
        "Proposals only, never acted on: stale stages and long-unchanged memories that could be archived.",
    ),
    "gardener_groups": (
        "The gardener's proposals by kind and project",
        "How many proposals of each kind each project has, with the commands that dismiss a whole group and that "
        "carry out a group of archive proposals (each shows what it will do, and acts with --yes).",
    ),
    "overview": (
        "Overview",
        "The home page's cards: per project, and for global, the active and pinned memories, live stages by "
        "status, memories changed in the 7 days up to as_of, notes, errors and warnings. Empty as_of means now.",
    ),
    "needs_human": (
        "Needs a human",
        "The home page's list: live stages gated human (blocked first), the gardener's proposals, every file "
        "with an error, supersession forks and memories edited on two hosts at once, in that order. Empty as_of "
        "means now.",
    ),
    "store_life": (
        "The store's life",
        "Memories written, superseded and archived per period (by: week or month; empty chooses by the length "
        "of the history) and kind, up to as_of; project: one project's ('global': the global memories), empty: "
        "the whole store's. Drawn as a chart at /-/life.",
    ),
    "attribution": (
        "Attribution",
        "Per model and per git author (who committed the memory's first version): memories written, and how many "
        "of them were superseded, archived and refuted (superseded by a memory of kind refuted), with the median "
        "days from written to superseded. Laid out at /-/attribution.",
    ),
}

PROBLEMS_SQL = """\
select severity, code, count(*) as problems, count(distinct path) as files,
  min(path) as first_path
from problems
group by severity, code
order by severity = 'warning', problems desc, code
"""


@hookimpl
def canned_queries(database):
    if database != DATABASE:
        return {}
    queries = {}
    for name, sql in QUERIES.items():
        title, description = DESCRIPTIONS.get(name, (name.replace("_", " ").capitalize(), None))
        # the indexer's SQL is long: folded on the page ("show" unfolds it), so the form and rows come first
        queries[name] = {"sql": sql, "title": title, "description": description, "write": False, "hide_sql": True}
    queries["problems_overview"] = {
        "sql": PROBLEMS_SQL,
        "title": "Problems overview",
        "description": "Problems found while indexing, counted by severity and code. Errors mean files not indexed.",
        "write": False,
    }
    return queries
