"""The store's meaning as SQL: the schema and each query's core, one `.sql` file each, and how to read them. At the
bottom with `indexer.sqlite`: it imports nothing else, so every layer may read it.
"""

import functools
import os
import re

from indexer.sqlite import sqlite3

SHARED = "shared"  # the file of shared expressions
DEFINITION = r"^([A-Z_]+)(?:\(([^)]*)\))? = (.+)$"  # a line of shared.sql (multiline)


def source(name: str) -> str:
    """The text of `indexer/sql/<name>.sql`, with the shared expressions (shared.sql) written out."""
    return expand(_text(name))


def _text(name: str) -> str:
    # beside this module, in a checkout and an installed wheel alike; importlib.resources would cost every command
    # its imports (tempfile, zipfile, shutil...: about 5 ms of start-up)
    with open(os.path.join(os.path.dirname(__file__), f"{name}.sql"), encoding="utf-8") as file:
        return file.read()


@functools.cache
def shared() -> dict[str, tuple[list[str], str]]:
    """shared.sql's expressions: name -> (parameters, SQL)."""
    return {
        m[1]: ([p.strip() for p in m[2].split(",")] if m[2] else [], m[3].strip())
        for m in re.finditer(DEFINITION, _text(SHARED), re.MULTILINE)
    }


def expand(text: str) -> str:
    """`text` with each shared expression it names (NAME or NAME(arguments)) written out."""
    expressions = shared()
    named = re.compile(rf"\b({'|'.join(expressions)})\b")
    found = named.search(text)
    while found:
        parameters, expression = expressions[found[1]]
        end = found.end()
        if parameters:
            arguments, end = _arguments(text, end)
            if len(arguments) != len(parameters):
                raise ValueError(f"{found[1]} takes {len(parameters)} arguments, not {text[found.start() : end]}")
            expression = _substitute(expression, dict(zip(parameters, arguments)))
        text = text[: found.start()] + expression + text[end:]
        found = named.search(text, found.start())  # an expression may name another
    return text


def _substitute(expression: str, given: dict[str, str]) -> str:
    """`expression` with each parameter (a whole word) replaced by its argument, all at once."""
    return re.sub(rf"\b({'|'.join(given)})\b", lambda m: given[m[1]], expression)


def _arguments(text: str, at: int) -> tuple[list[str], int]:
    """The comma-separated arguments in the parentheses opening at `at`, and where they close."""
    if text[at : at + 1] != "(":
        raise ValueError(f"expected ( at {text[at : at + 40]!r}")
    depth, arguments, current = 0, [], at + 1
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                arguments.append(text[current:i].strip())
                return arguments, i + 1
        elif text[i] == "," and depth == 1:
            arguments.append(text[current:i].strip())
            current = i + 1
    raise ValueError(f"unclosed ( at {text[at : at + 40]!r}")


def statements(script: str) -> list[str]:
    """The SQL statements of `script`, one by one (executescript would commit the open transaction)."""
    found, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    return found


def columns(table: str) -> tuple[str, ...]:
    """The columns of `table` in schema.sql, in order: the one list of them (a record has these keys)."""
    return _schema_columns().get(table, ())


@functools.cache
def _schema_columns() -> dict[str, tuple[str, ...]]:
    """Every table's columns, from schema.sql run once in memory."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in statements(source("schema")):
            conn.execute(statement)
        tables = [row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")]
        return {table: tuple(row[1] for row in conn.execute(f"pragma table_info({table})")) for table in tables}
    finally:
        conn.close()
