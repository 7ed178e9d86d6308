"""`seamless show` and `seamless history X --revisions`: a memory's or note's file through the store's git history.

Each parses its options and calls indexer.query.revisions; cli.py registers `show` and hands `--revisions` here.
"""

import sys

import click

from indexer.front.options import DEFAULT_DB


def print_revisions(x: str, project: str | None, as_json: bool, db_path: str) -> None:
    """X's revisions, oldest first: one JSON array, or one line each."""
    from indexer.front.cli import _connect, _echo_json, _echo_line, _table
    from indexer.query import revisions

    conn = _connect(db_path)
    try:
        target = revisions.find(conn, x, project)
        found = revisions.revisions(conn, target)
    except revisions.RevisionError as e:
        raise click.ClickException(str(e)) from None
    listed = [
        {key: row[key] for key in ("commit", "committed_at", "author", "message", "change", "path")} for row in found
    ]
    if as_json:
        _echo_json(listed)
    else:
        shown = [row | {"commit": row["commit"][:12]} for row in listed]
        for line in _table(shown, ["commit", "committed_at", "author", "change", "message"]).splitlines():
            _echo_line(line)
    if not found:
        click.echo(f"{target.label} has no revisions: its file was never committed to git", err=True)


@click.command()
@click.argument("x", metavar="X")
@click.option("--project", help="The project of the name X, when several use it (`global` for global).")
@click.option(
    "--at",
    metavar="COMMIT_OR_TIME",
    help="Show the file as it stood at this commit (anything git names one by) or ISO 8601 time. Default: now.",
)
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to read.")
def show(x, project, at, db_path):
    """Print the file of X (a memory's id or name, a note's id or path) as it stands now, or as it stood --at a
    commit or a time, followed through renames; the index knows its store."""
    from indexer.front.cli import _connect
    from indexer.query import revisions
    from indexer.store import git
    from indexer.store.printable import escaped

    conn = _connect(db_path)
    try:
        data = revisions.file_at(conn, revisions.find(conn, x, project), at)
    except (revisions.RevisionError, git.GitError) as e:
        raise click.ClickException(str(e)) from None
    if sys.stdout.isatty():  # a file cannot send the terminal an escape sequence; piped, its bytes are kept
        text = data.decode("utf-8", "replace")
        lines = ("\t".join(escaped(part) for part in line.split("\t")) for line in text.split("\n"))
        click.echo("\n".join(lines), nl=False)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
