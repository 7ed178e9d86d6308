"""How the gardener settles its tables (indexer/gardener/pairs.py, gardener_settle.py, gardener_reader.py): in
the index run when it is little work, else left pending for a settle of its own, which reads a snapshot while the
index goes on changing and catches up with what changed meanwhile; a full run over a store that barely changed
settling only what changed; a big settle's reading done in a second process. Real stores and the real indexer;
each result is compared with an index settled from nothing."""

import json
import shutil
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE_STORE
from stores import dump

from bench.gardener import labelled_stores, write_store
from indexer.front.cli import cli
from indexer.gardener import pairs as gardener_pairs
from indexer.gardener import reader as gardener_reader
from indexer.gardener import wording
from indexer.index import build, gardener_settle
from indexer.index.build import index_paths, index_store
from indexer.query import queries
from indexer.query.gardener import state, state_line
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
    index_store(root, db, full=True, gardener=None)
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
    summary = index_store(root, db, gardener=1)
    assert summary.gardener_behind
    with sqlite3.connect(db) as conn:
        now = state(conn)
        assert now["changed_since"] == 2 and not now["unread"] and now["settled"]
        assert "2 memories changed since" in state_line(now)
    rows = findings(db)
    # the findings as they were settled, each saying so, after a first row that says they are not current
    assert rows[0]["proposal"] == "unsettled" and rows[0]["ids"] == "[]"
    assert "2 memories changed since" in rows[0]["reason"] and now["settled"] in rows[0]["reason"]
    assert [r["ids"] for r in rows[1:]] == [r["ids"] for r in before]
    assert {(r["settled"], r["changed_since"]) for r in rows[1:]} == {(now["settled"], 2)}
    # a write meanwhile (a run for one path, under the limit) adds to what is pending, settling nothing
    edit(root, written, "release-with-twine", "invalid_at: null", "invalid_at: 2026-10-01T00:00:00Z")
    assert index_paths(root, db, [path_of(root, written, "release-with-twine")], gardener=1).gardener_behind
    done = gardener_settle.settle(db)
    assert not done.whole and done.memories == 3
    assert dump(db) == dump(fresh(root, tmp_path))
    with sqlite3.connect(db) as conn:
        assert state(conn)["changed_since"] == 0 and "in step" in state_line(state(conn))
    assert findings(db)[0]["proposal"] != "unsettled"


