"""Supersession history (SPEC section 4): the whole chain from any member, oldest first."""

import pytest

from indexer.query import queries


def history(store, memory_id) -> list[dict]:
    return queries.run(store.db_path, "history", id=memory_id)


@pytest.fixture
def chain(store):
    """chroma-port-8000 -> chroma-port-8001 -> chroma-embedded (current)."""
    new = store.memory("chroma-embedded", created="2026-07-10T00:00:00Z")
    mid = store.memory(
        "chroma-port-8001", created="2026-03-02T00:00:00Z", invalid_at="2026-07-10T00:00:00Z", superseded_by=new["id"]
    )
    old = store.memory(
        "chroma-port-8000", created="2026-01-12T00:00:00Z", invalid_at="2026-03-02T00:00:00Z", superseded_by=mid["id"]
    )
    store.index()
    return [old["id"], mid["id"], new["id"]]


def test_any_member_gives_the_whole_chain_oldest_first(store, chain):
    for member in chain:
        rows = history(store, member)
        assert [r["id"] for r in rows] == chain
        assert [r["position"] for r in rows] == [1, 2, 3]
        assert [r["is_start"] for r in rows] == [int(r["id"] == member) for r in rows]


def test_each_link_has_its_times_and_the_chain_its_current_truth(store, chain):
    rows = history(store, chain[0])
    assert [(r["status"], r["valid_from"], r["invalid_at"], r["superseded_by"]) for r in rows] == [
        ("superseded", "2026-01-12T00:00:00Z", "2026-03-02T00:00:00Z", chain[1]),
        ("superseded", "2026-03-02T00:00:00Z", "2026-07-10T00:00:00Z", chain[2]),
        ("active", "2026-07-10T00:00:00Z", None, None),
    ]
    assert {r["current_id"] for r in rows} == {chain[2]}
    assert {r["link"] for r in rows} == {None}


def test_an_id_is_found_in_any_case(store, chain):
    assert [r["id"] for r in history(store, " " + chain[1].lower())] == chain


def test_a_memory_never_superseded_is_a_chain_of_one(store):
    only = store.memory("alone")
    store.index()
    rows = history(store, only["id"])
    assert [(r["id"], r["current_id"]) for r in rows] == [(only["id"], only["id"])]


def test_unknown_or_missing_id_gives_nothing(store, chain):
    assert history(store, "01K00000000000000000000ZZZ") == []
    assert history(store, "") == []


def test_a_dangling_link_is_shown(store):
    lost = store.memory("points-nowhere", invalid_at="2026-07-01T00:00:00Z", superseded_by="01K0000000000000000000ZZZZ")
    first = store.memory("first", invalid_at="2026-06-01T00:00:00Z", superseded_by=lost["id"])
    store.index()
    rows = history(store, first["id"])
    assert [(r["name"], r["link"]) for r in rows] == [("first", None), ("points-nowhere", "dangling")]
    assert {r["current_id"] for r in rows} == {None}


def test_a_cycle_is_shown_and_walked_once(store):
    a_id, b_id, c_id = "01K0000000000000000000AAAA", "01K0000000000000000000BBBB", "01K0000000000000000000CCCC"
    store.memory("a", id=a_id, invalid_at="2026-07-01T00:00:00Z", superseded_by=b_id)
    store.memory("b", id=b_id, invalid_at="2026-07-01T00:00:00Z", superseded_by=c_id)
    store.memory("c", id=c_id, invalid_at="2026-07-01T00:00:00Z", superseded_by=a_id)
    store.memory("into-the-loop", invalid_at="2026-06-01T00:00:00Z", superseded_by=a_id)
    store.index()
    for start in (a_id, b_id, c_id):
        rows = history(store, start)
        assert sorted(r["name"] for r in rows) == ["a", "b", "c", "into-the-loop"]
        assert {r["name"]: r["link"] for r in rows} == {"a": "cycle", "b": "cycle", "c": "cycle", "into-the-loop": None}
        assert rows[0]["name"] == "into-the-loop"
        assert {r["current_id"] for r in rows} == {None}


def test_two_old_memories_merged_into_one(store):
    new = store.memory("merged", created="2026-07-01T00:00:00Z")
    left = store.memory(
        "left", created="2026-01-01T00:00:00Z", invalid_at="2026-07-01T00:00:00Z", superseded_by=new["id"]
    )
    right = store.memory(
        "right", created="2026-02-01T00:00:00Z", invalid_at="2026-07-01T00:00:00Z", superseded_by=new["id"]
    )
    store.index()
    assert [r["name"] for r in history(store, left["id"])] == ["left", "right", "merged"]
    assert [r["name"] for r in history(store, right["id"])] == ["left", "right", "merged"]


def test_a_chain_ending_in_an_archived_memory_has_no_current_truth(store):
    end = store.memory("archived-end", invalid_at="2026-07-01T00:00:00Z")
    start = store.memory("start", invalid_at="2026-06-01T00:00:00Z", superseded_by=end["id"])
    store.index()
    rows = history(store, start["id"])
    assert [(r["name"], r["status"]) for r in rows] == [("start", "superseded"), ("archived-end", "archived")]
    assert rows[0]["chain_end_id"] == end["id"] and rows[0]["current_id"] is None


def test_a_name_starts_from_its_active_memory_in_each_project(store, chain):
    rows = history(store, "chroma-port-8001")
    assert [r["id"] for r in rows] == chain and {r["start_id"] for r in rows} == {chain[1]}
    store.memory("chroma-port-8001", project="tidepool")
    store.index()
    starts = {r["start_id"]: r["project"] for r in history(store, "chroma-port-8001") if r["is_start"]}
    assert sorted(starts.values()) == ["seamless", "tidepool"]


def test_a_name_in_several_projects_is_chosen_by_project_in_the_query(store):
    """The CLI, MCP and the explorer's history page all pass `project` to the query: the choice is made there."""
    seamless = store.memory("shared-name", project="seamless")
    tidepool = store.memory("shared-name", project="tidepool")
    global_one = store.memory("shared-name", project=None)
    store.index()

    def starts(**params) -> set[str]:
        return {r["start_id"] for r in queries.run(store.db_path, "history", id="shared-name", **params)}

    assert starts() == {seamless["id"], tidepool["id"], global_one["id"]}
    assert starts(project="tidepool") == {tidepool["id"]}
    assert starts(project="global") == {global_one["id"]}
    assert starts(project="elsewhere") == set()
    # an id is an id, whatever the project
    assert {r["start_id"] for r in queries.run(store.db_path, "history", id=seamless["id"], project="tidepool")} == {
        seamless["id"]
    }
