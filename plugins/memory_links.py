"""Ids become links: `superseded_by` to the successor's page, and in query results and the SQL views a memory's id
(MEMORY_ID_COLUMNS too) or a note's `path` to its row; a dangling successor id is text that says so, not a 404 link.
"""

from datasette import hookimpl
from datasette.utils import tilde_encode
from markupsafe import Markup, escape

from indexer.index.database import DATABASE
from indexer.sql.views import VIEWS

MEMORY_ID_COLUMNS = {"superseded_by", "current_id", "chain_end_id", "chain_id"}
RESULTS = {None, *VIEWS}  # canned query results (no table) and the SQL views: rows that say what they describe


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    if database != DATABASE or not isinstance(value, str) or not value:
        return None
    target = None
    if (column == "superseded_by" and table == "memories") or (
        table in RESULTS and _row_type(row) == "memory" and (column == "id" or column in MEMORY_ID_COLUMNS)
    ):
        target = "memories"
    elif table in RESULTS and _row_type(row) == "note" and column == "path":
        target = "notes"
    if target is None:
        return None
    url = datasette.urls.row(DATABASE, target, tilde_encode(value))
    link = Markup(f'<a href="{escape(url)}">{escape(value)}</a>')
    if column != "superseded_by":  # the row's own id or path, or a chain member history found: in the index
        return link

    async def link_if_indexed():
        db = datasette.get_database(DATABASE)
        if (await db.execute("select 1 from memories where id = ?", [value])).first():
            return link
        return Markup(f'{escape(value)} <em class="dangling">(not in the index)</em>')

    return link_if_indexed


def _row_type(row) -> str | None:
    """What a query row describes: recall says so in `type`; a row with a `kind` is a memory."""
    keys = row.keys()
    if "type" in keys:
        return row["type"]
    return "memory" if "kind" in keys else None