def test_an_index_built_from_nothing_is_settled_by_a_settle_of_its_own(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev") + labelled_stores("held-out"))
    db = tmp_path / "index.db"
    assert index_store(root, db, gardener=10).gardener_behind
    rows = findings(db)
    assert [r["proposal"] for r in rows] == ["unsettled"]  # nothing listed as if it were all there is
    assert "has not read this index" in rows[0]["reason"] and "no duplicate, contradiction" in rows[0]["reason"]
    with sqlite3.connect(db) as conn:
        assert state(conn)["unread"] and state(conn)["settled"] is None
    done = gardener_settle.settle(db)
    assert done.whole and done.rounds == 1
    assert dump(db) == dump(fresh(root, tmp_path))


def test_what_changes_while_a_settle_reads_its_snapshot_is_caught_up(store, tmp_path, monkeypatch):
    """The settle of the whole store reads a snapshot without the writer lock: a write that commits meanwhile is
    settled in its copy's transaction, and a run over the whole store meanwhile makes it look again."""
    root, db, written = store
    real = gardener_pairs.rebuild
    meanwhile = []

    def rebuild_while_others_write(conn, readings, into=""):
        real(conn, readings, into)
        if meanwhile:  # (on another thread, as another process would: the settle holds no writer lock now)
            work = threading.Thread(target=meanwhile.pop(0))
            work.start()
            work.join()

    monkeypatch.setattr(gardener_pairs, "rebuild", rebuild_while_others_write)
    with sqlite3.connect(db) as conn:
        conn.execute("update index_meta set value = 'other rules' where key = 'gardener'")  # as after an upgrade
    index_store(root, db, gardener=1)  # notes that every memory is to be read again

    def write():
        edit(root, written, "chroma-port-in-env", "8765", "8766")
        assert index_paths(root, db, [path_of(root, written, "chroma-port-in-env")], gardener=1).gardener_behind

    meanwhile.append(write)
    done = gardener_settle.settle(db)
    assert done.whole and done.rounds == 1
    assert dump(db) == dump(fresh(root, tmp_path))

    def full_run():
        path_of(root, written, "rebuild-seamless-db").unlink()
        assert index_store(root, db, full=True, gardener=1).gardener_behind

    with sqlite3.connect(db) as conn:
        conn.execute("update index_meta set value = 'other rules' where key = 'gardener'")
    index_store(root, db, gardener=1)
    meanwhile.append(full_run)
    done = gardener_settle.settle(db)
    assert done.whole and done.rounds == 2  # the snapshot no longer said what the tables start from
    assert dump(db) == dump(fresh(root, tmp_path))
    assert indexes(db) == indexes(fresh(root, tmp_path))  # made again after the copy, on the index's own tables


def test_seamless_index_leaves_a_big_settle_to_a_process_of_its_own(tmp_path, monkeypatch):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    monkeypatch.setattr(build, "GARDENER_IN_RUN", 5)
    result = CliRunner().invoke(cli, ["index", str(root), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "the gardener's findings settle in the background (pid" in result.stderr
    gardener_settle.settle(db)  # waits for the one under way, then finds nothing to do
    with sqlite3.connect(db) as conn:
        assert gardener_pairs.in_step(conn)
    assert dump(db) == dump(fresh(root, tmp_path))


def test_the_settle_process_says_why_it_failed(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    index_store(root, db, gardener=0)
    with sqlite3.connect(db) as conn:  # a table the settle writes, gone: it fails, and says so in the index
        conn.execute("drop table gardener_common")
    child = subprocess.run([sys.executable, "-m", "indexer.index.gardener_settle", str(db)], timeout=120)
    assert child.returncode == 1
    with sqlite3.connect(db) as conn:
        row = state(conn)
    assert "gardener_common" in row["settle_error"] and row["settling"] is None
    assert "the last settle failed at" in state_line(row, running=False)


def test_the_child_reads_as_this_process_does(monkeypatch):
    monkeypatch.setattr(gardener_reader, "BATCH", 7)
    texts = [
        (f"{store['scope']}/{name}", name, m["description"])
        for store in labelled_stores("dev")
        for name, m in store["memories"].items()
    ]
    with gardener_reader.Reader() as reader:
        reader.hand(texts)
        read = reader.readings()
    assert len(read) == len(texts)  # every batch, the last one too
    for key, name, description in texts:
        signature, stored = read[key]
        here = wording.read(name, description)
        assert wording.load(stored) == here and signature == here.signature


def test_a_settle_of_many_reads_in_a_second_process_and_comes_out_the_same(tmp_path, monkeypatch):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev") + labelled_stores("held-out"))
    alone = tmp_path / "alone.db"
    index_store(root, alone)
    monkeypatch.setattr(gardener_reader, "START_AT", 10)
    shared = tmp_path / "shared.db"
    index_store(root, shared)
    assert dump(shared) == dump(alone)


def test_every_settle_gives_each_reading_its_memorys_kind(tmp_path, monkeypatch):
    """`two_kinds` (gardener/sameness.py) reads each memory's kind, from its frontmatter: the settle in the run, a settle
    of its own that reads in a second process, and the settle of one edit give it alike. examples/store's rule (a
    constraint) and the runbook that rebuilds the index read alike; of two kinds, they are not proposed."""
    root = tmp_path / "store"
    shutil.copytree(EXAMPLE_STORE, root)
    rule = root / "memories" / "seamless" / "files-are-source-of-truth.md"
    runbook = root / "memories" / "seamless" / "rebuild-index.md"
    ids = [path.read_text().split("id: ", 1)[1].split("\n", 1)[0] for path in (rule, runbook)]  # the older first

    def pairs(db):
        return [(r["proposal"], r["ids"]) for r in findings(db) if r["proposal"] in ("duplicate", "contradiction")]

    in_run = tmp_path / "in-run.db"
    index_store(root, in_run)
    assert pairs(in_run) == []
    monkeypatch.setattr(gardener_reader, "START_AT", 10)
    own = tmp_path / "own.db"
    assert index_store(root, own, gardener=10).gardener_behind
    assert gardener_settle.settle(own).whole
    assert pairs(own) == [] and dump(own) == dump(in_run)
    # the rule written as a runbook: one kind, the two restate each other (what the sign costs, test_gardener_rules)
    rule.write_text(rule.read_text().replace("kind: constraint", "kind: runbook"))
    assert not index_paths(root, own, [rule]).gardener_behind  # settled in the run: that memory's groups only
    assert pairs(own) == [("duplicate", json.dumps(ids))]
    assert dump(own) == dump(fresh(root, tmp_path))


def test_a_child_that_cannot_start_changes_nothing(tmp_path, monkeypatch):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    alone = tmp_path / "alone.db"
    index_store(root, alone)
    monkeypatch.setattr(gardener_reader, "START_AT", 10)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    broken = tmp_path / "broken.db"
    index_store(root, broken)
    assert dump(broken) == dump(alone)


def test_the_watcher_leaves_a_big_batch_to_a_settle_of_its_own(store, tmp_path):
    from watching import wait_until

    from indexer.index.watch import Watcher

    root, db, written = store
    said: list[str] = []
    watcher = Watcher(root, db, say=said.append, gardener=0)  # every batch too big to settle in the run
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,))
    thread.start()
    try:
        wait_until(lambda: any(line.startswith("watching ") for line in said), timeout=30)
        edit(root, written, "chroma-port-in-env", "8765", "8766")
        wait_until(lambda: any("the gardener's findings settle in the background (pid" in line for line in said))

        def settled():
            with sqlite3.connect(db) as conn:
                edited = conn.execute("select 1 from memories where description like '%8766%'").fetchone()
                return edited and gardener_pairs.in_step(conn)

        wait_until(settled, timeout=60, what="the settle the watcher started")
    finally:
        stop.set()
        thread.join()
    assert dump(db) == dump(fresh(root, tmp_path))
