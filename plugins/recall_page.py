"""What the recall page adds to the canned query's rows: the old truths a search matched and what replaced them (a
person searching for an old port should hear what changed the store's mind, as `seamless recall` says it), why a
search that holds no word finds nothing, each result's matched terms, and its snippet with the matches in <mark>.
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
