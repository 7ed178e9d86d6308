"""What a memory's page needs beyond its row, from the `history` query: its successor and the current truth,
the whole chain for the timeline, and the successor's own text for "what changed"."""

from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils import tilde_decode, tilde_encode

from indexer.index.database import DATABASE
from indexer.sql.canned import QUERIES

SUCCESSOR_TEXT = "select description, body from memories where id = ?"


@hookimpl
def extra_template_vars(view_name, database, table, request, datasette):
    if view_name != "row" or database != DATABASE or table != "memories":
        return {}

    async def inner():
        db = datasette.get_database(DATABASE)
        memory_id = tilde_decode(request.url_vars["pks"])
        members = [dict(row) for row in (await db.execute(QUERIES["history"], {"id": memory_id, "project": ""})).rows]
        chain = {row["id"]: row for row in members}
        start = chain.get(memory_id, {})
        successor_id = start.get("superseded_by")
        current_id = start.get("current_id")
        successor = chain.get(successor_id, {"id": successor_id, "missing": True}) if successor_id else None
        if successor and not successor.get("missing"):
            text = (await db.execute(SUCCESSOR_TEXT, [successor_id])).first()
            successor |= {"description": text["description"], "body": text["body"]}
        return {
            # the successor, or {"missing": True} when superseded_by points to no memory
            "successor": successor,
            "current": chain.get(current_id) if current_id not in (None, memory_id, successor_id) else None,
            # every member of the chain, oldest first (empty for a memory that replaced nothing and was never replaced)
            "chain": members if len(members) > 1 else [],
            "history_url": datasette.urls.query(DATABASE, "history") + "?" + urlencode({"id": memory_id}),
            "memory_url": lambda other_id: datasette.urls.row(DATABASE, "memories", tilde_encode(other_id)),
        }

    return inner
