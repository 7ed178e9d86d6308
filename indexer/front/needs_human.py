"""`seamless needs-human`: the whole list of what needs a human, as the explorer's home page lists it
(docs/pages.md), after the settle `seamless gardener` runs first too."""

import shlex

import click

from indexer.front.console import connect, echo_json, echo_line, scope
from indexer.front.gardener_commands import settle_first
from indexer.front.options import DEFAULT_DB, as_of
from indexer.query.needs_human import SECTIONS
from indexer.query.needs_human import needs_human as rows_of


@click.command("needs-human")
@click.option(
    "--as-of",
    "as_of",
    callback=as_of,
    metavar="T",
    help="The list as it stood at T: an ISO 8601 date or time (Z or an offset). Default: now.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to read.")
def needs_human(as_of, as_json, db_path):
    """What needs a human, whole: stages gated human, the gardener's proposals, files with errors, supersession
    forks and concurrent edits, in the order to work through them."""
    connect(db_path).close()  # a clear error when there is no index
    settle_first(db_path)
    rows = rows_of(db_path, as_of=as_of)
    for row in rows:  # a proposal's commands, for this index
        for key in ("command", "dismiss"):
            if row[key] and db_path != DEFAULT_DB:
                row[key] += " --db " + shlex.quote(db_path)
    if as_json:
        echo_json(rows)
        return
    shown = None
    for row in rows:
        if row["section"] != shown:
            shown = row["section"]
            click.echo(f"{SECTIONS[shown]} ({row['in_section']})")
        what = f"{row['proposal']} " if row["proposal"] else ""
        if row["section"] == "error":
            echo_line(f"  {row['path']}: {row['detail']}: {row['description']}")
        elif row["proposal"] == "unsettled":
            echo_line(f"  {what}{row['detail']}")
        else:
            echo_line(f"  {what}{row['id']} [{row['kind']}] {row['name']} ({scope(row['project'])}): {row['detail']}")
            for command in (row["command"], row["dismiss"]):
                if command:
                    echo_line(f"    {command}")
    sections = {row["section"] for row in rows}
    click.echo(f"{len(rows)} to look at, in {len(sections)} of {len(SECTIONS)} sections", err=True)
