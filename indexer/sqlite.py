"""The one SQLite library every part of Seamless uses: `pysqlite3` when installed, else the standard library's.

Datasette and sqlite-utils each use `pysqlite3` rather than `sqlite3` when it can be imported; the
indexer, the bench and the tests pick the same one. One process must never open a file through two
SQLite libraries: each keeps its own POSIX locks, and closing the file in one drops the other's.
pyproject installs `pysqlite3-binary` (a current SQLite, whose FTS5 ranks faster) where it has wheels,
Linux x86-64 (docs/development.md#sqlite).
"""

try:
    from pysqlite3 import dbapi2 as sqlite3
except ImportError:  # any other platform: the SQLite Python was built with
    import sqlite3

__all__ = ["sqlite3"]
