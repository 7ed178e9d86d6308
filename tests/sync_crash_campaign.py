"""Power cuts of `seamless sync` at many moments: kill -9 of its whole process group, git's children included.

    python tests/sync_crash_campaign.py [--kills 60] [--seed 0]

Two hosts share a store through a bare remote in a temporary folder. Each round, host a appends to a memory and
syncs; host b appends to the same memory, edits another by hand, and starts `seamless sync` in a session of its
own (setsid); its whole process group is killed with SIGKILL once a git command of it runs and a random delay
(up to 0.6 s) has passed, or, every third round, the moment git runs the merge driver (holding its index's lock). Then b syncs again, which must finish by itself: nothing of git's left (no `.lock`, no `.merge_file_*`,
no merge under way, no record of a killed process), the work tree clean, b's branch the remote's. At the end
both hosts sync, and they must hold the same files, with no conflict marker, every appended text, and indexes
in step with their files. tests/test_sync_recovery.py runs a few such kills in the suite.
"""

import argparse
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest
from fleet import fleet, git, isolate_git, markers
from test_sync_recovery import left_behind, power_cut


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seen: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="sync-crash-") as tmp, pytest.MonkeyPatch.context() as monkeypatch:
        folder = Path(tmp)
        isolate_git(monkeypatch, folder)
        a, b = fleet(folder)
        a.write("chroma-port", "Chroma listens on 8000", body="Seen on boot.")
        a.write("queue-lock", "The queue lock is held across restarts", body="Found in CI.")
        a.sync()
        b.sync()
        texts = []
        for kill in range(args.kills):
            texts += [f"a{kill}", f"b{kill}", f"hand{kill}"]
            a.append("chroma-port", f"On a: {texts[-3]}.")
            a.sync()
            b.append("chroma-port", f"On b: {texts[-2]}.")
            edited = b.store / "memories/fleet/queue-lock.md"
            edited.write_text(edited.read_text() + f"\nBy hand: {texts[-1]}.\n")
            running, left = power_cut(b, rng, at_once=kill % 3 == 2)
            seen["killed inside git" if any(n.startswith("git") for n in running) else "killed outside git"] += 1
            seen.update({f"left {'.merge_file_*' if name.startswith('.merge_file_') else name}" for name in left})
            b.sync()
            assert left_behind(b) == [], left_behind(b)
            assert not b.merging() and git(b.top, "status", "--porcelain") == ""
            assert git(b.top, "rev-parse", "HEAD") == git(b.top, "rev-parse", "origin/main")
        a.sync()
        b.sync()
        files = a.files()
        assert files == b.files() and markers(files) == []
        every = b"".join(files.values())
        assert [text for text in texts if text.encode() not in every] == []
        assert a.out_of_step() == b.out_of_step() == []
    for what, count in sorted(seen.items()):
        print(f"{count:4d}  {what}")
    print(f"{args.kills} kills: every one finished by the next sync; the hosts converged with every text kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
