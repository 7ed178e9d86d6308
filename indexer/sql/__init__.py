"""The store's meaning as SQL: the schema and each query's core, one `.sql` file each, and how to read them."""

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
