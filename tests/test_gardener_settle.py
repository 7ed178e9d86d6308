"""How the gardener settles its tables (indexer/index/gardener_pairs.py, gardener_reader.py): readings kept across
full runs, a full run over a store that barely changed settling only what changed, a big run's reading done in a
second process, and the home page's share of what needs a human. Real stores and the real indexer; each result
is compared with an index built from nothing."""

import sys

import pytest
from stores import dump

from bench.gardener import labelled_stores, write_store
from indexer.index import gardener_reader
from indexer.index.build import index_store
from indexer.query import queries
from indexer.sql.canned import NEEDS_HUMAN_FIRST
from indexer.sqlite import sqlite3
from indexer.store import wording
from indexer.store.timestamps import normalize

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
    """The store indexed from nothing."""
    db = tmp_path / "fresh.db"
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"fresh.db{suffix}").unlink(missing_ok=True)
    index_store(root, db, full=True)
    return db


def test_a_full_run_in_place_settles_as_a_run_from_nothing(store, tmp_path):
    root, db, written = store
    index_store(root, db, full=True)  # nothing changed
    assert dump(db) == dump(fresh(root, tmp_path))
    # a description changed, a memory gone, another one's date: the full run settles these as a fresh index would
    path = path_of(root, written, "chroma-port-in-env")
    path.write_text(path.read_text().replace("8765", "8766"))
    path_of(root, written, "rebuild-seamless-db").unlink()
    path = path_of(root, written, "mcp-no-print")
    path.write_text(path.read_text().replace("updated: 2026-04-02T09:00:00Z", "updated: 2026-12-24T09:00:00Z"))
    index_store(root, db, full=True)
    assert dump(db) == dump(fresh(root, tmp_path))
    assert dump(db)["gardener_findings"]


def test_a_reading_is_kept_while_its_text_and_rules_are_the_same(store, tmp_path):
    """A stored reading is taken as it is, however the memories around it change: a reading planted in the index
    (that of a vague description, under the key of a concrete one) shows in the findings until the text changes."""
    root, db, written = store
    name = "chroma-boot-race"
    memory_id = written[name]["id"]
    planted = wording.read(name, "notes about the console")
    with sqlite3.connect(db) as conn:
        conn.execute(
            "update gardener_words set reading = ?, signature = ? where id = ?",
            (wording.dump(planted), planted.signature, memory_id),
        )
        conn.execute("delete from index_meta where key = 'gardener'")  # as after an upgrade of the pairing rules
    index_store(root, db, full=True)
    vague = {r["id"] for r in queries.run(db, "gardener", as_of=AS_OF) if r["proposal"] == "vague-description"}
    assert memory_id in vague
    path = path_of(root, written, name)
    path.write_text(path.read_text().replace("fails with", "fails at once with"))
    index_store(root, db)
    vague = {r["id"] for r in queries.run(db, "gardener", as_of=AS_OF) if r["proposal"] == "vague-description"}
    assert memory_id not in vague
    assert dump(db) == dump(fresh(root, tmp_path))


def test_the_child_reads_as_this_process_does(monkeypatch):
    monkeypatch.setattr(gardener_reader, "BATCH", 7)
    texts = [
        (wording.key(name, m["description"]), name, m["description"])
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


@pytest.mark.parametrize("as_of", ["2026-05-01", "2026-09-01", AS_OF])
@pytest.mark.parametrize("shown", [1, 3, 20])
def test_the_home_page_cut_is_needs_human_s_first_rows(tmp_path, as_of, shown):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev") + labelled_stores("held-out") + labelled_stores("cross-scope"))
    (root / "memories" / "gates").mkdir()  # a section with more rows than shown
    for n in range(25):
        (root / "memories" / "gates" / f"gate-{n:02d}.md").write_text(
            f'---\nid: 01KG{n:022d}\nkind: stage\nname: gate-{n:02d}\ndescription: "gate {n:02d}: a stage to pass"\n'
            f"project: gates\ncreated: 2026-0{1 + n % 9}-10T00:00:00Z\n---\nStatus: open\nGate: human\n"
        )
    db = tmp_path / "index.db"
    index_store(root, db)
    rows = queries.run(db, "needs_human", as_of=as_of)
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        first = [dict(r) for r in conn.execute(NEEDS_HUMAN_FIRST, {"as_of": normalize(as_of), "shown": shown})]
    assert first == [r for r in rows if r["section_position"] <= shown]
    assert {r["section"] for r in first} >= {"stage", "proposal"}
