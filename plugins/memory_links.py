"""Ids become links: `superseded_by` to the successor's page, and in query results a memory's `id`
(and history's `current_id`, `chain_end_id`) or a note's `path` to its row."""

from datasette import hookimpl
from datasette.utils import tilde_encode
from markupsafe import Markup, escape

MEMORY_ID_COLUMNS = {"superseded_by", "current_id", "chain_end_id"}


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    if database != "seamless" or not isinstance(value, str) or not value:
        return None
    target = None
    if column == "superseded_by" and table in (None, "memories"):
        target = "memories"
    elif table is None and _row_type(row) == "memory" and (column == "id" or column in MEMORY_ID_COLUMNS):
        target = "memories"
    elif table is None and _row_type(row) == "note" and column == "path":
        target = "notes"
    if target is None:
        return None
    url = datasette.urls.row("seamless", target, tilde_encode(value))
    return Markup(f'<a href="{escape(url)}">{escape(value)}</a>')


def _row_type(row) -> str | None:
    """What a query row describes: recall says so in `type`; a row with a `kind` is a memory."""
    keys = row.keys()
    if "type" in keys:
        return row["type"]
    return "memory" if "kind" in keys else None
