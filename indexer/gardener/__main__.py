"""`python -m indexer.gardener DB` settles the findings of the index at DB: a program, so it may name the index."""

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
