"""Where a small store's full rebuild goes: each import and each step of one run, as a new process pays them.

A rebuild of a small store is mostly fixed cost, and a fixed cost is paid once a process (an import, a pattern
compiled on first use, the schema of a new file): a step's time here is its wall time the first time it runs in a
fresh process, taken by wrapping the step's function around `index_store(STORE, NEW, full=True)`. RUNS processes,
one after the other; the medians. "run, in all" is index_store from start to end, so it holds every step below
it; what it holds besides them is the walk, the reading of the settings and the bookkeeping. The click command
line and the interpreter's own start are not in it (`python -m bench.rebuild` times the whole process).

    python -m bench.rebuild_steps STORE [--runs 7]
"""

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .startup import compiled

# (module, function or Class.method) -> label: the steps timed, in the order a run takes them
STEPS = {
    ("indexer.index.database", "open_db"): "open the new file: pragmas, schema, FTS tables",
    ("indexer.index.build", "_ensure_views"): "the views",
    ("indexer.index.plan", "plan_store"): "the store's place in git, settings, walk and plan",
    ("indexer.index.writer", "IndexWriter.__init__"): "the writer (the schema's columns)",
    ("indexer.index.prepare", "Reading.read_stale"): "read, parse and validate every file",
    ("indexer.index.writer", "IndexWriter.finish"): "insert and index the rows, cross-file rules",
    ("indexer.gardener.findings", "settle"): "the gardener's settle",
    ("indexer.index.fts", "end_rebuild"): "merge the FTS segments",
    ("indexer.index.build", "_summary"): "problems counted and listed",
    ("indexer.index.revisions", "update"): "the store's git history",
    ("indexer.index.build", "_record"): "the run recorded",
}
IMPORTS = {
    "indexer.index.build": "import the index run (build, database, revisions, git, settings)",
    "indexer.index.writer": "import the writer and parser (YAML, frontmatter)",
    "indexer.gardener.findings": "import the gardener (reading, rules)",
}


def child(store: str) -> dict[str, float]:
    """One fresh process's milliseconds per step (run with `--child`)."""
    import importlib

    times: dict[str, float] = {}
    for module, label in IMPORTS.items():
        started = time.perf_counter()
        importlib.import_module(module)
        times[label] = (time.perf_counter() - started) * 1000
    for (module, qualname), label in STEPS.items():
        owner = importlib.import_module(module)
        *classes, name = qualname.split(".")
        for cls in classes:
            owner = getattr(owner, cls)
        if hasattr(owner, name):  # (a step another version of the code does not have is left out)
            setattr(owner, name, _timed(getattr(owner, name), label, times))
    from indexer.index.build import index_store

    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        index_store(store, Path(folder) / "steps.db", full=True)
        times["run, in all"] = (time.perf_counter() - started) * 1000
    return times


def _timed(function, label: str, times: dict[str, float]):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            times[label] = times.get(label, 0.0) + (time.perf_counter() - started) * 1000

    return timed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rebuild_steps", description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes (the medians are shown)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(str(args.store))))
        return
    compiled(None)  # as an install leaves the indexer
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(args.store.resolve().parent)}  # as bench.rebuild: outside git
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-m", "bench.rebuild_steps", str(args.store), "--child"],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            ).stdout
        )
        for _ in range(args.runs)
    ]
    print(f"`python -m bench.rebuild_steps {args.store}`: medians of {args.runs} fresh processes, wall ms\n")
    print("| step | ms |\n| --- | ---: |")
    for label in [*IMPORTS.values(), *STEPS.values(), "run, in all"]:
        found = [run[label] for run in runs if label in run]
        if found:
            print(f"| {label} | {statistics.median(found):.1f} |")
    print(f"\nload average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
