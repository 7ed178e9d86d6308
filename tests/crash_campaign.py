"""kill -9 index runs at many moments and check that nothing is lost.

    python tests/crash_campaign.py [--points 200] [--files 2500] [--seed 0]

A store of generated files is indexed once (the previous index), then changed (edits, breaks,
deletes, renames, additions). Each point copies the previous index, starts `seamless index` on the
changed store (half the points incremental, half --full) and sends SIGKILL to it: after a random
delay spread over the whole run, or the moment its write-ahead log reaches a given size (mid-commit).
Then `pragma integrity_check` must say ok, the tables must be those of the previous index or those
of a fresh full index of the changed store (never a mix), no process of the run may be left behind,
and the next run must bring the index to the full rebuild's tables. Worker processes left alive
by the kill are counted (then ended, so that they cannot hold the writer lock for the next run).
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stores import dump, generate_store, integrity, mutate_store, seamless_command

from indexer.index.build import index_store


@dataclass
class Outcome:
    """What one kill left behind."""

    mode: str  # incremental or full
    trigger: str  # "delay 0.42 s" or "wal 123456 bytes"
    finished_first: bool  # the run had already exited when the kill came
    state: str  # old, new or MIXED
    integrity: str
    leftovers: int  # processes of the run still alive after the kill
    recovered: bool  # the next run gave the full rebuild's tables

    @property
    def ok(self) -> bool:
        """Nothing lost: integrity, the old or the new tables, and recovery (leftovers are counted apart)."""
        return self.state != "MIXED" and self.integrity == "ok" and self.recovered


class Campaign:
    """A store, its previous index, and the tables a full index of the changed store has."""

    def __init__(self, workdir: Path, files: int, seed: int = 0):
        self.workdir = workdir
        self.store = generate_store(workdir / "store", files, seed)
        self.previous = workdir / "previous.db"
        index_store(self.store, self.previous, full=True)
        self.old = dump(self.previous)
        mutate_store(self.store, max(files // 4, 10), seed + 1)
        fresh = workdir / "fresh.db"
        index_store(self.store, fresh, full=True)
        self.new = dump(fresh)
        assert self.old != self.new
        self.db = workdir / "killed.db"
        self.run_seconds: dict[str, float] = {}
        self.wal_bytes: dict[str, int] = {}
        for mode in ("incremental", "full"):
            self.measure(mode)

    def fresh_copy(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.db}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(self.previous, self.db)

    def start(self, mode: str) -> subprocess.Popen:
        args = ["index", self.store, "--db", self.db] + (["--full"] if mode == "full" else [])
        return subprocess.Popen(
            seamless_command(*args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )

    def measure(self, mode: str, runs: int = 3) -> None:
        """Time uninterrupted runs and see how large their write-ahead log grows. The run time is the fastest of
        `runs`: one slowed by a busy moment of the machine (tests on parallel workers) would spread the kills past
        the end of the quicker runs that follow, and "most kills must land mid-run" would fail."""
        for _ in range(runs):
            self.fresh_copy()
            started = time.perf_counter()
            process = self.start(mode)
            wal, largest = Path(f"{self.db}-wal"), 0
            while process.poll() is None:
                try:
                    largest = max(largest, wal.stat().st_size)
                except FileNotFoundError:
                    pass
                time.sleep(0.001)
            seconds = time.perf_counter() - started
            self.run_seconds[mode] = min(seconds, self.run_seconds.get(mode, seconds))
            self.wal_bytes[mode] = min(largest, self.wal_bytes.get(mode, largest))  # a size every run reaches
            assert process.returncode == 0 and dump(self.db) == self.new

    def kill_at(self, mode: str, delay: float | None = None, wal_bytes: int | None = None) -> Outcome:
        """Start a run, SIGKILL it after `delay` seconds or once its WAL reaches `wal_bytes`, and check."""
        self.fresh_copy()
        process = self.start(mode)
        if wal_bytes is None:
            time.sleep(delay)
            trigger = f"delay {delay:.3f} s"
        else:
            wal, deadline = Path(f"{self.db}-wal"), time.monotonic() + 3 * self.run_seconds[mode] + 5
            while process.poll() is None and time.monotonic() < deadline:
                try:
                    if wal.stat().st_size >= wal_bytes:
                        break
                except FileNotFoundError:
                    pass
                time.sleep(0.0002)
            trigger = f"wal {wal_bytes} bytes"
        finished_first = process.poll() is not None
        if not finished_first:
            os.kill(process.pid, signal.SIGKILL)
        process.wait()
        leftovers = self.leftovers(process.pid)
        state_check = integrity(self.db)
        tables = dump(self.db)
        state = "old" if tables == self.old else "new" if tables == self.new else "MIXED"
        index_store(self.store, self.db)
        recovered = dump(self.db) == self.new and integrity(self.db) == "ok"
        return Outcome(mode, trigger, finished_first, state, state_check, leftovers, recovered)

    @staticmethod
    def leftovers(session: int) -> int:
        """Processes of the killed run's session still alive after a grace period (then ended)."""
        for _ in range(20):
            # zombies are dead (they hold no lock); they stay listed where nothing reaps orphans
            listing = subprocess.run(
                ["ps", "-o", "pid=,stat=", "-s", str(session)], capture_output=True, text=True
            ).stdout.split("\n")
            pids = [int(line.split()[0]) for line in listing if line.strip() and "Z" not in line.split()[1]]
            if not pids:
                return 0
            time.sleep(0.05)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        return len(pids)

    def points(self, count: int, seed: int = 0) -> list[tuple[str, float | None, int | None]]:
        """`count` kill points: per mode, delays spread evenly over the run, and a quarter at WAL sizes."""
        rng = random.Random(seed)
        plan = []
        for i in range(count):
            mode = ("incremental", "full")[i % 2]
            per_mode = (count + 1 - i % 2) // 2
            slot = i // 2
            if slot % 4 == 3 and self.wal_bytes[mode]:
                plan.append((mode, None, rng.randint(1, self.wal_bytes[mode])))
            else:
                span = 1.05 * self.run_seconds[mode]
                plan.append((mode, span * (slot + rng.random()) / per_mode, None))
        return plan


