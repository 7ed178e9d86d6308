"""The briefing over memories that share one `updated` (an import or an agent's burst writes hundreds on one day).

    python -m bench.ties [--sizes "1000 100000"] [--ties 1000] [--repeat N] [--out DIR]

For each size, the store `python -m bench` generates, linked file by file into a temporary folder (the cached
store is left as it is) and indexed; then --ties memories of the biggest project, all with one `updated`,
written beside it and indexed (an incremental run), as `python -m bench`'s watch burst leaves them. Before and
after the ties: the `briefing` canned query in SQL (median of many calls) with the default budget, and with room
for the walk (its pinned memories' characters plus the default budget: in the big stores the pinned ones alone
fill the default, so the walk takes no step), and, after, `seamless hook session-start` (bench/hook.py).
Writes ties.json and ties.md to --out.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from indexer.index.build import index_store
from indexer.query import queries
from indexer.sqlite import sqlite3

from .generate import NOW, ensure_store
from .hook import PROJECT, measure_hook
from .measure import REPO, latency_ms


def write_ties(root: Path, ties: int) -> None:
    """`ties` memories of PROJECT under `root`, every one updated at NOW, their ids in the order written."""
    folder = root / "memories" / "bench-ties"
    folder.mkdir()
    for n in range(ties):
        (folder / f"same-day-{n}.md").write_text(
            f"---\nid: 01KBENCHSAMEDAY{n:011d}\nkind: reference\nname: same-day-{n}\ndescription: same day {n}\n"
            f"project: {PROJECT}\ncreated: {NOW}\nupdated: {NOW}\n---\nWritten on the same day.\n"
        )


def briefings(db: Path) -> dict:
    """The briefing's rows and median milliseconds, with the default budget and with room for the walk."""
    with sqlite3.connect(db) as conn:
        pinned = queries.run(conn, "briefing", project=PROJECT, as_of=NOW, budget=0)
        default = queries.run(conn, "briefing", project=PROJECT, as_of=NOW)
        room = (pinned[-1]["running_chars"] if pinned else 0) + default[0]["budget"]
        figures = {"budget": default[0]["budget"], "room_budget": room}
        for key, budget in (("default", ""), ("room", room)):
            figures[f"{key}_rows"] = len(queries.run(conn, "briefing", project=PROJECT, as_of=NOW, budget=budget))
            figures[f"{key}_ms"] = latency_ms(
                lambda b=budget: queries.run(conn, "briefing", project=PROJECT, as_of=NOW, budget=b), min_runs=10
            )
    return figures


def measure(stores: Path, memories: int, ties: int, seed: int, repeat: int) -> dict:
    source = ensure_store(stores, memories, seed)
    work = Path(tempfile.mkdtemp(prefix="ties-", dir=stores.parent))
    try:
        store = work / "store"
        shutil.copytree(source, store, copy_function=os.link)  # files only added beside them, never written
        db = work / "seamless.db"
        index_store(store, db, full=True)
        before = briefings(db)
        write_ties(store, ties)
        index_store(store, db)
        after = briefings(db)
        hook = measure_hook(store, db, repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"memories": memories, "ties": ties, "before": before, "after": after, "hook_p50": hook["hook_p50"]}


def table(report: dict) -> str:
    lines = [
        f"### The briefing ({PROJECT}) before and after {report['ties']:,} of its memories with one `updated` "
        f"({report['date']})",
        "",
        "| memories | budget | rows before | SQL before | rows after | SQL after | hook after, median |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in report["runs"]:
        b, a = run["before"], run["after"]
        for key, label in (
            ("default", f"default ({b['budget']:,})"),
            ("room", f"pinned + default ({b['room_budget']:,})"),
        ):
            hook = f"{run['hook_p50']:.0f} ms" if key == "default" else ""
            lines.append(
                f"| {run['memories']:,} | {label} | {b[f'{key}_rows']} | {b[f'{key}_ms']:.2f} ms "
                f"| {a[f'{key}_rows']} | {a[f'{key}_ms']:.2f} ms | {hook} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ties", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000 100000", help="memories per generated store")
    parser.add_argument("--ties", type=int, default=1000, help="memories of one project added with one `updated`")
    parser.add_argument("--repeat", type=int, default=1, help="hook runs: 10 per repeat, plus one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    args = parser.parse_args(argv)
    sizes = sorted({int(s) for s in args.sizes.replace(",", " ").split()})
    report = {
        "command": "python -m bench.ties " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "ties": args.ties,
        "runs": [],
    }
    for memories in sizes:
        print(f"the briefing over {args.ties:,} ties in {memories:,} memories...", file=sys.stderr, flush=True)
        report["runs"].append(measure(args.out / "stores", memories, args.ties, args.seed, args.repeat))
    text = table(report)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ties.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "ties.md").write_text(text + "\n")


if __name__ == "__main__":
    main()
