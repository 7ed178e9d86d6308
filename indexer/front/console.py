"""What the commands share to answer: rows printed as JSON or aligned columns, store text printed escaped, and the
index opened with an error that says how to make one."""

import json
from pathlib import Path

import click

from indexer.index.database import is_index, not_an_index
from indexer.sqlite import sqlite3
from indexer.store.printable import escaped


def echo_json(rows: list[dict], booleans: tuple[str, ...] = ()) -> None:
    """`rows` as one JSON array; the columns `booleans` as true and false."""
    for row in rows:
        for key in booleans:
            if key in row and row[key] is not None:
                row[key] = bool(row[key])
    click.echo(json.dumps(rows, indent=2, ensure_ascii=False))


def echo_line(line: str) -> None:
    """Print one line of store text (titles, names, descriptions, paths) with control characters escaped,
    as problem lines are: a store file cannot forge a line, nor send the terminal an escape sequence."""
    click.echo(escaped(line))


def table(rows: list[dict], columns: list[str]) -> str:
    """Rows as aligned plain-text columns (None shown as '-')."""
    cells = [columns] + [["-" if r[c] is None else str(r[c]) for c in columns] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip() for line in cells)


def scope(project: str | None) -> str:
    return project or "global"


def connect(db_path: str, read_only: bool = False) -> sqlite3.Connection:
    """An open index, or a click error saying how to make one."""
    missing = click.ClickException(f"no index at {db_path}: run `seamless index STORE` first")
    if not Path(db_path).is_file():
        raise missing
    conn = (
        sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)
        if read_only
        else sqlite3.connect(db_path)
    )
    try:
        ours = is_index(conn)
    except sqlite3.DatabaseError:  # not SQLite at all
        ours = False
    if ours is None:
        raise missing
    if not ours:
        raise click.ClickException(not_an_index(db_path))
    return conn
