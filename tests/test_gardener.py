"""The gardener (SPEC section 4): proposals only, with a reason each; nothing pinned is ever proposed."""

from indexer.query import queries

T = "2027-07-20T00:00:00Z"


def proposals(store, as_of=T) -> dict[str, dict]:
    """The archive proposals (these tests' stores, written from templates, also have duplicates: test_gardener_reads)."""
    rows = queries.run(store.db_path, "gardener", as_of=as_of)
    return {r["name"]: r for r in rows if r["proposal"] == "archive"}


def test_done_and_unknown_stages_after_stale_stage_days(store):
    store.memory("done-20-days", kind="stage", body="Status: done", updated="2027-06-30T00:00:00Z")
    store.memory("done-10-days", kind="stage", body="Status: done", updated="2027-07-10T00:00:00Z")
    store.memory("headless-15-days", kind="stage", body="somewhere", updated="2027-07-05T00:00:00Z")
    store.index()
    rows = proposals(store)
    assert sorted(rows) == ["done-20-days", "headless-15-days"]
    assert rows["done-20-days"]["proposal"] == "archive"
    assert (
        rows["done-20-days"]["reason"] == "stage is done and not updated for 20 days (gardener.stale_stage_days = 14)"
    )
    assert "no valid Status header" in rows["headless-15-days"]["reason"]


def test_unpinned_memories_after_stale_days_when_the_store_turns_it_on(store):
    store.memory("old-gotcha", updated="2026-07-01T00:00:00Z")
    store.memory("recent-gotcha", updated="2026-09-01T00:00:00Z")
    store.index()
    assert proposals(store) == {}  # off by default: a reviewer kept most such memories (docs/queries.md, held-out-8)
    store.write("seamless.toml", "[gardener]\nstale_memories = true\n")
    store.index()
    rows = proposals(store)
    assert list(rows) == ["old-gotcha"]
    assert rows["old-gotcha"]["idle_days"] == 384
    assert rows["old-gotcha"]["reason"] == "not pinned and not updated for 384 days (gardener.stale_days = 365)"


def test_nothing_pinned_is_ever_proposed(store):
    store.memory("ancient-rule", kind="constraint", updated="2020-01-01T00:00:00Z")
    store.memory("ancient-open-stage", kind="stage", body="Status: open", updated="2020-01-01T00:00:00Z")
    store.memory(
        "ancient-blocked-stage", kind="stage", body="Status: blocked\nGate: human", updated="2020-01-01T00:00:00Z"
    )
    store.index()
    assert proposals(store) == {}


def test_invalid_memories_are_not_proposed(store):
    new = store.memory("new", created="2020-06-01T00:00:00Z", updated="2027-07-01T00:00:00Z")
    store.memory(
        "superseded", updated="2020-01-01T00:00:00Z", invalid_at="2020-06-01T00:00:00Z", superseded_by=new["id"]
    )
    store.memory("archived", updated="2020-01-01T00:00:00Z", invalid_at="2020-06-01T00:00:00Z")
    store.index()
    assert proposals(store) == {}


def test_thresholds_come_from_the_store_and_time_is_a_parameter(store):
    store.write("seamless.toml", "[gardener]\nstale_days = 30\nstale_stage_days = 2\nstale_memories = true\n")
    store.memory("gotcha", updated="2027-06-01T00:00:00Z")
    store.memory("done", kind="stage", body="Status: done", updated="2027-07-17T00:00:00Z")
    store.memory("ancient", created="2020-01-01T00:00:00Z", updated="2020-01-01T00:00:00Z")
    store.index()
    assert sorted(proposals(store)) == ["ancient", "done", "gotcha"]
    assert sorted(proposals(store, as_of="2027-06-15")) == ["ancient"]  # replay: two weeks after the update
    assert "ancient" in proposals(store, as_of="")  # '' (Datasette's missing parameter) means now
