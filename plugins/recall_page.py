"""What the recall page adds to the canned query's rows: the old truths a search matched and what replaced them.

Recall never returns a superseded memory, but a person searching for what the store used to believe (an
old port, a dropped library) should hear what changed its mind, as `seamless recall` says it: the same
SQL (indexer.sql.canned.RECALL_SUPERSEDED): the best five superseded matches that rank among the results shown,
followed to their current truth.
"""

from datasette import hookimpl

from indexer.index.database import DATABASE
from indexer.sql.canned import RECALL_SUPERSEDED

SUPERSEDED_SHOWN = 5


@hookimpl
def extra_template_vars(template, database, request, datasette):
    if template != "query-seamless-recall.html" or database != DATABASE or not request.args.get("q", "").strip():
        return {}

    async def inner():
        params = {name: request.args.get(name, "") for name in ("q", "project", "limit")}  # the canned query's
        params["superseded_limit"] = SUPERSEDED_SHOWN
        try:
            rows = (await datasette.get_database(DATABASE).execute(RECALL_SUPERSEDED, params)).rows
        except Exception:  # the canned query itself shows why a query cannot run; nothing to add here
            return {"superseded": []}
        return {"superseded": [dict(row) for row in rows]}

    return inner
