"""The `seamless` command line: each command parses its options and calls one library function.

Kept free of Datasette imports so that `seamless index` starts fast.
"""

import sys
from pathlib import Path

import click

DEFAULT_DB = "seamless.db"


def store_argument(function):
    return click.argument(
        "store", type=click.Path(exists=True, file_okay=False, path_type=Path)
    )(function)


@click.group()
@click.version_option(package_name="seamless-explorer")
def cli():
    """Index and explore a Seamless memory store."""


@cli.command()
@store_argument
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to build or update.")
@click.option("--full", is_flag=True, help="Rebuild everything instead of only what changed.")
@click.option("--strict", is_flag=True, help="Exit 1 if any file has an error problem.")
def index(store, db_path, full, strict):
    """Build or update the index of STORE (a folder with memories/ and notes/)."""
    from .build import index_store

    summary = index_store(store, db_path, full=full, progress=sys.stderr.isatty())
    _report(store, summary)
    if strict and summary.errors:
        sys.exit(1)


@cli.command()
@store_argument
def check(store):
    """Validate STORE without writing anything; exit 1 on any error problem."""
    from .build import index_store

    summary = index_store(store, ":memory:", full=True, progress=sys.stderr.isatty())
    _report(store, summary)
    if summary.errors:
        sys.exit(1)


def _report(store: Path, summary) -> None:
    for problem in summary.problems:
        click.echo(problem.format(str(store)))
    click.echo(summary.line(), err=True)
