"""The SQL views (indexer/sql/views.py) against the CLI's and the canned queries' answers, same store, same time."""

import json
import time
from datetime import UTC, datetime, timedelta

import pytest
import sqlite_utils
from click.testing import CliRunner
from conftest import Store, started_explorer

from indexer.front.cli import cli
from indexer.query import queries
from indexer.sql import views
from indexer.sqlite import sqlite3

VIEWS = ["active_memories", "briefings", "supersession_history", "gardener_proposals", "attribution"]


def ago(days: float) -> str:
    """A UTC timestamp `days` before now (negative: in the future)."""
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def written_db(tmp_path_factory):
    """Two projects and global; a chain, a merge, a cycle, a dangling link, archived, future and stale memories."""
    store = Store(tmp_path_factory.mktemp("views") / "store")
    store.memory("rule", kind="constraint", created=ago(400), updated=ago(400))
    store.memory("live-stage", kind="stage", body="Status: open\nGate: human", created=ago(3), updated=ago(3))
    store.memory("done-stage", kind="stage", body="Status: done", created=ago(30), updated=ago(30))
    store.memory("fresh", created=ago(1), updated=ago(1))
    store.memory("too-old-for-briefing", created=ago(200), updated=ago(200))
    store.memory("stale", created=ago(400), updated=ago(400))
    store.memory("not-yet", created=ago(2), updated=ago(2), valid_from=ago(-30))
    store.memory("expires-later", created=ago(2.5), updated=ago(2.5), invalid_at=ago(-30))
    store.memory("archived", created=ago(50), updated=ago(10), invalid_at=ago(10))
    # a chain of three in seamless: port-8000 -> port-8001 -> embedded
    new = store.memory("embedded", created=ago(5), updated=ago(5))
    mid = store.memory("port-8001", created=ago(60), updated=ago(5), invalid_at=ago(5), superseded_by=new["id"])
    store.memory("port-8000", created=ago(90), updated=ago(60), invalid_at=ago(60), superseded_by=mid["id"])
    # tidepool: two memories merged into one
    merged = store.memory("merged", project="tidepool", created=ago(4), updated=ago(4))
    for name in ("left", "right"):
        store.memory(
            name, project="tidepool", created=ago(20), updated=ago(4), invalid_at=ago(4), superseded_by=merged["id"]
        )
    store.memory("tidepool-rule", project="tidepool", kind="constraint", created=ago(9), updated=ago(9))
    # global: a gotcha, a chain of two, a cycle (no current truth) and a dangling link
    store.memory("global-gotcha", project=None, created=ago(2), updated=ago(2))
    g_new = store.memory("global-new", project=None, created=ago(6), updated=ago(6))
    store.memory(
        "global-old", project=None, created=ago(70), updated=ago(6), invalid_at=ago(6), superseded_by=g_new["id"]
    )
    a_id, b_id = "01K0000000000000000000CYCA", "01K0000000000000000000CYCB"
    store.memory("cycle-a", id=a_id, project=None, invalid_at=ago(7), superseded_by=b_id)
    store.memory("cycle-b", id=b_id, project=None, invalid_at=ago(7), superseded_by=a_id)
    store.memory("lost", project=None, invalid_at=ago(8), superseded_by="01K0000000000000000000ZZZZ")
    summary = store.index()
    assert summary.errors == 0 and summary.memories == 22
    return store.db_path


@pytest.fixture(params=["example", "written"])
def db(request):
    return request.getfixturevalue("example_db" if request.param == "example" else "written_db")


def view(db_path, sql: str, params=()) -> list[dict]:
    return queries.rows(db_path, sql, params)


def cli_json(*args) -> list[dict]:
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the views are there, and kept current ---


def test_the_indexer_creates_the_views(db):
    names = [r["name"] for r in view(db, "select name from sqlite_master where type = 'view' order by name")]
    assert names == sorted(VIEWS)


def test_create_views_is_idempotent_and_ensure_only_acts_on_a_difference(tmp_path, example_db):
    db = sqlite_utils.Database(tmp_path / "copy.db")
    sqlite3.connect(example_db).backup(db.conn)
    assert views.ensure_views(db) is False  # the indexer left exactly these
    views.create_views(db)
    views.create_views(db)
    assert views.ensure_views(db) is False
    db.execute("drop view briefings")
    db.execute("create view briefings as select 1 as stale")
    assert views.ensure_views(db) is True
    assert "project" in db["briefings"].columns_dict


def test_an_index_run_restores_views_that_are_missing_or_out_of_date(store):
    store.memory("one")
    store.index()
    with sqlite3.connect(store.db_path) as conn:  # what an index built before the views looks like
        conn.execute("drop view gardener_proposals")
        conn.execute("drop view briefings")
        conn.execute("create view briefings as select 'old sql' as project")
    assert store.index().mode == "no-op"
    assert [r[0] for r in store.rows("select name from sqlite_master where type = 'view' order by name")] == sorted(
        VIEWS
    )
    assert store.rows("select project, name, reason from briefings") == [("seamless", "one", "included")]


