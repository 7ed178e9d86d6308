"""Run the real `seamless` command line with the disk as good as full.

    python tests/page_limit_run.py PAGES index STORE --db DB

Every SQLite connection the run opens gets `pragma max_page_count = PAGES` (SQLite raises it to the
database's current size if lower), so any write that needs the database to grow fails with
SQLITE_FULL, "database or disk is full", as it would on a full disk.
"""

import sys

from indexer.front.cli import cli
from indexer.sqlite import sqlite3

_connect = sqlite3.connect


def connect_with_page_limit(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    conn.execute(f"pragma max_page_count = {int(sys.argv[1])}")
    return conn


if __name__ == "__main__":
    sqlite3.connect = connect_with_page_limit
    cli(sys.argv[2:], prog_name="seamless")
