"""The one SQLite library every part of Seamless uses: `pysqlite3` when installed, else the standard library's.

Datasette and sqlite-utils prefer `pysqlite3` too, and one process must never open a file through two SQLite
libraries: each keeps its own POSIX locks, and closing the file in one drops the other's (docs/development.md#sqlite).
"""

try:
    from pysqlite3 import dbapi2 as sqlite3
except ImportError:  # any other platform: the SQLite Python was built with
    import sqlite3

__all__ = ["sqlite3"]