def test_now_is_when_the_view_is_read_not_when_it_was_created(written_db):
    first = view(written_db, "select distinct as_of from briefings")
    time.sleep(1.05)
    second = view(written_db, "select distinct as_of from briefings")
    assert len(first) == len(second) == 1 and first[0]["as_of"] < second[0]["as_of"] <= now()
    assert "'now'" in view(written_db, "select sql from sqlite_master where name = 'active_memories'")[0]["sql"]


# --- each view against the CLI / canned query ---


def valid_at(memory: dict, t: str) -> bool:
    """SPEC section 2, in Python: valid_from <= T < invalid_at, a missing valid_from meaning always."""
    return (memory["valid_from"] or "") <= t and (memory["invalid_at"] is None or memory["invalid_at"] > t)


def test_active_memories_are_the_memories_valid_now(db):
    before = now()
    ids = [r["id"] for r in view(db, "select id from active_memories")]
    after = now()
    memories = view(db, "select * from memories")
    expected = [{m["id"] for m in memories if valid_at(m, t)} for t in (before, after)]
    assert set(ids) in expected and len(ids) == len(set(ids))
    assert view(db, "select * from active_memories where id = ?", (ids[0],)) == view(
        db, "select * from memories where id = ?", (ids[0],)
    )


def test_active_memories_follow_valid_from_and_invalid_at_not_status(written_db):
    names = {r["name"] for r in view(written_db, "select name from active_memories")}
    assert "expires-later" in names  # archived, but only from a future date
    assert not names & {"not-yet", "archived", "port-8000", "port-8001", "cycle-a", "lost"}


def test_briefings_hold_every_project_and_the_global_briefing(db):
    projects = {r["project"] or "global" for r in view(db, "select distinct project from memories")}
    assert "global" in projects  # both stores have global memories: the global-only briefing is there too
    assert {r["project"] for r in view(db, "select distinct project from briefings")} == projects


def test_each_project_in_briefings_is_that_projects_ledger_and_briefing_now(db):
    rows = view(db, "select * from briefings")
    for project in dict.fromkeys(r["project"] for r in rows):
        ledger = [r for r in rows if r["project"] == project]
        as_of = ledger[0]["as_of"]
        for r in ledger:
            r["project"] = r.pop("memory_project")  # the briefed project apart, the ledger's own columns
        expected = queries.run(db, "briefing_ledger", project=project, as_of=as_of)
        assert ledger == expected, project
        briefing = view(db, "select * from briefings where project = ? and included", (project,))
        assert [r["id"] for r in briefing] == [
            r["id"] for r in cli_json("briefing", "--project", project, "--as-of", as_of, "--db", str(db))
        ], project


def test_briefings_of_the_written_store(written_db):
    def told(project):
        return [
            r["name"] for r in view(written_db, "select name from briefings where project = ? and included", (project,))
        ]

    assert told("seamless") == [
        "rule",
        "live-stage",
        "fresh",
        "global-gotcha",
        "expires-later",
        "embedded",
        "global-new",
        "done-stage",
    ]
    assert told("tidepool") == ["tidepool-rule", "global-gotcha", "merged", "global-new"]
    assert told("global") == ["global-gotcha", "global-new"]
    reasons = {
        r["name"]: r["reason"]
        for r in view(written_db, "select name, reason from briefings where project = 'seamless'")
    }
    assert reasons["too-old-for-briefing"] == reasons["stale"] == "dropped: age"
    assert reasons["not-yet"] == reasons["archived"] == "not valid at T"
    assert "merged" not in reasons  # nothing from another project, ever
    scopes = {
        (r["name"], r["memory_project"]) for r in view(written_db, "select * from briefings where project = 'tidepool'")
    }
    assert ("global-gotcha", None) in scopes and ("merged", "tidepool") in scopes


def test_supersession_history_is_each_chain_once_as_history_tells_it(db):
    rows = view(db, "select * from supersession_history")
    linked = view(
        db,
        "select id from memories where superseded_by is not null "
        "union select m.id from memories m join memories old on old.superseded_by = m.id",
    )
    assert sorted(r["id"] for r in rows) == sorted(r["id"] for r in linked)  # each linked memory once
    chains = {}
    for r in rows:
        chains.setdefault(r["chain_id"], []).append(r)
    for chain_id, chain in chains.items():
        told = cli_json("history", chain_id, "--db", str(db))
        assert [r.pop("is_start") for r in told] == [True] + [False] * (len(told) - 1)
        for r in chain:
            r.pop("chain_id")
        assert chain == told, chain_id


