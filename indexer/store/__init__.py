"""The store: its files and their rules (its modules: docs/development.md). Knows nothing of the index: imports only
`indexer.sqlite` beside itself.
"""
