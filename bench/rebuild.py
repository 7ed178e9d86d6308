"""A full rebuild against the straightforward baseline, at every size (issue 31: "Small stores").

Most stores are small, where a rebuild's cost is its fixed cost: start-up, imports, the schema, the history and
the gardener. Each store is rebuilt by `seamless index STORE --db NEW --full` and by the straightforward baseline
(`python -m bench.straightforward`: python-frontmatter, sqlite-utils `insert_all` and `enable_fts`), each a whole
process of the same interpreter into a new database, in turn (`bench.measure.paired_samples`: one warm-up run of
each, then RUNS pairs), so both see the machine in the same state; the ratio is taken pair by pair. The stores
are the generated ones (`bench.generate`: N memories and N/10 notes) and a notes-only store of 578 notes, the size
of the real corpus the issue was measured on.

The stores lie under bench/out, inside this repository's work tree: git is told to stop looking above them
(GIT_CEILING_DIRECTORIES), so each is a store outside git, as the baseline assumes (it reads no history).

    python -m bench.rebuild [--sizes "100 1000 10000"] [--notes 578] [--runs N] [--big]   (--big adds 100000)
"""

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .floor import floor
from .generate import ensure_notes_store, ensure_store
from .measure import PYTHON, REPO, SEAMLESS, Proc, paired_samples, remove_db, run
from .startup import compiled

SIZES = (100, 1_000, 10_000)
BIG = 100_000  # a run of each takes half a minute here: only with --big
NOTES = 578  # the notes-only store: the size of the real corpus
RUNS = {100: 15, 1_000: 11, 10_000: 5, BIG: 2}  # pairs per store (the notes-only store: as 1,000)
TARGET = 1.0  # issue 31: a full rebuild no slower than the baseline


def compare(store: Path, runs: int, work: Path) -> dict:
    """`seamless index --full` and the baseline on `store`, in turn: medians, ratios pair by pair."""
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(store.parent)}
    ours_db, base_db = work / "seamless.db", work / "baseline.db"
    ours: list[Proc] = []
    base: list[Proc] = []

    def rebuild() -> None:
        remove_db(ours_db)
        ours.append(run([SEAMLESS, "index", store, "--db", ours_db, "--full"], env=env))

    def baseline() -> None:
        remove_db(base_db)
        base.append(run([PYTHON, "-m", "bench.straightforward", store, base_db], env=env))

    floor(store)  # the page cache warm for both
    paired_samples(rebuild, baseline, runs, runs, seconds=0)
    ours, base = ours[1:], base[1:]  # the warm-up runs left out
    ratios = [a.seconds / b.seconds for a, b in zip(ours, base)]
    return {
        "ours": statistics.median(r.seconds for r in ours),
        "base": statistics.median(r.seconds for r in base),
        "ratio": statistics.median(ratios),
        "range": (min(ratios), max(ratios)),
        "cpu_ratio": statistics.median(a.cpu / b.cpu for a, b in zip(ours, base)),
        "ours_work": statistics.median(_work(r) for r in ours),
        "base_work": statistics.median(json.loads(r.stdout)["seconds"] for r in base),
        "runs": len(ratios),
    }


def _work(proc: Proc) -> float:
    """The run's own seconds, from the end of `seamless index`'s summary line (its last line on stderr)."""
    found = re.search(r" in ([0-9.]+) s$", proc.stderr.strip())
    return float(found.group(1)) if found else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rebuild", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=" ".join(map(str, SIZES)), help="memories per generated store")
    parser.add_argument("--notes", type=int, default=NOTES, help="files of the notes-only store (0: none)")
    parser.add_argument("--big", action="store_true", help=f"also {BIG:,} memories (slow: about 2 min here)")
    parser.add_argument("--runs", type=int, help="pairs per store (default: 15 at 100 memories down to 2 at 100k)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out", help="where the stores are cached")
    args = parser.parse_args(argv)
    sizes = sorted({int(s) for s in args.sizes.replace(",", " ").split()} | ({BIG} if args.big else set()))
    stores = args.out / "stores"
    compiled(None)  # as an install leaves the indexer (the baseline's libraries are compiled by pip)
    plan = [(f"{n:,} memories + {n // 10:,} notes", ensure_store(stores, n, args.seed), RUNS.get(n, 3)) for n in sizes]
    if args.notes:
        plan.insert(1, (f"notes only: {args.notes:,} notes", ensure_notes_store(stores, args.notes, args.seed), 11))
    given = shlex.join(sys.argv[1:] if argv is None else argv)
    print(
        f"`python -m bench.rebuild {given}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
        f"{os.getloadavg()[0]:.1f}: each store rebuilt by `seamless index --full` and by the baseline (`python -m "
        "bench.straightforward`), whole processes in turn; medians, and the ratio pair by pair\n"
    )
    print(
        "| store | `seamless index --full` | baseline | ratio (min-max) | CPU ratio | work itself: ours, baseline | target |"
    )
    print("| --- | ---: | ---: | --- | ---: | --- | --- |", flush=True)
    work = Path(tempfile.mkdtemp(prefix="rebuild-", dir=args.out))
    try:
        for label, store, runs in plan:
            f = compare(store, args.runs or runs, work)
            low, high = f["range"]
            met = "met" if f["ratio"] <= TARGET else "**missed**"
            print(
                f"| {label} | {f['ours'] * 1000:.0f} ms | {f['base'] * 1000:.0f} ms | {f['ratio']:.2f}x "
                f"({low:.2f}-{high:.2f}, {f['runs']} pairs) | {f['cpu_ratio']:.2f}x | {f['ours_work'] * 1000:.0f} ms, "
                f"{f['base_work'] * 1000:.0f} ms | ≤ {TARGET:g}x: {met} |",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
