"""A store whose files are full of warnings: 50 memories of 15,000 bad tags each (3 MB), every file over the
20-warning cap. Times the real `seamless index` and counts the lines it prints, run by run:

- the build;
- the next run, right after: the files were written too recently to trust their times, so it reads them again;
- a run after every file's times changed and its bytes did not (a `touch`, a checkout);
- a no-op;
- a run after every file was dated tomorrow (copied from a machine whose clock is ahead), 2 s later;
- the run after that, the files still dated tomorrow.

    python -m bench.warned_store [--repeat N] [--files N] [--tags N]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .measure import SEAMLESS, run

FILES = 50
TAGS = 15_000  # 20 listed, the rest counted in one more-warnings: 21 problems a file


def write_store(root: Path, files: int = FILES, tags: int = TAGS) -> None:
    folder = root / "memories" / "seamless"
    folder.mkdir(parents=True)
    (root / "notes").mkdir()
    listed = "[" + ", ".join(["[]"] * tags) + "]"
    for n in range(files):
        (folder / f"warned-{n}.md").write_text(
            f"---\nid: 01K{n:023d}\nkind: gotcha\nname: warned-{n}\ndescription: A memory of {tags:,} bad tags\n"
            f"project: seamless\ncreated: 2026-07-10T18:00:00Z\ntags: {listed}\n---\nBody.\n"
        )


def touch(root: Path, seconds_ago: float) -> None:
    """Every file's times changed (to `seconds_ago`, negative for the future), its bytes not."""
    for path in root.glob("memories/*/*.md"):
        os.utime(path, (time.time() - seconds_ago,) * 2)


def dated_tomorrow(root: Path) -> None:
    touch(root, -86400)
    time.sleep(2.1)  # their changes leave the window of times too recent to trust (build.RACY_NS)


STEPS = [
    ("build (`seamless index`, a new index)", None),
    ("the next run, right after (files too recent to trust)", None),
    ("after every file was touched (times changed, bytes not)", lambda root: touch(root, 3600)),
    ("no-op", None),
    ("after every file was dated tomorrow, 2 s later", dated_tomorrow),
    ("the run after that (files still dated tomorrow)", None),
]


def measure(repeat: int, files: int = FILES, tags: int = TAGS) -> list[tuple[str, float, int, int]]:
    """(run, median seconds, stdout lines, stderr lines) of each run of STEPS, over `repeat` sequences."""
    seen: dict[str, list] = {}
    for _ in range(repeat):
        work = Path(tempfile.mkdtemp(prefix="warned-"))
        try:
            store, db = work / "store", work / "seamless.db"
            write_store(store, files, tags)
            for label, before in STEPS:
                if before:
                    before(store)
                proc = run([SEAMLESS, "index", store, "--db", db])
                lines = (len(proc.stdout.splitlines()), len(proc.stderr.splitlines()))
                seen.setdefault(label, []).append((proc.seconds, *lines))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return [
        (label, statistics.median(r[0] for r in runs), runs[0][1], runs[0][2])  # the lines do not vary
        for label, runs in seen.items()
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.warned_store", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="sequences run (the median time is shown)")
    parser.add_argument("--files", type=int, default=FILES, help="memories in the store")
    parser.add_argument("--tags", type=int, default=TAGS, help="bad tags in each")
    args = parser.parse_args(argv)
    print(f"### {args.files} memories of {args.tags:,} bad tags each (median of {args.repeat})\n", flush=True)
    print("| run | wall | stdout lines | stderr lines |\n| --- | ---: | ---: | ---: |")
    for label, seconds, out, err in measure(args.repeat, args.files, args.tags):
        print(f"| {label} | {seconds:.2f} s | {out:,} | {err:,} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
