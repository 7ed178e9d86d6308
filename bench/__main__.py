"""`python -m bench`: generate stores, measure them, print the tables and write them to --out.

python -m bench [--sizes "1000 10000 100000"] [--out DIR] [--repeat N] [--seed S] [--quick]
"""

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

from indexer.sqlite import sqlite3

from .measure import REFERENCE_STRAIGHTFORWARD, REPO, measure


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000 10000 100000", help="memories per store (each gets 10%% notes)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out", help="results and cached stores")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timed figure (the median is shown)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated stores")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="short timing windows: to check that every figure is measured, not to quote",
    )
    args = parser.parse_args(argv)
    if args.quick:
        quick()
    sizes = sorted({int(s) for s in args.sizes.replace(",", " ").split()})
    args.out.mkdir(parents=True, exist_ok=True)

    command = shlex.join(["python", "-m", "bench", *(sys.argv[1:] if argv is None else argv)])
    report = {"command": command, "machine": machine(), "runs": []}
    for memories in sizes:
        print(f"measuring {memories:,} memories...", file=sys.stderr, flush=True)
        run = measure(args.out / "stores", memories, args.seed, args.repeat, queries=memories == sizes[-1])
        report["runs"].append(run)
        print(table(run), flush=True)
        (args.out / "results.json").write_text(json.dumps(report, indent=2) + "\n")
        (args.out / "results.md").write_text(markdown(report))
    print(f"written: {args.out / 'results.md'}, {args.out / 'results.json'}", file=sys.stderr)


def quick() -> None:
    """Few samples of each figure: latencies for 0.1 s and 5 requests (pages 3), the watcher's idle CPU for 1 s
    and 5 edits, the hook 2 runs per --repeat. The smoke test's bench (tests/test_bench.py), at 1,000 memories
    in about half the time."""
    from . import hook, measure, watch

    measure.WINDOW, measure.HTTP_REQUESTS, measure.PAGE_REQUESTS = 0.1, 5, 3
    watch.IDLE_SECONDS, watch.EDITS, hook.RUNS = 1.0, 5, 2


def machine() -> dict:
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }


def markdown(report: dict) -> str:
    m = report["machine"]
    head = (
        f"`{report['command']}` on {m['date']}: {m['cpus']} CPUs, {m['platform']}, "
        f"Python {m['python']}, SQLite {m['sqlite']}\n"
    )
    return head + "".join("\n" + table(run) for run in report["runs"])


def table(run: dict) -> str:
    """One store's figures as a markdown table, with its notes under it."""
    lines = [
        f"### {run['memories']:,} memories + {run['notes']:,} notes (seed {run['seed']}, median of "
        f"{run['repeat']}, load average {run['load_average'][0]} -> {run['load_average'][1]})",
        "",
        "| figure | value | floor | straightforward | ratio (÷floor, ÷straightforward) | target | pass/fail | cpu |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    notes = []
    for f in run["figures"]:
        show = lambda v, unit=f["unit"]: "—" if v is None else f"{number(v)} {unit}"  # noqa: E731
        label = f["label"]
        if f["note"]:
            if f["note"] not in notes:
                notes.append(f["note"])
            label += f" [{notes.index(f['note']) + 1}]"
        cells = [
            label,
            show(f["value"]),
            show(f["floor"]),
            show(f["straightforward"]),
            f"{ratio(f['value'], f['floor'])} / {ratio(f['value'], f['straightforward'])}",
            "" if f["target"] is None else f"≤ {show(f['target'])}",
            f["verdict"],
            "" if f["cpu"] is None else f"{number(f['cpu'])} s",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"[{i}] {n}" for i, n in enumerate(notes, 1)]
    comparison = against_reference(run)
    if comparison:
        lines += ["", comparison]
    return "\n".join(lines) + "\n"


def against_reference(run: dict) -> str:
    """How this machine compares with issue 5's, by the straightforward rebuild of the same size ('' if unknown)."""
    reference = REFERENCE_STRAIGHTFORWARD.get(run["memories"])
    here = next((f["straightforward"] for f in run["figures"] if f["key"] == "full"), None)
    if not reference or not here:
        return ""
    return (
        f"This machine against issue 5's: the straightforward rebuild took {number(here)} s here and "
        f"{number(reference)} s there ({ratio(here, reference)} as long). The targets are that machine's."
    )


def ratio(value: float | None, reference: float | None) -> str:
    if value is None or not reference:
        return "—"
    return f"{number(value / reference)}×"


def number(value: float) -> str:
    """Three significant digits, without exponents."""
    digits = 0 if value >= 100 else 1 if value >= 10 else 2 if value >= 1 else 3
    return f"{value:.{digits}f}"


if __name__ == "__main__":
    main()
