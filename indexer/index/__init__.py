"""The index: the store's records in seamless.db, kept in step with the files (docs/development.md). It imports the
store, git, the gardener, sql and sqlite; never the query layer, the write path or a front end."""
