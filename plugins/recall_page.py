"""What the recall page adds to the canned query's rows: the old truths a search matched and what replaced them,
why a search that holds no word finds nothing, and each result's matched terms read from their JSON.

Recall never returns a superseded memory, but a person searching for what the store used to believe (an
old port, a dropped library) should hear what changed its mind, as `seamless recall` says it: the same
SQL (indexer.sql.canned.RECALL_SUPERSEDED): the best five superseded matches that rank among the results shown,
followed to their current truth.
"""

import json

from datasette import hookimpl

from indexer.index.database import DATABASE
from indexer.query.recall_terms import nothing_to_search
from indexer.sql import canned
from indexer.sql.canned import PARAMS

SUPERSEDED_SHOWN = 5


@hookimpl
def extra_template_vars(template, database, request, datasette):
    if template != "query-seamless-recall.html" or database != DATABASE or not request.args.get("q", "").strip():
        return {}

    async def inner():
        params = {name: request.args.get(name, "") for name in PARAMS["recall"]}  # the canned query's
        params["superseded_limit"] = SUPERSEDED_SHOWN
        why = nothing_to_search(params["q"])
        try:
            rows = (await datasette.get_database(DATABASE).execute(canned.RECALL_SUPERSEDED, params)).rows
        except Exception:  # the canned query itself shows why a query cannot run; nothing to add here
            return {"superseded": [], "nothing_to_search": why}
        return {"superseded": [dict(row) for row in rows], "nothing_to_search": why}

    return inner


def matched_terms(value) -> list[str]:
    """A result's `matched` (a JSON array of terms) as a list; [] for anything else."""
    try:
        terms = json.loads(value) if isinstance(value, str) else []
    except ValueError:
        return []
    return [str(t) for t in terms] if isinstance(terms, list) else []


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["matched_terms"] = matched_terms
