"""What the front ends' commands share: the default index, and reading an `--as-of` time. Free of click at import:
the commands run without click (`indexer.front.main`) read DEFAULT_DB here too."""

DEFAULT_DB = "seamless.db"


def as_of(ctx, param, value):
    """A click callback: `value` (ISO 8601) as canonical UTC text, None when not given."""
    import click  # here: only click calls this, having imported itself

    from indexer.store.timestamps import normalize

    if value is None:
        return None
    try:
        return normalize(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
