"""The benchmark: a generated store is deterministic and valid, and a 1k smoke run prints the table.

Never a timing assertion: the figures are only checked to be there and sane.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate import generate
from bench.measure import paired_latency_ms, percentile
from indexer.index.build import index_store
from indexer.sqlite import sqlite3
from indexer.store.rules import KINDS

ROOT = Path(__file__).resolve().parent.parent


def test_generated_store_is_deterministic_and_indexes_without_errors(tmp_path):
    generate(tmp_path / "a", 300, seed=7)
    generate(tmp_path / "b", 300, seed=7)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.md"))
    assert len(files) == 330
    assert all((tmp_path / "a" / p).read_bytes() == (tmp_path / "b" / p).read_bytes() for p in files)

    summary = index_store(tmp_path / "a", tmp_path / "a.db", full=True)
    assert (summary.memories, summary.notes, summary.errors) == (300, 30, 0)
    with sqlite3.connect(tmp_path / "a.db") as conn:
        assert {k for (k,) in conn.execute("select distinct kind from memories")} == set(KINDS)
        statuses = {s for (s,) in conn.execute("select distinct status from memories")}
        assert statuses == {"active", "superseded", "archived"}
        assert conn.execute("select count(*) from memories where project is null").fetchone()[0] > 0
        dangling = conn.execute(
            "select count(*) from memories m where superseded_by is not null "
            "and not exists (select 1 from memories n where n.id = m.superseded_by)"
        ).fetchone()[0]
        assert dangling == 0
        stages = {s for (s,) in conn.execute("select distinct stage_status from memories where kind = 'stage'")}
        assert "unknown" in stages and "done" in stages
        sizes = [n for (n,) in conn.execute("select length(cast(body as blob)) from memories")]
        assert min(sizes) >= 200 and max(sizes) <= 3000


def test_smoke_run_at_1k_prints_the_table(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "bench", "--sizes", "1000", "--repeat", "1", "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "| figure | value | floor | straightforward |" in result.stdout
    assert "full rebuild, whole process" in result.stdout
    assert (out / "results.md").read_text().count("| full rebuild") == 3

    figures = {f["key"]: f for f in json.loads((out / "results.json").read_text())["runs"][0]["figures"]}
    full = figures["full"]
    assert full["floor"] > 0 and 0 < full["value"] < 600 and full["straightforward"] > 0
    assert 1 < figures["rss"]["value"] < 4000
    assert 0 < figures["db"]["value"] < 1000
    assert {
        "in_place",
        "noop",
        "edit",
        "help",
        "briefing_sql",
        "recall_sql",
        "briefing_http",
        "recall_http",
        "page_home",
    } <= set(figures)
    pages = ("page_table", "page_home", "page_life", "page_memory", "page_recall", "page_briefing")
    for key in ("briefing_sql", "recall_sql", "briefing_http", "recall_http", "recall_http_100", *pages):
        assert figures[key]["floor"] > 0 and figures[key]["value"] > 0, figures[key]
    for page in pages:  # each page's median and 95th percentile, each beside the floor's
        assert figures[page]["value"] <= figures[f"{page}_p95"]["value"], page
        assert figures[page]["floor"] <= figures[f"{page}_p95"]["floor"], page
    for key in ("watch_edit_p50", "watch_edit_p95", "watch_burst", "watch_rss"):  # bench/watch.py
        assert figures[key]["value"] > 0, figures[key]
    assert figures["watch_edit_p50"]["value"] <= figures["watch_edit_p95"]["value"]
    assert 0 <= figures["watch_idle_cpu"]["value"] < 100
    for key in ("hook_p50", "hook_p95", "hook_unmapped_p50"):  # bench/hook.py
        assert figures[key]["floor"] > 0 and figures[key]["value"] > 0, figures[key]
    assert figures["hook_p50"]["value"] <= figures["hook_p95"]["value"] and figures["export"]["value"] > 0


def test_a_percentile_is_a_value_measured_at_that_rank():
    values = [float(v) for v in range(20, 0, -1)]
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (10.0, 19.0, 20.0)
    assert percentile([7.0], 95) == 7.0


def test_a_query_and_its_floor_are_called_in_turn():
    calls = []
    value, floor = paired_latency_ms(lambda: calls.append("query"), lambda: calls.append("floor"), 5, 5)
    # a warm-up call each, then five pairs: both see the machine in the same state
    assert calls == ["query", "floor"] * 6
    assert value > 0 and floor > 0
    assert paired_latency_ms(lambda: None, None, 3, 3)[1] is None


def test_the_table_says_how_this_machine_compares_with_the_issues():
    from bench.__main__ import against_reference

    run = {"memories": 100_000, "figures": [{"key": "full", "straightforward": 39.0}]}
    assert "took 39.0 s here and 26.0 s there (1.50× as long)" in against_reference(run)
    assert against_reference({**run, "memories": 1000}) == ""  # the issue gives no reference at 1k


def test_the_warned_store_run_prints_each_run_with_its_lines():
    """`python -m bench.warned_store` (run by `make bench`), smaller: the build prints every problem, the runs after none."""
    result = subprocess.run(
        [sys.executable, "-m", "bench.warned_store", "--repeat", "1", "--files", "3", "--tags", "30"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    rows = [line.split(" | ") for line in result.stdout.splitlines() if line.startswith("| ") and " s |" in line]
    assert [row[2] for row in rows] == ["63", "0", "0", "0", "0", "0"]  # 3 files of 20 bad-tags and a more-warnings


def test_the_history_bench_runs_small_and_leaves_its_repository_as_it_was(tmp_path):
    out = tmp_path / "out"
    args = ["--sizes", "300", "--commits", "30", "--repeat", "1", "--out", str(out)]
    result = subprocess.run(
        [sys.executable, "-m", "bench.revisions", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    figures = {f["key"]: f for f in json.loads((out / "revisions.json").read_text())["figures"]}
    assert set(figures) == {
        "index_first",
        "revisions_first",
        "revisions_noop",
        "revisions_10",
        "write_commit",
        "commit_in",
        "page_memory_revisions",
        "page_attribution",
    }
    assert all(f["value"] > 0 for f in figures.values()) and figures["revisions_first"]["git"] > 0
    repository = out / "stores" / "300-1-git30"
    log = subprocess.run(["git", "-C", repository, "log", "--format=%s"], capture_output=True, text=True).stdout
    assert len(log.split("\n")) - 1 == 30 and log.startswith("update, commit 30\n")
    status = subprocess.run(["git", "-C", repository, "status", "--porcelain", "--", "memories", "notes"],
                            capture_output=True, text=True)  # fmt: skip
    assert status.stdout == ""


def test_the_ties_bench_runs_small(tmp_path):
    """`python -m bench.ties` (run by `make bench`), smaller: the same-day memories join the briefing's walk."""
    out = tmp_path / "out"
    args = ["--sizes", "300", "--ties", "40", "--out", str(out)]
    result = subprocess.run(
        [sys.executable, "-m", "bench.ties", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    (run,) = json.loads((out / "ties.json").read_text())["runs"]
    before, after = run["before"], run["after"]
    assert after["room_rows"] > before["room_rows"] and after["room_budget"] == before["room_budget"]
    assert all(f[key] > 0 for f in (before, after) for key in ("default_ms", "room_ms")) and run["hook_p50"] > 0
    assert "| 300 | default (6,000) |" in result.stdout


def test_rebuild_against_the_baseline_prints_a_row_per_store(tmp_path):
    """`python -m bench.rebuild` (issue 31's small stores), one pair per store: a generated store and a notes-only one."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.rebuild",
            "--sizes",
            "100",
            "--notes",
            "20",
            "--runs",
            "1",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and " ms |" in line]
    assert [row.split(" | ")[0] for row in rows] == ["| 100 memories + 10 notes", "| notes only: 20 notes"]
    assert all("x (" in row and "≤ 1x: " in row for row in rows)
    assert sorted(p.name for p in (tmp_path / "stores").iterdir()) == ["100-1", "notes-20-1"]
    assert len(list((tmp_path / "stores" / "notes-20-1").rglob("*.md"))) == 20
    assert not (tmp_path / "stores" / "notes-20-1" / "memories").exists()


def test_rebuild_steps_time_each_step_of_a_fresh_process(tmp_path):
    generate(tmp_path / "store", 30, seed=3)
    result = subprocess.run(
        [sys.executable, "-m", "bench.rebuild_steps", str(tmp_path / "store"), "--runs", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    steps = dict(line.strip("| ").rsplit(" | ", 1) for line in result.stdout.splitlines() if line.endswith(" |"))
    assert float(steps["run, in all"]) > float(steps["read, parse and validate every file"]) > 0
    assert "the gardener's settle" in steps and "import the gardener (reading, rules)" in steps


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="counting instructions needs valgrind")
def test_startup_counts_instructions_beside_python_c_pass(capsys):
    from bench import startup

    startup.main(["--instructions", "--only=--help"])
    out = capsys.readouterr().out
    floor = float(re.search(r"`python -c pass` runs ([\d.]+) M instructions", out)[1])
    row = re.search(r"\| --help \| ([\d.]+) M \| ([\d.]+)x \|", out)
    assert floor > 0 and float(row[1]) > floor  # click and our CLI on top of Python's own start-up
    assert float(row[2]) == pytest.approx(float(row[1]) / floor, abs=0.01)
