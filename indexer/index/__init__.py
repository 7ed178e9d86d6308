"""The index: the store's records in seamless.db, and keeping them in step with the files.

The database and its schema (database, fts), a run (build, planned by plan, one file read by prepare,
rows written by writer, FTS5 work on background), comparing without writing (status), how fresh the
index is (freshness), following the files as they change (watch) and catching up quickly for a reader with
little time (catch_up). Imports `indexer.store`,
`indexer.git`, `indexer.sql` and `indexer.sqlite`; never the query layer, the write path or a front end.
"""
