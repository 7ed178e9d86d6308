"""What a memory's page needs beyond its row: its successor and the current truth, from the `history` query."""

from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils import tilde_decode, tilde_encode

from indexer.queries import QUERIES
from indexer.serve import DATABASE


@hookimpl
def extra_template_vars(view_name, database, table, request, datasette):
    if view_name != "row" or database != DATABASE or table != "memories":
        return {}

    async def inner():
        memory_id = tilde_decode(request.url_vars["pks"])
        chain = {
            row["id"]: dict(row)
            for row in (await datasette.get_database(DATABASE).execute(QUERIES["history"], {"id": memory_id})).rows
        }
        start = chain.get(memory_id, {})
        successor_id = start.get("superseded_by")
        current_id = start.get("current_id")
        return {
            # the successor, or {"missing": True} when superseded_by points to no memory
            "successor": chain.get(successor_id, {"id": successor_id, "missing": True}) if successor_id else None,
            "current": chain.get(current_id) if current_id not in (None, memory_id, successor_id) else None,
            "history_url": datasette.urls.query(DATABASE, "history") + "?" + urlencode({"id": memory_id}),
            "memory_url": lambda other_id: datasette.urls.row(DATABASE, "memories", tilde_encode(other_id)),
        }

    return inner
