"""Start-up: each command as a whole process on the bundled example store, against `python -c pass` (issue 31).

Agents run the CLI and the hook many times a session, on stores that are mostly small: what a command costs
there is its start-up. Each command below is run RUNS times in turn with its yardstick, `python -c pass` of
the same interpreter (A B A B ...), after one warm-up run of each; the ratio is taken pair by pair, so it
holds whichever state the machine is in. The target is on the wall time; the CPU time (user + system, from
wait4) and its ratio are printed beside it, steadier on a busy machine. A copy of examples/store in a git repository of its own (a write
commits), indexed once before; `write` writes a new memory each run into a second copy, its commit included.

    python -m bench.startup [--runs 20] [--only recall,hook]

The commands run with this interpreter's `seamless`; with PYTHONPATH set, both arms use the code it names
(to measure another checkout's code: PYTHONPATH=../old/ python -m bench.startup). The indexer is byte-compiled
first, as an install would leave it.
"""

import argparse
import compileall
import itertools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .hook import run

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "store"
SEAMLESS = str(Path(sys.executable).with_name("seamless"))
FLOOR = [sys.executable, "-c", "pass"]
# issue 31: at most 2x `python -c pass`, a write with its commit at most 3x
TARGET = {"write": 3.0, "--help": None, "import click": None}
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]


def store_in_git(folder: Path) -> Path:
    """A copy of examples/store, committed to a git repository of its own."""
    shutil.copytree(EXAMPLE, folder)
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    for key, value in (("user.name", "bench"), ("user.email", "bench@example.com")):
        subprocess.run(["git", "-C", str(folder), "config", key, value], check=True)
    subprocess.run([*GIT, "-C", str(folder), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(folder), "commit", "-q", "-m", "the example store"], check=True)
    return folder


def commands(store: Path, db: Path, written: Path, written_db: Path) -> dict[str, tuple[list, bytes]]:
    """Each command measured: its arguments (a callable for a write: a new name each run) and its stdin."""
    event = {"session_id": "bench", "cwd": str(store), "source": "startup", "hook_event_name": "SessionStart"}
    counter = itertools.count()
    db_ = ["--db", db]
    return {
        "index (nothing changed)": ([SEAMLESS, "index", store, *db_], b""),
        "recall": ([SEAMLESS, "recall", "chroma port", *db_], b""),
        "briefing": ([SEAMLESS, "briefing", "--project", "seamless", *db_], b""),
        "history": ([SEAMLESS, "history", "chroma-boot-race", *db_], b""),
        "show": ([SEAMLESS, "show", "chroma-boot-race", *db_], b""),
        "status": ([SEAMLESS, "status", store, *db_], b""),
        "check": ([SEAMLESS, "check", store], b""),
        "hook session-start": (
            [SEAMLESS, "hook", "session-start", "--store", store, *db_, "--project", "seamless"],
            json.dumps(event).encode(),
        ),
        "write": (
            lambda: [
                *(SEAMLESS, "write", written, "--db", written_db, "--project", "seamless", "--kind", "gotcha"),
                *("--name", f"bench-gotcha-{next(counter)}", "--description", "The bench server listens on 8123"),
            ],
            b"",
        ),
        "--help": ([SEAMLESS, "--help"], b""),
        "import click": ([sys.executable, "-c", "import click"], b""),
    }


def measure(args, stdin: bytes, runs: int) -> dict:
    """`args` and the floor in turn, `runs` times each after a warm-up of each: medians and the pair-by-pair ratio."""
    argv = args if callable(args) else lambda: args
    run(argv(), stdin)
    run(FLOOR)
    pairs = []
    for _ in range(runs):
        pairs.append((run(argv(), stdin)[:2], run(FLOOR)[:2]))
    return {
        "ms": statistics.median(a[0] for a, _ in pairs) * 1000,
        "cpu_ms": statistics.median(a[1] for a, _ in pairs) * 1000,
        "cpu_ratio": statistics.median(a[1] / b[1] for a, b in pairs if b[1]),
        "floor_ms": statistics.median(b[0] for _, b in pairs) * 1000,
        "ratio": statistics.median(a[0] / b[0] for a, b in pairs),
        "ratio_range": (min(a[0] / b[0] for a, b in pairs), max(a[0] / b[0] for a, b in pairs)),
    }


def compiled() -> None:
    """Byte-compile the indexer the commands will import (PYTHONPATH's, if it names one), as pip does on install
    and Python on a first run: with PYTHONDONTWRITEBYTECODE set, each run would compile every module again."""
    where = "import indexer, os; print(os.path.dirname(indexer.__file__))"
    folder = subprocess.run([sys.executable, "-c", where], capture_output=True, text=True, check=True, cwd="/")
    compileall.compile_dir(folder.stdout.strip(), quiet=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command, each beside its floor")
    parser.add_argument("--only", help="comma-separated names of the commands to measure (default: all)")
    args = parser.parse_args(argv)
    compiled()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        store, written = store_in_git(tmp / "store"), store_in_git(tmp / "written")
        db, written_db = tmp / "store.db", tmp / "written.db"
        for where, index in ((store, db), (written, written_db)):
            subprocess.run([SEAMLESS, "index", where, "--db", index], check=True, capture_output=True)
        measured = commands(store, db, written, written_db)
        only = set(args.only.split(",")) if args.only else set(measured)
        print(f"`python -m bench.startup --runs {args.runs}`: the example store ({EXAMPLE.relative_to(REPO)}), in turn")
        print("with `python -c pass`, medians\n")
        print("| command | whole process | `python -c pass` | ratio (min-max) | CPU | CPU ratio | target |")
        print("| --- | ---: | ---: | --- | ---: | ---: | --- |")
        for name, (command, stdin) in measured.items():
            if name not in only:
                continue
            f = measure(command, stdin, args.runs)
            target = TARGET.get(name, 2.0)
            verdict = "" if target is None else f"{target:g}x: " + ("met" if f["ratio"] <= target else "**missed**")
            low, high = f["ratio_range"]
            print(
                f"| {name} | {f['ms']:.1f} ms | {f['floor_ms']:.1f} ms | {f['ratio']:.2f}x ({low:.2f}-{high:.2f}) "
                f"| {f['cpu_ms']:.0f} ms | {f['cpu_ratio']:.2f}x | {verdict} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
