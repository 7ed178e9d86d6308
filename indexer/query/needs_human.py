"""What needs a human, the whole list (the `needs_human` canned query): live stages gated human, the gardener's
proposals, files with errors, supersession forks and concurrent edits, in the order to work through them
(docs/pages.md). `seamless needs-human` prints it; the explorer's home page shows each section's first rows."""

import json

from indexer.query import queries

SECTIONS = {  # in the order to work through them: each section's title
    "stage": "Stages waiting for a human",
    "proposal": "The gardener's proposals",
    "error": "Errors (their files are not indexed)",
    "fork": "Replaced twice at once (two hosts superseded one memory)",
    "concurrent": "Edited on two hosts at once",
}


def needs_human(conn_or_db, as_of: str | None = None) -> list[dict]:
    """Every row of the list at `as_of` (None: now), in order, each proposal's `ids` as a list."""
    rows = queries.run(conn_or_db, "needs_human", as_of=as_of)
    for row in rows:
        row["ids"] = json.loads(row["ids"]) if row["ids"] else None
    return rows
