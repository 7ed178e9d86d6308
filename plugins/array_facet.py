"""The tags facet, fast: Datasette's own array facet, run over each row's primary key and array only.

Datasette counts a row once per distinct value by de-duplicating (value, row) pairs of whole rows,
bodies included: 0.8 s for 10,000 memories, so the tags facet timed out on every page. Over
(primary key, tags) the same query gives the same counts in about 60 ms. metadata.yml configures it
as `json_array: tags`; pages and JSON show it as an ordinary array facet, with the same filter links.
"""

from datasette import hookimpl
from datasette.facets import ArrayFacet
from datasette.utils import escape_sqlite


class JsonArrayFacet(ArrayFacet):
    type = "json_array"

    async def facet_results(self):
        keys = await self.ds.get_database(self.database).primary_keys(self.table) if self.table else []
        if not keys:  # a view or a rowid table: nothing narrower to count by
            return await super().facet_results()
        arrays = [c["config"].get("column") or c["config"]["simple"] for c in self.get_configs()]
        whole_rows = self.sql
        self.sql = f"select {', '.join(map(escape_sqlite, dict.fromkeys(keys + arrays)))} from ({whole_rows})"
        try:
            results, timed_out = await super().facet_results()
        finally:
            self.sql = whole_rows
        for result in results:
            result["type"] = ArrayFacet.type
        return results, timed_out


@hookimpl
def register_facet_classes():
    return [JsonArrayFacet]
