"""A full rebuild against the straightforward baseline, at every size (issue 31: "Small stores").

Most stores are small, where a rebuild's cost is its fixed cost: start-up, imports, the schema, the history and
the gardener. Each store is rebuilt by the straightforward baseline (`python -m bench.straightforward`:
python-frontmatter, sqlite-utils `insert_all` and `enable_fts`) and by `seamless index STORE --db NEW --full`, each
a whole process of the same interpreter into a new database, in turn (a warm-up round, then RUNS rounds), so both
see the machine in the same state; the ratio is taken pair by pair. The stores are the generated ones
(`bench.generate`: N memories and N/10 notes) and a notes-only store of 578 notes, the size of the real corpus the
issue was measured on. A settle of the gardener's findings that a run leaves to a process of its own is waited
for after the run (its time printed beside it, not counted), so that it runs beside no other measurement.

The stores lie under bench/out, inside this repository's work tree: git is told to stop looking above them
(GIT_CEILING_DIRECTORIES), so each is a store outside git, as the baseline assumes (it reads no history).

    python -m bench.rebuild [--sizes "100 1000 10000"] [--notes 578] [--runs N] [--big] [--before DIR]

--big adds 100,000 memories; --before DIR also rebuilds with the code of another checkout (`python -m indexer`
with PYTHONPATH=DIR) in the same rounds.
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
from .measure import PYTHON, REPO, SEAMLESS, Proc, remove_db, run
from .startup import compiled

SIZES = (100, 1_000, 10_000)
BIG = 100_000  # a run of each takes half a minute here: only with --big
NOTES = 578  # the notes-only store: the size of the real corpus
RUNS = {100: 15, 1_000: 11, 10_000: 5, BIG: 2}  # pairs per store (the notes-only store: as 1,000)
TARGET = 1.0  # issue 31: a full rebuild no slower than the baseline


def compare(store: Path, runs: int, work: Path, codes: list[str | None]) -> list[dict]:
    """The baseline, then `seamless index --full` of each of `codes` (None: this checkout's `seamless`; a folder:
    `python -m indexer` of the checkout there), in turn on `store`, after a warm-up round: per code, the medians and
    the ratios to the baseline of the same round."""
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(store.parent)}
    base_db = work / "baseline.db"
    base: list[Proc] = []
    ours: list[list[Proc]] = [[] for _ in codes]
    settles: list[list[float]] = [[] for _ in codes]
    floor(store)  # the page cache warm for all
    for _ in range(runs + 1):
        remove_db(base_db)
        base.append(run([PYTHON, "-m", "bench.straightforward", store, base_db], env=env))
        for code, found, settled in zip(codes, ours, settles):
            db = work / "seamless.db"
            remove_db(db)
            command = [SEAMLESS] if code is None else [PYTHON, "-P", "-m", "indexer"]  # -P: not this checkout (cwd)
            found.append(run([*command, "index", store, "--db", db, "--full"], env=_with_code(env, code)))
            settled.append(_background_settle(found[-1]))
    base = base[1:]  # the warm-up round left out
    return [
        {
            "ours": statistics.median(r.seconds for r in found[1:]),
            "base": statistics.median(r.seconds for r in base),
            "ratio": statistics.median(ratios := [a.seconds / b.seconds for a, b in zip(found[1:], base)]),
            "range": (min(ratios), max(ratios)),
            "cpu_ratio": statistics.median(a.cpu / b.cpu for a, b in zip(found[1:], base)),
            "ours_work": statistics.median(_work(r) for r in found[1:]),
            "base_work": statistics.median(json.loads(r.stdout)["seconds"] for r in base),
            "settle": statistics.median(settled[1:]),
            "runs": len(base),
        }
        for found, settled in zip(ours, settles)
    ]


def _with_code(env: dict, code: str | None) -> dict:
    return env if code is None else {**env, "PYTHONPATH": code}


def _background_settle(proc: Proc) -> float:
    """Seconds until the gardener's settle that the run left to a process of its own ended (0 if none): waited for,
    so it runs beside no other measurement. Its pid is in the run's message (indexer/front/cli.py)."""
    found = re.search(r"settle in the background \(pid (\d+)\)", proc.stderr)
    if not found:
        return 0.0
    started = time.perf_counter()
    while Path(f"/proc/{found[1]}").exists():
        time.sleep(0.01)
    return time.perf_counter() - started


def _work(proc: Proc) -> float:
    """The run's own seconds, from the end of `seamless index`'s summary line on stderr."""
    found = re.search(r"\(full\) in ([0-9.]+) s$", proc.stderr, re.MULTILINE)
    return float(found.group(1)) if found else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rebuild", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=" ".join(map(str, SIZES)), help="memories per generated store")
    parser.add_argument("--notes", type=int, default=NOTES, help="files of the notes-only store (0: none)")
    parser.add_argument("--big", action="store_true", help=f"also {BIG:,} memories (slow: about 2 min here)")
    parser.add_argument("--runs", type=int, help="pairs per store (default: 15 at 100 memories down to 2 at 100k)")
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="also rebuild with the code of another checkout (DIR holds its indexer/), in turn",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out", help="where the stores are cached")
    args = parser.parse_args(argv)
    sizes = sorted({int(s) for s in args.sizes.replace(",", " ").split()} | ({BIG} if args.big else set()))
    stores = args.out / "stores"
    for code in [None] if args.before is None else [args.before]:
        compiled(code)  # as an install leaves the indexer (the baseline's libraries are compiled by pip)
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
    codes = [None] if args.before is None else [None, str(Path(args.before).resolve())]
    try:
        for label, store, runs in plan:
            for code, f in zip(codes, compare(store, args.runs or runs, work, codes)):
                low, high = f["range"]
                met = "met" if f["ratio"] <= TARGET else "**missed**"
                settle = f", settle after: {f['settle']:.2f} s" if f["settle"] else ""
                print(
                    f"| {label}{'' if code is None else f' (before: {code})'} | {f['ours'] * 1000:.0f} ms{settle} | "
                    f"{f['base'] * 1000:.0f} ms | {f['ratio']:.2f}x ({low:.2f}-{high:.2f}, {f['runs']} pairs) | "
                    f"{f['cpu_ratio']:.2f}x | {f['ours_work'] * 1000:.0f} ms, {f['base_work'] * 1000:.0f} ms | "
                    f"≤ {TARGET:g}x: {met} |",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
