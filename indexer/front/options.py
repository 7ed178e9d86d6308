"""What the front ends' commands share: the default index, and reading an `--as-of` time."""

import click

DEFAULT_DB = "seamless.db"


def as_of(ctx, param, value):
    """A click callback: `value` (ISO 8601) as canonical UTC text, None when not given."""
    from indexer.store.timestamps import normalize

    if value is None:
        return None
    try:
        return normalize(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
