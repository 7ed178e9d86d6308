"""`python -m bench.sync` (make bench): a smoke run on a small store prints both figures, and leaves the cached
git store as it found it. Never a timing assertion."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True).stdout


def test_smoke_run_prints_both_figures_and_puts_the_store_back(tmp_path):
    command = [sys.executable, "-m", "bench.sync", "--memories", "200", "--changed", "5", "--repeat", "1"]
    done = subprocess.run([*command, "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "`seamless sync` with nothing to do, whole process" in done.stdout
    assert "`seamless sync` merging 5 memories changed on both hosts, whole process" in done.stdout
    figures = {f["key"]: f for f in json.loads((tmp_path / "sync-results.json").read_text())["runs"][0]["figures"]}
    assert figures["sync_noop"]["value"] > 0 and figures["sync_merge"]["floor"] > 0
    assert "sync merged the 5 files by the store's rules" in figures["sync_merge"]["note"]
    root = tmp_path / "stores" / "git-200-1"
    heads = {git(root / name, "rev-parse", "HEAD") for name in ("a", "b")} | {
        git(root / "remote.git", "rev-parse", "main")
    }
    assert len(heads) == 1
    assert git(root / "a", "status", "--porcelain") == git(root / "b", "status", "--porcelain") == ""
