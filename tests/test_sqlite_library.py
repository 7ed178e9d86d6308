"""One SQLite library per process: the indexer's, sqlite-utils' and Datasette's are the same one."""

import platform
import sys

from datasette.utils import sqlite as datasette_sqlite
from sqlite_utils import utils as sqlite_utils_utils

from indexer.sqlite import sqlite3


def test_the_indexer_sqlite_utils_and_datasette_open_files_with_one_library():
    # two libraries in one process must never open the same file: each keeps its own POSIX locks
    assert sqlite3.connect is datasette_sqlite.sqlite3.connect
    assert sqlite3.connect is sqlite_utils_utils.sqlite3.connect


def test_where_pyproject_installs_pysqlite3_binary_it_is_the_library_in_use():
    wheel_platform = sys.platform == "linux" and platform.machine() == "x86_64" and sys.version_info < (3, 15)
    if wheel_platform:
        assert sqlite3.__name__ == "pysqlite3.dbapi2"
        assert sqlite3.sqlite_version_info >= (3, 51)
    else:
        assert sqlite3.__name__ in ("sqlite3", "pysqlite3.dbapi2")
