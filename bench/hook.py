"""The agents' commands on a generated store (SPEC 11): `seamless hook session-start` as Claude Code runs it (a
whole process, its event on standard input), and `seamless export` of a block that did not change.

The hook is timed RUNS (10) runs per --repeat, plus one, in turn with its floor (`python -c pass`: what any Python
process costs), after one warm-up run of each: a warm file cache, as at the start of a session on a machine in use.

    python -m bench.hook STORE DB   (DB: an index of STORE; prints the figures as JSON)
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .generate import PROJECTS

RUNS = 10  # timed runs of the hook per --repeat (`python -m bench --quick`: 2)
PROJECT = PROJECTS[0]  # the biggest project: its pinned memories alone are far over the hook's 9000 characters
SEAMLESS = str(Path(sys.executable).with_name("seamless"))


def run(args: list, stdin: bytes = b"", cwd: Path | None = None, env: dict | None = None) -> tuple[float, float, bytes]:
    """Run `args` to completion with `stdin` (and `env`); its wall time, its CPU time (from wait4) and its output."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out:
        given.write(stdin)
        given.seek(0)
        started = time.perf_counter()
        child = subprocess.Popen(
            [str(a) for a in args], stdin=given, stdout=out, stderr=subprocess.DEVNULL, cwd=cwd, env=env
        )
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{' '.join(map(str, args))} exited {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        return seconds, usage.ru_utime + usage.ru_stime, out.read()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure_hook(store: Path, db: Path, repeat: int = 3) -> dict:
    """The figures as a dict: ms for the hook, s for the export."""
    event = {"session_id": "bench", "cwd": str(store), "source": "startup", "hook_event_name": "SessionStart"}
    hook = [SEAMLESS, "hook", "session-start", "--store", store, "--db", db, "--project", PROJECT]
    # with no project given, the git root of the event's cwd (none here) is looked up, then the global briefing
    unmapped = [SEAMLESS, "hook", "session-start", "--store", store, "--db", db]
    floor = [sys.executable, "-c", "pass"]
    stdin = json.dumps(event).encode()
    for args in (hook, unmapped, floor):
        run(args, stdin)  # warm-up
    times: dict[str, list[tuple[float, float]]] = {"hook": [], "unmapped": [], "floor": []}
    output = b""
    for _ in range(RUNS * repeat + 1):
        seconds, cpu, output = run(hook, stdin)
        times["hook"].append((seconds, cpu))
        times["unmapped"].append(run(unmapped, stdin)[:2])
        times["floor"].append(run(floor)[:2])
    text = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    wall = {key: [w * 1000 for w, _ in runs] for key, runs in times.items()}
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "AGENTS.md"
        export = [SEAMLESS, "export", store, "--project", PROJECT, "--to", target, "--db", db]
        run(export)  # writes the block; each run after it finds the block unchanged
        exports = [run(export) for _ in range(repeat)]
    return {
        "hook_p50": statistics.median(wall["hook"]),
        "hook_p95": percentile(wall["hook"], 0.95),
        "hook_cpu": statistics.median(c for _, c in times["hook"]),
        "hook_unmapped_p50": statistics.median(wall["unmapped"]),
        "floor_p50": statistics.median(wall["floor"]),
        "floor_p95": percentile(wall["floor"], 0.95),
        "chars": len(text),
        "left_out": text.rstrip("\n").rsplit("\n", 1)[-1],
        "export": statistics.median(s for s, _, _ in exports),
        "export_cpu": statistics.median(c for _, c, _ in exports),
        "runs": RUNS * repeat + 1,
    }


if __name__ == "__main__":
    print(json.dumps(measure_hook(Path(sys.argv[1]), Path(sys.argv[2])), indent=2))
