"""Where a full rebuild's time goes: each stage timed on its own, then the whole run.

    .venv/bin/python -m bench.stages bench/out/stores/10000-1

Walk, read, parse and validate are run alone over the whole store; "database" is the rest
of a real `index_store(..., full=True)`: inserts, cross-file rules, FTS5 build, commit.
"""

import gc
import sys
import tempfile
import time
from pathlib import Path

from indexer.index.build import index_store
from indexer.index.plan import store_files
from indexer.store.parse import parse_bytes
from indexer.store.settings import DEFAULTS
from indexer.store.validate import memory_record, note_record
from indexer.store.walk import read_regular_file, walk_folders


def stages(root: str) -> list[tuple[str, float]]:
    """(stage, seconds) for walk, read, parse, validate and the database, with the total last."""
    limit = DEFAULTS["index.max_file_bytes"]
    timed = []

    def timer(name, work):
        started = time.perf_counter()
        result = work()
        timed.append((name, time.perf_counter() - started))
        return result

    for f in store_files(
        walk_folders(Path(root))
    ).values():  # warm the page cache: every stage then reads what the run reads
        read_regular_file(f"{root}/{f.path}", limit + 1)
    gc.disable()
    files = timer("walk", lambda: store_files(walk_folders(Path(root))))
    data = timer("read", lambda: [(f, read_regular_file(f"{root}/{p}", limit + 1)) for p, f in files.items()])
    parsed = timer("parse", lambda: [(f, parse_bytes(f.path, d, limit)) for f, d in data])
    timer("validate", lambda: [(memory_record if f.type == "memory" else note_record)(p) for f, p in parsed])
    gc.enable()
    with tempfile.TemporaryDirectory() as tmp:
        total = timer("total", lambda: index_store(root, Path(tmp) / "stages.db", full=True)) and timed[-1][1]
    timed.insert(4, ("database", total - sum(seconds for _, seconds in timed[:4])))
    return timed


def main() -> None:
    timed = stages(sys.argv[1])
    total = timed[-1][1]
    for name, seconds in timed:
        print(f"{name:>9}: {seconds:6.2f} s  {100 * seconds / total:3.0f}%")


if __name__ == "__main__":
    main()
