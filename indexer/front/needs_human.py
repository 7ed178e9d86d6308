"""`seamless needs-human`: the whole list of what needs a human, as the explorer's home page lists it (docs/pages.md),
and the settle `seamless gardener` and this command run first, so that what they list is current."""

import contextlib

import click

from indexer.front import options
from indexer.front.options import DEFAULT_DB


def settle_first(db_path: str) -> None:
    """Bring the gardener's findings in step before they are listed (waiting for a settle already under way); say
    on standard error when that takes a settle, and when it cannot be done (the findings are then listed as they
    were settled, each saying so)."""
    from indexer.index import database, gardener_settle
    from indexer.query.gardener import state, state_line
    from indexer.sqlite import sqlite3

    try:
        with contextlib.closing(database.open_db(db_path)) as conn:
            if not gardener_settle.behind(conn):
                return
            click.echo(f"settling first: {state_line(state(conn), gardener_settle.running(db_path))}", err=True)
        gardener_settle.settle(db_path)
    except (sqlite3.Error, OSError) as e:
        click.echo(f"could not settle the gardener's findings ({e}); they are listed as they were settled", err=True)


@click.command("needs-human")
@click.option(
    "--as-of",
    "as_of",
    callback=options.as_of,
    metavar="T",
    help="The list as it stood at T: an ISO 8601 date or time (Z or an offset). Default: now.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to read.")
def needs_human(as_of, as_json, db_path):
    """What needs a human, whole: stages gated human, the gardener's proposals, files with errors, supersession
    forks and concurrent edits, in the order to work through them."""
    from indexer.front.cli import _connect, _echo_json, _echo_line, _scope  # (cli imports this module to register it)
    from indexer.query.needs_human import SECTIONS
    from indexer.query.needs_human import needs_human as rows_of

    _connect(db_path).close()  # a clear error when there is no index
    settle_first(db_path)
    rows = rows_of(db_path, as_of=as_of)
    if as_json:
        _echo_json(rows)
        return
    shown = None
    for row in rows:
        if row["section"] != shown:
            shown = row["section"]
            click.echo(f"{SECTIONS[shown]} ({row['in_section']})")
        what = f"{row['proposal']} " if row["proposal"] else ""
        if row["section"] == "error":
            _echo_line(f"  {row['path']}: {row['detail']}: {row['description']}")
        elif row["proposal"] == "unsettled":
            _echo_line(f"  {what}{row['detail']}")
        else:
            _echo_line(f"  {what}{row['id']} [{row['kind']}] {row['name']} ({_scope(row['project'])}): {row['detail']}")
    sections = {row["section"] for row in rows}
    click.echo(f"{len(rows)} to look at, in {len(sections)} of {len(SECTIONS)} sections", err=True)
