"""How the gardener settles its tables (indexer/gardener/findings.py, background.py): in the index run when it is
little work, else left pending for a settle of its own, which reads a snapshot while the index goes on changing and
catches up with what changed meanwhile; a full run over a store that barely changed settling only what changed.
Real stores and the real indexer; each result is compared with an index settled from nothing."""

import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner
from gardening import in_run
from stores import dump

from bench.gardener import labelled_stores, write_store
from indexer import gardener
from indexer.front.cli import cli
from indexer.gardener import findings as gardener_findings
from indexer.index import database
from indexer.index.build import index_paths, index_store
from indexer.query import queries
from indexer.sqlite import sqlite3

AS_OF = "2027-01-01"


@pytest.fixture
def store(tmp_path):
    """The dev stores, written and indexed: (root, db, written)."""
    root = tmp_path / "store"
    written = write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    index_store(root, db)
    return root, db, written


def path_of(root, written, name):
    meta = written[name]
    return root / "memories" / ("_global" if meta["project"] == "" else meta["project"]) / f"{name}.md"


def fresh(root, tmp_path):
    """The store indexed from nothing, its findings settled in the run."""
    db = tmp_path / "fresh.db"
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"fresh.db{suffix}").unlink(missing_ok=True)
    with in_run(None):
        index_store(root, db, full=True)
    return db


def edit(root, written, name, old, new):
    path = path_of(root, written, name)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


def indexes(db):
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "select name, tbl_name, sql from sqlite_master where type = 'index' order by name"
        ).fetchall()


def findings(db):
    return [r for r in queries.run(db, "gardener", as_of=AS_OF) if r["proposal"] != "archive"]


def test_a_full_run_in_place_settles_as_a_run_from_nothing(store, tmp_path):
    root, db, written = store
    index_store(root, db, full=True)  # nothing changed
    assert dump(db) == dump(fresh(root, tmp_path))
    # a description changed, a memory gone, another one's date: the full run settles these as a fresh index would
    edit(root, written, "chroma-port-in-env", "8765", "8766")
    path_of(root, written, "rebuild-seamless-db").unlink()
    edit(root, written, "mcp-no-print", "updated: '2026-04-02T09:00:00Z'", "updated: '2026-12-24T09:00:00Z'")
    index_store(root, db, full=True)
    assert dump(db) == dump(fresh(root, tmp_path))
    assert dump(db)["gardener_findings"]


def test_a_run_with_more_to_settle_than_it_may_leaves_it_pending_and_says_so(store, tmp_path):
    root, db, written = store
    before = findings(db)
    edit(root, written, "chroma-port-in-env", "8765", "8766")
    edit(root, written, "mcp-no-print", "updated: '2026-04-02T09:00:00Z'", "updated: '2026-12-24T09:00:00Z'")
    with in_run(1):
        summary = index_store(root, db)
    assert summary.gardener_behind
    with sqlite3.connect(db) as conn:
        now = gardener.state(conn)
        assert now["changed_since"] == 2 and not now["unread"] and now["settled"]
        assert "2 memories changed since" in gardener.state_line(now)
    rows = findings(db)
    # the findings as they were settled, each saying so, after a first row that says they are not current
    assert rows[0]["proposal"] == "unsettled" and rows[0]["ids"] == "[]"
    assert "2 memories changed since" in rows[0]["reason"] and now["settled"] in rows[0]["reason"]
    assert [r["ids"] for r in rows[1:]] == [r["ids"] for r in before]
    assert {(r["settled"], r["changed_since"]) for r in rows[1:]} == {(now["settled"], 2)}
    # a write meanwhile (a run for one path, under the limit) adds to what is pending, settling nothing
    edit(root, written, "release-with-twine", "invalid_at: null", "invalid_at: 2026-10-01T00:00:00Z")
    with in_run(1):
        assert index_paths(root, db, [path_of(root, written, "release-with-twine")]).gardener_behind
    with sqlite3.connect(db) as conn:
        assert gardener.state(conn)["changed_since"] == 3
    assert gardener.settle_all(db, database)
    assert dump(db) == dump(fresh(root, tmp_path))
    with sqlite3.connect(db) as conn:
        assert gardener.state(conn)["changed_since"] == 0 and "in step" in gardener.state_line(gardener.state(conn))
    assert findings(db)[0]["proposal"] != "unsettled"


