"""The write path: the only code that changes the store's files (its modules: docs/development.md).

May import every layer below it (store, git, index, query, sql, sqlite); never a front end. The explorer's plugins
never import it: the explorer stays read-only.
"""
