"""The options and arguments several commands share, declared once for click."""

from pathlib import Path

import click

from indexer.store.timestamps import normalize

DEFAULT_DB = "seamless.db"


def as_of(ctx, param, value):
    """A click callback: `value` (ISO 8601) as canonical UTC text, None when not given."""
    if value is None:
        return None
    try:
        return normalize(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def store_argument(function):
    """STORE, a folder that exists."""
    return click.argument("store", type=click.Path(exists=True, file_okay=False, path_type=Path))(function)


def db(help: str, envvar: bool = False):
    """`--db`, the index: seamless.db unless given (or, where `envvar`, SEAMLESS_DB)."""
    return click.option(
        "--db", "db_path", default=DEFAULT_DB, show_default=True, help=help,
        envvar="SEAMLESS_DB" if envvar else None, show_envvar=envvar,
    )  # fmt: skip


def json_option_for(help: str):
    return click.option("--json", "as_json", is_flag=True, help=help)


db_option = db("The index to read.")
json_option = json_option_for("Print one JSON array.")
new_project_option = click.option(
    "--new-project", is_flag=True, help="The project is new: the store has no memory or note of it yet."
)


def as_of_option(function):
    return click.option(
        "--as-of",
        "as_of",
        callback=as_of,
        metavar="T",
        help="Replay the store as it was at T: an ISO 8601 date or time (Z or an offset). Default: now.",
    )(function)
