"""`python -m indexer` is the `seamless` command (serve --watch starts its watcher this way)."""

from indexer.front.cli import main

main()
