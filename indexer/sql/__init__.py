"""The store's meaning as SQL: the schema and each query's core, one `.sql` file each, and how to read them."""

import functools
from importlib import resources

from ..sqlite import sqlite3


def source(name: str) -> str:
    """The text of `indexer/sql/<name>.sql`."""
    return resources.files(__package__).joinpath(f"{name}.sql").read_text("utf-8")


def statements(script: str) -> list[str]:
    """The SQL statements of `script`, one by one (executescript would commit the open transaction)."""
    found, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    return found


@functools.cache
def columns(table: str) -> tuple[str, ...]:
    """The columns of `table` in schema.sql, in order: the one list of them (a record has these keys)."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in statements(source("schema")):
            conn.execute(statement)
        return tuple(row[1] for row in conn.execute(f"pragma table_info({table})"))
    finally:
        conn.close()
