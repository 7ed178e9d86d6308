"""`python -m indexer` is the `seamless` command (serve --watch starts its watcher this way)."""

from indexer.front.main import main

main()
