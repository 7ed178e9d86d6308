"""`python -m indexer.gardener DB`: settle the gardener's findings of the index at DB (what `background.start` runs).
A program: it names the index, which the package sits below."""

import gc
import sys

from indexer.gardener.background import settle_all
from indexer.index import database

if __name__ == "__main__":
    gc.disable()  # a settle's readings hold no cycles (as in the index run)
    try:
        settle_all(sys.argv[1], database)
    except Exception:  # said in the index (gardener_error); nothing reads our output
        sys.exit(1)
