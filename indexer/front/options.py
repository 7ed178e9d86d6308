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


def db_option(function):
    return click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to read.")(function)


def json_option(function):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")(function)


def as_of_option(function):
    return click.option(
        "--as-of",
        "as_of",
        callback=as_of,
        metavar="T",
        help="Replay the store as it was at T: an ISO 8601 date or time (Z or an offset). Default: now.",
    )(function)
