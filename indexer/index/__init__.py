"""The index: the store's records in seamless.db, and keeping them in step with the files.

The database and its schema (database, fts), a run (build, planned by changes, one file read by prepare,
rows written by writer, FTS5 work on background), comparing without writing (status), how fresh the
index is (freshness) and following the files as they change (watch). Imports `indexer.store`,
`indexer.sql` and `indexer.sqlite`; never the query layer, the write path or a front end.
"""
