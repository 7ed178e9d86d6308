"""The commands that build and check the index: index, check."""

import contextlib
import sys
from pathlib import Path

import click

from indexer.front.console import connect
from indexer.front.options import DEFAULT_DB, db, store_argument
from indexer.index import build
from indexer.index.database import NotAnIndexError
from indexer.sqlite import sqlite3

PROGRESS_THRESHOLD = 2000  # files to read before a progress bar is worth showing


@click.command()
@store_argument
@db("The index to build or update.")
@click.option("--full", is_flag=True, help="Rebuild everything instead of only what changed.")
@click.option("--strict", is_flag=True, help="Exit 1 if any file has an error problem.")
def index(store: Path, db_path: str, full: bool, strict: bool):
    """Build or update the index of STORE (a folder with memories/ and notes/)."""
    try:
        summary = build.index_store(
            store,
            db_path,
            full=full,
            progress=progress_bar(),
            on_wait=waiting(db_path),
        )
    except NotAnIndexError as e:
        raise click.ClickException(str(e)) from None
    except sqlite3.DatabaseError as e:
        raise click.ClickException(
            f"could not write the index at {db_path}: {e}; the previous index is unchanged"
        ) from e
    except OSError as e:  # e.g. the folder of --db does not exist, so the lock file cannot be made
        raise click.ClickException(f"cannot open the index at {db_path}: {e.strerror or e}") from e
    if strict and summary.unlisted:  # --strict lists every problem on record, as a full run does
        with contextlib.closing(connect(db_path, read_only=True)) as conn:
            summary.problems, summary.unlisted = build.recorded_problems(conn), 0
    report(store, summary, db_path)
    if summary.gardener_behind:
        settle_in_background(db_path)
    if strict and summary.errors:
        sys.exit(1)


def settle_in_background(db_path: str) -> None:
    """Leave the gardener's findings to a settle of their own, started now unless one is under way."""
    from indexer import gardener  # a run that changed little does without it

    child = gardener.start(db_path)
    doing = f"settle in the background (pid {child.pid})" if child else "settle in the background"
    click.echo(
        f"the gardener's findings {doing}; the explorer says when they are in step, and `seamless gardener` "
        "waits for them",
        err=True,
    )


@click.command()
@store_argument
def check(store: Path):
    """Validate STORE without writing anything; exit 1 on any error problem."""
    summary = build.index_store(store, ":memory:", full=True, progress=progress_bar())
    report(store, summary)
    if summary.errors:
        sys.exit(1)


def progress_bar():
    """What an index run wraps its files to read in: a bar on a terminal when there are many, else None."""
    if not sys.stderr.isatty():
        return None

    def bar(files):
        if len(files) < PROGRESS_THRESHOLD:
            yield from files
            return
        with click.progressbar(files, label="indexing", file=sys.stderr) as shown:
            yield from shown

    return bar


def waiting(db_path):
    """The message shown when another run holds the index's lock."""
    return lambda: click.echo(f"waiting for another seamless index run on {db_path} to finish...", err=True)


def report(store: Path, summary, db_path: str = DEFAULT_DB) -> None:
    """A run's problems on standard output, then how many it did not list and its summary line on standard error."""
    if summary.problems:  # one write: thousands of echo calls cost more than the rest of a no-op's reporting
        click.echo("\n".join(problem.format(str(store)) for problem in summary.problems))
    if summary.unlisted:  # said by the runs that changed those files: saying them on every run drowned the new ones
        db = "" if db_path == DEFAULT_DB else f" --db {db_path}"
        click.echo(
            f"{summary.unlisted:,} problems in files this run did not change are not listed: "
            f"`seamless problems{db}` lists them all",
            err=True,
        )
    click.echo(summary.line(), err=True)
