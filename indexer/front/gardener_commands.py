"""`seamless gardener`: the gardener's proposals, never acted on; and the settle it and `seamless needs-human` run
first, so that what they list is current."""

import contextlib

import click

from indexer.front.console import connect, echo_json, echo_line, scope
from indexer.front.options import as_of_option, db_option, json_option
from indexer.gardener import in_step, proposals, running, settle_all, state, state_line
from indexer.index import database
from indexer.sqlite import sqlite3


def settle_first(db_path: str) -> None:
    """Bring the gardener's findings in step before they are listed (waiting for a settle already under way); say
    on standard error when that takes a settle, and when it cannot be done (the findings are then listed as they
    were settled, each saying so)."""
    try:
        with contextlib.closing(database.open_db(db_path)) as conn:
            if in_step(conn):
                return
            click.echo(f"settling first: {state_line(state(conn), running(db_path))}", err=True)
        settle_all(db_path, database)
    except (sqlite3.Error, OSError) as e:
        click.echo(f"could not settle the gardener's findings ({e}); they are listed as they were settled", err=True)


@click.command()
@as_of_option
@json_option
@db_option
def gardener(as_of, as_json, db_path):
    """Proposals only, never acted on: contradictions, duplicates, vague descriptions, stale memories, and what the
    fleet left for a person (supersession forks, concurrent edits). Settles the findings first when they are behind."""
    connect(db_path).close()  # a clear error when there is no index
    settle_first(db_path)
    rows = proposals(connect(db_path), as_of=as_of, db_path=db_path)
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        if row["proposal"] == "unsettled":  # (the settle could not be made)
            echo_line(f"{row['proposal']}: {row['reason']}")
            continue
        echo_line(
            f"{row['proposal']} {row['id']} [{row['kind']}] {row['name']} ({scope(row['project'])}): {row['reason']}"
        )
        if row["command"]:
            echo_line(f"  {row['command']}")
    click.echo(f"{len(rows)} proposals; nothing was changed (the gardener only proposes)", err=True)
