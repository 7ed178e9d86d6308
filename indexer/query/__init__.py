"""Answers from the index (its modules: docs/development.md). Reads the index only: imports `indexer.store`,
`indexer.git`, `indexer.index`, `indexer.sql` and `indexer.sqlite`, never the write path or a front end.
"""
