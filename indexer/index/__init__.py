"""The index: the store's records in seamless.db, and keeping them in step with the files (its modules:
docs/development.md). Imports `indexer.store`, `indexer.git`, `indexer.sql` and `indexer.sqlite`; never the query
layer, the write path or a front end.
"""
