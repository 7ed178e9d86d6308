"""The tags facet, fast: Datasette's array facet without its de-duplication of whole rows, which times out on a large
store and which the indexer makes needless (it stores each row's tags distinct). How it counts: docs/explorer.md.
"""

from datasette import hookimpl
from datasette.database import QueryInterrupted
from datasette.facets import ArrayFacet
from datasette.utils import escape_sqlite, path_with_added_args, path_with_removed_args
from datasette.utils.sqlite import sqlite3

FACET_SQL = """select j.value as value, sum(arrays.n) as count
from (select {col}, count(*) as n from ({sql}) group by {col}) as arrays join json_each(arrays.{col}) as j
group by j.value order by count desc, value limit {limit}"""
# every memory's tags, counted in one pass over memory_tags (schema.sql)
WHOLE_TABLE_SQL = {
    ("memories", "tags"): "select tag as value, count(*) as count from memory_tags group by tag "
    "order by count desc, value limit {limit}"
}


class JsonArrayFacet(ArrayFacet):
    type = "json_array"

    async def facet_results(self):
        results, timed_out = [], []
        size = self.get_facet_size()
        pairs = self.get_querystring_pairs()
        for config in self.get_configs():
            column = config["config"].get("column") or config["config"]["simple"]
            sql = FACET_SQL.format(col=escape_sqlite(column), sql=self.sql, limit=size + 1)
            whole = WHOLE_TABLE_SQL.get((self.table, column)) if self._whole_table() else None
            try:
                try:
                    rows = await self._count(whole.format(limit=size + 1) if whole else sql)
                except sqlite3.OperationalError:
                    if not whole:
                        raise
                    rows = await self._count(sql)  # an index made before memory_tags, not yet indexed again
            except QueryInterrupted:
                timed_out.append(column)
                continue
            values = []
            for row in rows.rows[:size]:
                value = str(row["value"])
                arg = {f"{column}__arraycontains": value}
                selected = (f"{column}__arraycontains", value) in pairs
                path = (
                    path_with_removed_args(self.request, arg) if selected else path_with_added_args(self.request, arg)
                )
                values.append(
                    {
                        "value": value,
                        "label": value,
                        "count": row["count"],
                        "toggle_url": self.ds.absolute_url(self.request, path),
                        "selected": selected,
                    }
                )
            results.append(
                {
                    "name": column,
                    "type": ArrayFacet.type,
                    "results": values,
                    "hideable": config["source"] != "metadata",
                    "toggle_url": self.ds.urls.path(path_with_removed_args(self.request, {"_facet_array": column})),
                    "truncated": len(rows) > size,
                }
            )
        return results, timed_out

    async def _count(self, sql: str):
        return await self.ds.execute(
            self.database, sql, self.params, truncate=False, custom_time_limit=self.ds.setting("facet_time_limit_ms")
        )

    def _whole_table(self) -> bool:
        """Whether the page shows every row of its table: Datasette's SQL for it is `select <columns> from <table>`."""
        words = self.sql.split()
        return bool(self.table) and not self.params and words[-2:] == ["from", escape_sqlite(self.table)]


@hookimpl
def register_facet_classes():
    return [JsonArrayFacet]
