"""`seamless problems`: every problem the index holds, as each file's last read left them, read from the index
alone (`seamless index` prints only those of the files it read).
"""

import os
from dataclasses import asdict

import click

from indexer.front.console import connect, echo_json
from indexer.front.options import db_option, json_option
from indexer.index.build import recorded_problems
from indexer.index.database import store_of


@click.command()
@db_option
@json_option
def problems(db_path, as_json):
    """List every problem the index holds (each file's as its last read left them), without reading the store."""
    conn = connect(db_path, read_only=True)
    found, store = recorded_problems(conn), store_of(conn)
    conn.close()
    if as_json:
        echo_json([asdict(p) for p in found])
    elif found:
        prefix = _shown(store)
        click.echo("\n".join(problem.format(prefix) for problem in found))
    errors = sum(p.severity == "error" for p in found)
    warnings = len(found) - errors
    click.echo(f"{len(found):,} problems in the index at {db_path}: {errors:,} errors, {warnings:,} warnings", err=True)


def _shown(store: str | None) -> str:
    """The store's folder as the lines name it: relative to here when it is below, else as the index holds it."""
    if store is None:
        return ""
    relative = os.path.relpath(store)
    return store if relative == ".." or relative.startswith(f"..{os.sep}") else relative
