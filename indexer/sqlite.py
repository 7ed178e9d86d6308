"""The one SQLite library every part of Seamless uses: `pysqlite3` when installed, else the standard library's (why
one process must never open a file through two: docs/development.md#sqlite).
"""

try:
    from pysqlite3 import dbapi2 as sqlite3
except ImportError:  # any other platform: the SQLite Python was built with
    import sqlite3

__all__ = ["sqlite3"]
