"""What a memory's page needs beyond its row, from the `history` query: its successor and the current truth,
the whole chain for the timeline, and the successor's own text for "what changed"; and from the `revisions`
table, its file's git revisions with the text each had (kept in the index at index time: no git at page time),
each diffed on the page against the one before."""

from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils import tilde_decode, tilde_encode

from indexer.index.database import DATABASE
from indexer.sql.canned import QUERIES, REVISIONS_SHOWN

SUCCESSOR_TEXT = "select description, body from memories where id = ?"
REVISIONS_SHOWN_MOST = 20  # each with its diff; the rest are one link away (the revisions table)


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
        revisions = await revisions_shown(db, memory_id)
        by_generation = urlencode({"id": memory_id, "_sort": "generation"})
        return {
            # its file's revisions, oldest first, each with `before` (the text of the one before), and how many
            "revisions": revisions,
            "revisions_total": revisions[0]["total"] if revisions else 0,
            "revisions_url": datasette.urls.table(DATABASE, "revisions") + "?" + by_generation,
            # the successor, or {"missing": True} when superseded_by points to no memory
            "successor": successor,
            "current": chain.get(current_id) if current_id not in (None, memory_id, successor_id) else None,
            # every member of the chain, oldest first (empty for a memory that replaced nothing and was never replaced)
            "chain": members if len(members) > 1 else [],
            "history_url": datasette.urls.query(DATABASE, "history") + "?" + urlencode({"id": memory_id}),
            "memory_url": lambda other_id: datasette.urls.row(DATABASE, "memories", tilde_encode(other_id)),
        }

    return inner


async def revisions_shown(db, memory_id: str) -> list[dict]:
    """The newest REVISIONS_SHOWN_MOST revisions of the memory, oldest first, each with the text before it; the
    first shown has the one before it as its `before` too, when there is one (`earlier`)."""
    found = await db.execute(REVISIONS_SHOWN, {"id": memory_id, "shown": REVISIONS_SHOWN_MOST + 1})
    rows = [dict(row) for row in reversed(found.rows)]
    shown = rows[-REVISIONS_SHOWN_MOST:]
    earlier = rows[:-REVISIONS_SHOWN_MOST]
    before = earlier[-1] if earlier else None
    for row in shown:
        row["before"], row["earlier"] = (before["text"] if before else None), before is not None
        before = None if row["change"] == "deleted" else row
    return shown
