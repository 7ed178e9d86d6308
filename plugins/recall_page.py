"""What the recall page adds to the canned query's rows: the old truths a search matched and what replaced them,
why a search that holds no word finds nothing, each result's matched terms read from their JSON, and its snippet
as escaped text with the matches its `highlights` spans give in <mark>.

Recall never returns a superseded memory, but a person searching for what the store used to believe (an
old port, a dropped library) should hear what changed its mind, as `seamless recall` says it: the same
SQL (indexer.sql.canned.RECALL_SUPERSEDED_SHOWN): the best five superseded matches that rank among the results
shown, followed to their current truth. The page hands it the results it shows (how many, the worst rank) rather
than have it rank recall's matches again: at 100,000 memories that second recall was most of the page's time.
"""

import json

from datasette import hookimpl
from markupsafe import Markup, escape

from indexer.index.database import DATABASE
from indexer.query.recall_snippet import pieces
from indexer.query.recall_terms import nothing_to_search
from indexer.sql import canned
from indexer.sql.canned import PARAMS

SUPERSEDED_SHOWN = 5


@hookimpl
def extra_template_vars(template, database, request, datasette):
    if template != "query-seamless-recall.html" or database != DATABASE or not request.args.get("q", "").strip():
        return {}

    async def old_truths(rows) -> list[dict]:
        """The old truths among the matches, given the rows recall's canned query gave for this request."""
        params = {name: request.args.get(name, "") for name in PARAMS["recall"]}  # the canned query's
        ranks = [row["rank"] for row in rows]
        params |= {
            "superseded_limit": SUPERSEDED_SHOWN,
            "shown_rows": len(ranks),
            "shown_worst": max(ranks, default=None),
        }
        try:
            found = (await datasette.get_database(DATABASE).execute(canned.RECALL_SUPERSEDED_SHOWN, params)).rows
        except Exception:  # the canned query itself shows why a query cannot run; nothing to add here
            return []
        return [dict(row) for row in found]

    return {"old_truths": old_truths, "nothing_to_search": nothing_to_search(request.args["q"])}


def matched_terms(value) -> list[str]:
    """A result's `matched` (a JSON array of terms) as a list; [] for anything else."""
    try:
        terms = json.loads(value) if isinstance(value, str) else []
    except ValueError:
        return []
    return [str(t) for t in terms] if isinstance(terms, list) else []


def highlighted(snippet: str, highlights) -> Markup:
    """A recall snippet (a slice of markdown source) as escaped text, each match in <mark>."""
    return Markup("").join(
        Markup("<mark>{}</mark>").format(text) if match else escape(text) for text, match in pieces(snippet, highlights)
    )


@hookimpl
def render_cell(row, value, column, table, database):
    if database != DATABASE or table is not None or column != "snippet" or not isinstance(value, str):
        return None
    try:
        highlights = row["highlights"]
    except (KeyError, IndexError):  # a query of one's own with a column named snippet
        return None
    try:
        return highlighted(value, highlights)
    except (TypeError, ValueError):
        return None


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["matched_terms"] = matched_terms
