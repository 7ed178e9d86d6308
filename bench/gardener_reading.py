"""What the gardener's reading and verdict cost a memory, in CPU time: `wording.read`, `sameness.judge`, and a stored
reading's size and decoding, on the active memories of an index.

    python -m bench.gardener_reading DB [--repeat 5]
    PYTHONPATH=OTHER_TREE python bench/gardener_reading.py DB   # the same figures for another checkout's rules

CPU time (`time.process_time`), the best of `--repeat`, so that other processes on a busy machine count less. The
pairs judged are those of one scope sharing three words of four letters or more, each in at most 100 memories of
the scope, found from the descriptions' raw text: the same pairs whatever the rules being measured.
"""

import argparse
import gc
import re
import sqlite3
import statistics
import sys
import time
from collections import Counter, defaultdict
from itertools import combinations

from indexer.gardener import sameness, wording


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        wording._read.cache_clear()
        wording.stem.cache_clear()
        gc.collect()
        started = time.process_time()
        function()
        times.append(time.process_time() - started)
    return min(times)


def pairs(rows: list[tuple[str, str, str, str]]) -> list[tuple[int, int]]:
    """Indexes of the memories of one scope sharing three words (4+ letters) each in at most 100 of the scope's."""
    words = [set(re.findall(r"[a-z]{4,}", description.lower())) for _, _, _, description in rows]
    by_scope: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_scope[row[1]].append(i)
    found = []
    for members in by_scope.values():
        counts = Counter(w for i in members for w in words[i])
        holders: dict[str, list[int]] = defaultdict(list)
        for i in members:
            for w in words[i]:
                if counts[w] <= 100:
                    holders[w].append(i)
        shared: Counter[tuple[int, int]] = Counter()
        for held in holders.values():
            shared.update(combinations(held, 2))
        found += sorted(pair for pair, n in shared.items() if n >= 3)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gardener_reading", description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    conn = sqlite3.connect(args.db)
    rows = conn.execute(
        "select id, coalesce(project, ''), name, description from memories where status = 'active' order by id"
    ).fetchall()
    conn.close()
    print(f"rules: {sameness.__file__}", file=sys.stderr)
    read = best(lambda: [wording.read(name, description) for _, _, name, description in rows], args.repeat)
    readings = [wording.read(name, description) for _, _, name, description in rows]
    judged = pairs(rows)
    judge = best(lambda: [sameness.judge(readings[i], readings[j]) for i, j in judged], args.repeat)
    stored = [wording.dump(r) for r in readings]
    load = best(lambda: [wording.load(data) for data in stored], args.repeat)
    found = Counter(v.proposal for i, j in judged if (v := sameness.judge(readings[i], readings[j])))
    print(f"| read a name and a description (`wording.read`) | {read / len(rows) * 1e6:.1f} µs | {len(rows):,} |")
    print(f"| judge a pair (`sameness.judge`) | {judge / len(judged) * 1e6:.2f} µs | {len(judged):,} pairs |")
    print(f"| a stored reading (`wording.dump`) | {statistics.mean(map(len, stored)):.0f} bytes | mean |")
    print(f"| decode a stored reading (`wording.load`) | {load / len(rows) * 1e6:.1f} µs | |")
    print(f"| verdicts on those pairs | {dict(found)} | |")


if __name__ == "__main__":
    main()