def test_an_index_built_from_nothing_is_settled_by_a_settle_of_its_own(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev") + labelled_stores("held-out"))
    db = tmp_path / "index.db"
    with in_run(10):
        assert index_store(root, db).gardener_behind
    rows = findings(db)
    assert [r["proposal"] for r in rows] == ["unsettled"]  # nothing listed as if it were all there is
    assert "has not read this index" in rows[0]["reason"] and "no duplicate, contradiction" in rows[0]["reason"]
    with sqlite3.connect(db) as conn:
        assert gardener.state(conn)["unread"] and gardener.state(conn)["settled"] is None
    assert gardener.settle_all(db, database)
    assert dump(db) == dump(fresh(root, tmp_path))


def test_what_runs_change_while_a_whole_settle_is_due_is_settled_with_it(store, tmp_path):
    """Runs that leave their findings behind while every memory is to be read again (new rules) note what they
    changed; the settle that follows settles it all, as an index settled from nothing."""
    root, db, written = store
    with sqlite3.connect(db) as conn:
        conn.execute("update index_meta set value = 'other rules' where key = 'gardener'")  # as after an upgrade
    edit(root, written, "chroma-port-in-env", "8765", "8766")
    with in_run(1):
        assert index_paths(root, db, [path_of(root, written, "chroma-port-in-env")]).gardener_behind
        path_of(root, written, "rebuild-seamless-db").unlink()
        assert index_store(root, db, full=True).gardener_behind
    with sqlite3.connect(db) as conn:
        assert gardener.state(conn)["unread"]
    assert gardener.settle_all(db, database)
    assert dump(db) == dump(fresh(root, tmp_path))
    assert not gardener.settle_all(db, database)  # nothing left to do


def test_a_write_waits_for_a_settle_under_way_and_is_settled_in_its_own_run(store, tmp_path, monkeypatch):
    root, db, written = store
    with sqlite3.connect(db) as conn:
        conn.execute("update index_meta set value = 'other rules' where key = 'gardener'")
    started, go_on = threading.Event(), threading.Event()
    real = gardener_findings.rebuild

    def slow_rebuild(conn):
        started.set()
        go_on.wait(30)
        return real(conn)

    monkeypatch.setattr(gardener_findings, "rebuild", slow_rebuild)  # a settle held where the test can see it
    settle = threading.Thread(target=gardener.settle_all, args=(db, database))
    settle.start()
    assert started.wait(30)
    assert gardener.running(db)
    edit(root, written, "chroma-port-in-env", "8765", "8766")
    write = threading.Thread(target=index_paths, args=(root, db, [path_of(root, written, "chroma-port-in-env")]))
    write.start()
    write.join(0.5)
    assert write.is_alive()  # waiting for the writer lock the settle holds
    go_on.set()
    settle.join(30)
    write.join(30)
    assert not gardener.running(db)
    assert dump(db) == dump(fresh(root, tmp_path))


def test_seamless_index_leaves_a_big_settle_to_a_process_of_its_own(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    with in_run(5):
        result = CliRunner().invoke(cli, ["index", str(root), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "the gardener's findings settle in the background (pid" in result.stderr
    gardener.settle_all(db, database)  # waits for the one under way, then finds nothing to do
    with sqlite3.connect(db) as conn:
        assert gardener.in_step(conn)
    assert dump(db) == dump(fresh(root, tmp_path))


def test_the_settle_process_says_why_it_failed(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    with in_run(0):
        index_store(root, db)
    with sqlite3.connect(db) as conn:  # a table the settle writes, gone: it fails, and says so in the index
        conn.execute("drop table gardener_common")
    child = subprocess.run([sys.executable, "-m", "indexer.gardener", str(db)], timeout=120)
    assert child.returncode == 1
    with sqlite3.connect(db) as conn:
        row = gardener.state(conn)
    assert "gardener_common" in row["settle_error"]
    assert "the last settle failed at" in gardener.state_line(row, running=False)


def test_the_watcher_leaves_a_big_batch_to_a_settle_of_its_own(store, tmp_path):
    from watching import wait_until

    from indexer.index.watch import Watcher

    root, db, written = store
    said: list[str] = []
    watcher = Watcher(root, db, say=said.append)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,))
    with in_run(0):  # every batch too big to settle in the run
        thread.start()
        try:
            wait_until(lambda: any(line.startswith("watching ") for line in said), timeout=30)
            edit(root, written, "chroma-port-in-env", "8765", "8766")
            wait_until(lambda: any("the gardener's findings settle in the background (pid" in line for line in said))

            def settled():
                with sqlite3.connect(db) as conn:
                    edited = conn.execute("select 1 from memories where description like '%8766%'").fetchone()
                    return edited and gardener.in_step(conn)

            wait_until(settled, timeout=60, what="the settle the watcher started")
        finally:
            stop.set()
            thread.join()
    assert dump(db) == dump(fresh(root, tmp_path))