def report(outcomes: list[Outcome]) -> str:
    lines = []
    for mode in ("incremental", "full"):
        mine = [o for o in outcomes if o.mode == mode]
        states = Counter(o.state for o in mine)
        lines.append(
            f"{mode}: {len(mine)} kill -9 points ({sum(not o.finished_first for o in mine)} while running, "
            f"{sum(o.trigger.startswith('wal') for o in mine)} mid-commit by WAL size): "
            f"{states['old']} left the previous index, {states['new']} the new one, {states['MIXED']} a mix; "
            f"{sum(o.integrity != 'ok' for o in mine)} failed integrity_check; "
            f"{sum(bool(o.leftovers) for o in mine)} left processes behind; "
            f"{sum(o.recovered for o in mine)} recovered on the next run"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=200)
    parser.add_argument("--files", type=int, default=2500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        campaign = Campaign(Path(tmp), args.files, args.seed)
        print(
            f"store of {args.files} files; uninterrupted runs: "
            + ", ".join(
                f"{m} {s:.2f} s (WAL up to {campaign.wal_bytes[m]} bytes)" for m, s in campaign.run_seconds.items()
            )
        )
        outcomes = []
        for mode, delay, wal in campaign.points(args.points, args.seed):
            outcome = campaign.kill_at(mode, delay, wal)
            outcomes.append(outcome)
            if not outcome.ok or outcome.leftovers:
                print("FAILED:", outcome)
        print(report(outcomes))
        print(
            f"{len(outcomes)} points in {time.perf_counter() - started:.0f} s; "
            f"{sum(not o.ok for o in outcomes)} lost or corrupted something; "
            f"{sum(bool(o.leftovers) for o in outcomes)} left worker processes behind"
        )
        return 0 if all(o.ok and not o.leftovers for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