def test_a_chain_leading_into_a_cycle_is_told_once_from_its_first(store):
    # the view walks only from firsts (no predecessor) and cycle members: here `way-in` is the only first
    a_id, b_id = "01K9CYC0000000000000000A01", "01K9CYC0000000000000000B01"
    store.memory("way-in", project=None, invalid_at=ago(9), superseded_by=a_id)
    store.memory("loop-a", id=a_id, project=None, invalid_at=ago(7), superseded_by=b_id)
    store.memory("loop-b", id=b_id, project=None, invalid_at=ago(7), superseded_by=a_id)
    store.index()
    rows = view(store.db_path, "select * from supersession_history")
    told = cli_json("history", "way-in", "--db", str(store.db_path))
    assert [(r["chain_id"], r["name"], r["link"]) for r in rows] == [
        (told[0]["id"], "way-in", None),
        (told[0]["id"], "loop-a", "cycle"),
        (told[0]["id"], "loop-b", "cycle"),
    ]
    assert [r["name"] for r in told] == ["way-in", "loop-a", "loop-b"]


def test_an_old_id_joins_to_its_current_truth(db):
    for old in view(db, "select id from memories where superseded_by is not null"):
        told = cli_json("history", old["id"], "--db", str(db))
        (joined,) = view(db, "select * from supersession_history where id = ?", (old["id"],))
        assert joined["current_id"] == told[0]["current_id"]
        if joined["link"] != "cycle":  # a cycle has no end: where it stops depends on where the walk began
            assert joined["chain_end_id"] == told[0]["chain_end_id"]


def test_supersession_history_of_the_written_store(written_db):
    def chain_of(name):
        (chain_id,) = [
            r["chain_id"]
            for r in view(
                written_db,
                "select h.chain_id from supersession_history h join memories m using (id) where m.name = ?",
                (name,),
            )
        ]
        return [
            (r["name"], r["status"], r["link"], r["current"])
            for r in view(
                written_db,
                "select h.name, h.status, h.link, c.name as current from supersession_history h "
                "left join memories c on c.id = h.current_id where chain_id = ? order by position",
                (chain_id,),
            )
        ]

    assert (
        chain_of("embedded")
        == chain_of("port-8000")
        == [
            ("port-8000", "superseded", None, "embedded"),
            ("port-8001", "superseded", None, "embedded"),
            ("embedded", "active", None, "embedded"),
        ]
    )
    assert chain_of("right") == [
        ("left", "superseded", None, "merged"),
        ("right", "superseded", None, "merged"),
        ("merged", "active", None, "merged"),
    ]
    assert chain_of("cycle-b") == [("cycle-a", "superseded", "cycle", None), ("cycle-b", "superseded", "cycle", None)]
    assert chain_of("lost") == [("lost", "superseded", "dangling", None)]
    assert (
        view(written_db, "select * from supersession_history h join memories m using (id) where m.name = 'fresh'") == []
    )


def test_gardener_proposals_are_the_gardener_now(db):
    rows = view(db, "select * from gardener_proposals")
    as_of = rows[0]["as_of"] if rows else now()
    for row in rows:  # the CLI gives `ids` as a list and completes the commands with its --db
        row["ids"] = json.loads(row["ids"])
        for key in ("command", "dismiss"):
            row[key] = row[key] and f"{row[key]} --db {db}"
    assert rows == cli_json("gardener", "--as-of", as_of, "--db", str(db))


def test_gardener_proposals_of_the_written_store(written_db):
    rows = view(written_db, "select * from gardener_proposals")
    proposed = {r["name"]: r["reason"] for r in rows if r["proposal"] == "archive"}
    assert set(proposed) == {"done-stage"}  # never the pinned rule, nor what is not valid, nor (by default) "stale"
    assert proposed["done-stage"].startswith("stage is done")


# --- Datasette ---


@pytest.fixture(scope="module")
def ds(written_db):
    return started_explorer(written_db)


@pytest.mark.parametrize(
    "name, title, facets",
    [
        ("active_memories", "Active memories", {"kind", "project", "stage_status"}),
        ("briefings", "Briefings now", {"project", "reason"}),
        ("supersession_history", "Supersession history", {"status", "link"}),
        ("gardener_proposals", "Gardener proposals", {"project", "kind"}),
    ],
)
async def test_datasette_shows_each_view_with_its_title_and_facets(ds, name, title, facets):
    # without facet suggestions: each one evaluates the view again, and they are Datasette's, not ours
    response = await ds.client.get(f"/seamless/{name}?_nosuggest=1")
    assert response.status_code == 200, response.text
    assert title in response.text
    data = (await ds.client.get(f"/seamless/{name}.json?_nosuggest=1")).json()
    assert facets <= set(data["facet_results"])
    database = (await ds.client.get("/seamless.json")).json()
    assert name in {v["name"] for v in database["views"]}


async def test_datasette_briefing_filter_is_the_briefing(ds, written_db):
    # Datasette's filters send '1' as text: the view's integer columns still match it
    response = await ds.client.get("/seamless/briefings.json?project=tidepool&included=1&_shape=array")
    assert [r["name"] for r in response.json()] == [
        r["name"] for r in queries.run(written_db, "briefing", project="tidepool")
    ]
    response = await ds.client.get("/seamless/briefings.json?project=tidepool&position=1&pinned=1&_shape=array")
    assert [r["name"] for r in response.json()] == ["tidepool-rule"]
    response = await ds.client.get("/seamless/supersession_history.json?position=2&status=active&_shape=array")
    assert {r["name"] for r in response.json()} == {"global-new"}
