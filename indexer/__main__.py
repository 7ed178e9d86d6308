"""`python -m indexer` is the `seamless` command (serve --watch starts its watcher this way)."""

from .cli import cli

cli()
