"""`seamless index` and `seamless check` through click's runner, on real stores."""

import json

from click.testing import CliRunner
from conftest import EXAMPLE_STORE

from indexer.front.cli import cli


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_example_store_indexes_without_errors(tmp_path):
    db = tmp_path / "seamless.db"
    result = run("index", EXAMPLE_STORE, "--db", db, "--strict")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    # the only problems are the two stages written without a header on purpose
    assert len(lines) == 2 and all(" warning stage-header: " in line for line in lines)
    assert "0 errors, 2 warnings" in result.stderr


def test_example_store_covers_the_store_format(example_db):
    from indexer.sqlite import sqlite3

    conn = sqlite3.connect(example_db)
    kinds = {k for (k,) in conn.execute("select distinct kind from memories")}
    assert kinds == {"constraint", "runbook", "protocol", "gotcha", "decision", "refuted", "reference", "stage"}
    assert conn.execute("select count(*) from memories").fetchone()[0] >= 40
    projects = {p for (p,) in conn.execute("select distinct project from memories")}
    assert len(projects - {None}) >= 2 and None in projects
    statuses = {s for (s,) in conn.execute("select distinct stage_status from memories where kind = 'stage'")}
    assert statuses == {"open", "in_progress", "blocked", "done", "unknown"}
    assert {s for (s,) in conn.execute("select distinct status from memories")} == {"active", "superseded", "archived"}
    assert conn.execute("select count(*) from notes").fetchone()[0] >= 3
    tags = json.loads(conn.execute("select tags from memories where tags != '[]' limit 1").fetchone()[0])
    assert isinstance(tags, list)


def test_index_reports_problems_as_path_line_and_exits_0(store):
    store.memory("fine")
    store.write("memories/seamless/broken.md", "---\nid: 01K0000000000000000000BAD0\nkind: opinion\n---\n")
    result = run("index", store.root, "--db", store.db_path)
    assert result.exit_code == 0
    assert f"{store.root}/memories/seamless/broken.md:3: error unknown-kind:" in result.stdout
    assert "1 memories" in result.stderr


def test_strict_fails_on_errors(store):
    store.write("memories/seamless/broken.md", "")
    assert run("index", store.root, "--db", store.db_path, "--strict").exit_code == 1


def test_check_validates_without_writing(store, tmp_path):
    store.memory("fine")
    store.write("memories/seamless/broken.md", "no frontmatter at all")
    result = run("check", store.root)
    assert result.exit_code == 1
    assert "broken.md:1: error no-frontmatter:" in result.stdout
    assert not list(tmp_path.glob("**/*.db"))


def test_check_passes_a_clean_store(store):
    store.memory("fine")
    assert run("check", store.root).exit_code == 0


def test_missing_store_is_a_usage_error(tmp_path):
    result = run("index", tmp_path / "nowhere")
    assert result.exit_code == 2
    assert "does not exist" in result.output
