"""The briefing and its ledger (SPEC section 3), case by case from the seed's own sentences."""

import pytest

from indexer.query import queries
from indexer.sql import canned

T = "2026-07-20T00:00:00Z"
LONG_AGO = "2025-01-01T00:00:00Z"  # more than briefing.max_age_days (180) before T


def ledger(store, project="seamless", as_of=T, budget=None) -> dict[str, dict]:
    """The ledger by memory name."""
    return {
        r["name"]: r for r in queries.run(store.db_path, "briefing_ledger", project=project, as_of=as_of, budget=budget)
    }


def briefing(store, project="seamless", as_of=T, budget=None) -> list[str]:
    """The names in the briefing, in order."""
    return [r["name"] for r in queries.run(store.db_path, "briefing", project=project, as_of=as_of, budget=budget)]


def test_status_done_unpins_a_stage_immediately(store):
    store.memory("live-stage", kind="stage", body="Status: in_progress\nGate: human\n")
    store.memory("done-stage", kind="stage", body="Status: done\n")
    store.index()
    rows = ledger(store, budget=1)
    assert rows["live-stage"]["reason"] == "pinned" and rows["live-stage"]["pinned"] == 1
    assert rows["done-stage"]["reason"] == "dropped: budget" and rows["done-stage"]["pinned"] == 0


def test_a_stage_without_header_stays_as_status_unknown_for_the_grace_window_then_leaves(store):
    store.memory("headless", kind="stage", body="We are somewhere in the middle.", updated="2026-07-15T00:00:00Z")
    store.index()
    inside = ledger(store, as_of="2026-07-20T00:00:00Z")["headless"]  # 5 days after the update
    assert (inside["reason"], inside["stage_status"], inside["pinned"]) == ("included", "unknown", 0)
    after = ledger(store, as_of="2026-07-23T00:00:00Z")["headless"]  # 8 days: past the 7-day window
    assert after["reason"] == "dropped: stage unknown"
    assert briefing(store, as_of="2026-07-23T00:00:00Z") == []


def test_an_unknown_stage_competes_for_the_budget_during_its_grace_window(store):
    store.memory("headless", kind="stage", body="No header.", updated="2026-07-19T00:00:00Z")
    store.index()
    assert ledger(store, budget=1)["headless"]["reason"] == "dropped: budget"


def test_constraint_and_stage_are_pinned_they_survive_budget_pressure(store):
    store.memory("old-rule", kind="constraint", updated="2026-07-01T00:00:00Z")
    store.memory("new-rule", kind="constraint", updated="2026-07-02T00:00:00Z")
    store.memory("blocked-work", kind="stage", body="Status: blocked\n", updated="2026-07-03T00:00:00Z")
    store.memory("open-work", kind="stage", body="Status: open", updated="2026-07-04T00:00:00Z")
    store.memory("fresh-gotcha", updated="2026-07-19T00:00:00Z")
    store.index()
    # constraints first, then live stages, each newest first; nothing else fits in 1 character
    assert briefing(store, budget=1) == ["new-rule", "old-rule", "open-work", "blocked-work"]
    assert ledger(store, budget=1)["fresh-gotcha"]["reason"] == "dropped: budget"


def test_pinned_memories_are_never_age_filtered(store):
    store.memory("ancient-rule", kind="constraint", updated=LONG_AGO)
    store.memory("ancient-stage", kind="stage", body="Status: open", updated=LONG_AGO)
    store.memory("ancient-gotcha", updated=LONG_AGO)
    store.index()
    rows = ledger(store)
    assert rows["ancient-rule"]["reason"] == rows["ancient-stage"]["reason"] == "pinned"
    assert rows["ancient-gotcha"]["reason"] == "dropped: age"


def test_age_filter_uses_briefing_max_age_days(store):
    store.write("seamless.toml", "[briefing]\nmax_age_days = 10\n")
    store.memory("nine-days", updated="2026-07-11T00:00:00Z")
    store.memory("eleven-days", updated="2026-07-09T00:00:00Z")
    store.index()
    rows = ledger(store)
    assert rows["nine-days"]["reason"] == "included"
    assert rows["eleven-days"]["reason"] == "dropped: age"


def test_a_maximum_age_past_the_calendar_drops_nothing_dated(store):
    # 100 million days reach back before year 0, where SQLite's strftime gives NULL: the cutoff had been
    # NULL, the walk found nothing newer than it, and every memory was dropped for budget
    store.write("seamless.toml", "[briefing]\nmax_age_days = 100000000\nstage_unknown_max_age_days = 100000000\n")
    store.memory("last-week", updated="2026-07-13T00:00:00Z")
    store.memory("ancient-gotcha", updated=LONG_AGO)
    store.memory("headless", kind="stage", body="No header.", updated="2025-06-01T00:00:00Z")
    store.index()
    assert briefing(store) == ["last-week", "headless", "ancient-gotcha"]


def test_invalid_memories_leave_the_briefing(store):
    new = store.memory("new-truth", created="2026-07-01T00:00:00Z")
    store.memory("old-truth", invalid_at="2026-07-01T00:00:00Z", superseded_by=new["id"])
    store.memory("archived-one", invalid_at="2026-07-05T00:00:00Z")
    store.index()
    assert briefing(store) == ["new-truth"]
    rows = ledger(store)
    assert rows["old-truth"]["reason"] == rows["archived-one"]["reason"] == "not valid at T"
    assert rows["old-truth"]["included"] == 0


def test_replay_across_a_supersession(store):
    switch = "2026-07-10T12:00:00Z"
    new = store.memory("port-8765", created=switch, updated=switch)
    store.memory(
        "port-8001",
        created="2026-05-01T00:00:00Z",
        updated="2026-05-01T00:00:00Z",
        invalid_at=switch,
        superseded_by=new["id"],
    )
    store.index()
    assert briefing(store, as_of="2026-07-10") == ["port-8001"]  # a date: midnight UTC, before the switch
    assert briefing(store, as_of="2026-07-10T13:00:00Z") == ["port-8765"]
    assert briefing(store, as_of="2026-07-10T13:30:00+02:00") == ["port-8001"]  # 11:30 UTC


def test_a_superseded_memory_is_valid_until_its_invalid_at(store):
    new = store.memory("next", created="2026-08-01T00:00:00Z")
    store.memory("current", invalid_at="2026-08-01T00:00:00Z", superseded_by=new["id"])
    store.index()
    assert briefing(store, as_of=T) == ["current"]


def test_a_memory_without_valid_from_is_valid_since_forever(store):
    store.memory("undated", created=None, valid_from=None, updated="2026-07-19T00:00:00Z")
    store.index()
    assert store.rows("select valid_from from memories") == [(None,)]
    assert briefing(store) == ["undated"]


def test_a_projects_memory_never_reaches_another_projects_briefing(store):
    store.memory("seamless-rule", kind="constraint", project="seamless")
    store.memory("tidepool-rule", kind="constraint", project="tidepool")
    store.memory("everyone-rule", kind="constraint", project=None)
    store.index()
    assert sorted(briefing(store, "seamless")) == ["everyone-rule", "seamless-rule"]
    assert sorted(briefing(store, "tidepool")) == ["everyone-rule", "tidepool-rule"]
    assert "tidepool-rule" not in ledger(store, "seamless")
    assert briefing(store, "global") == briefing(store, "") == ["everyone-rule"]  # Datasette's missing project


def test_the_first_memory_that_does_not_fit_ends_the_list(store):
    store.memory("newest", description="x" * 40, updated="2026-07-19T00:00:00Z")
    store.memory("too-long", description="y" * 100, updated="2026-07-18T00:00:00Z")
    store.memory("short-but-late", description="z" * 5, updated="2026-07-17T00:00:00Z")
    store.index()
    rows = ledger(store, budget=60)
    assert [rows[n]["reason"] for n in ("newest", "too-long", "short-but-late")] == [
        "included",
        "dropped: budget",
        "dropped: budget",
    ]
    assert briefing(store, budget=60) == ["newest"]
    assert briefing(store, budget=144) == ["newest", "too-long"]
    assert briefing(store, budget=145) == ["newest", "too-long", "short-but-late"]


def test_pinned_descriptions_count_against_the_budget_first(store):
    store.memory("rule", kind="constraint", description="r" * 50, updated="2026-07-01T00:00:00Z")
    store.memory("gotcha", description="g" * 20, updated="2026-07-19T00:00:00Z")
    store.index()
    assert briefing(store, budget=69) == ["rule"]
    assert briefing(store, budget=70) == ["rule", "gotcha"]
    assert [
        r["running_chars"] for r in queries.run(store.db_path, "briefing", project="seamless", as_of=T, budget=70)
    ] == [50, 70]


def test_ties_on_updated_go_by_id(store):
    for name in ("b-second", "a-first", "c-third"):
        store.memory(name, updated="2026-07-19T00:00:00Z")
    store.index()
    ids = store.rows("select name from memories order by id")
    assert briefing(store) == [n for (n,) in ids]


def test_the_budget_setting_comes_from_the_store(store):
    store.write("seamless.toml", "[briefing]\nbudget_chars = 100\n")
    store.memory("first", description="a" * 60, updated="2026-07-19T00:00:00Z")
    store.memory("second", description="b" * 60, updated="2026-07-18T00:00:00Z")
    store.index()
    assert briefing(store, budget="") == ["first"]  # '' is how Datasette sends a missing parameter
    assert briefing(store, budget=200) == ["first", "second"]


def test_the_ledger_accounts_for_every_memory_in_scope(store):
    new = store.memory("new-truth", created="2026-07-01T00:00:00Z", updated="2026-07-19T00:00:00Z")
    store.memory("old-truth", invalid_at="2026-07-01T00:00:00Z", superseded_by=new["id"])
    store.memory("rule", kind="constraint", project=None)
    store.memory("stale", updated=LONG_AGO)
    store.memory("headless", kind="stage", body="?", updated="2026-06-01T00:00:00Z")
    store.memory("big", description="d" * 140, updated="2026-07-18T00:00:00Z")
    store.memory("elsewhere", project="tidepool")
    store.index()
    rows = queries.run(store.db_path, "briefing_ledger", project="seamless", as_of=T, budget=200)
    in_scope = store.rows("select name from memories where project = 'seamless' or project is null")
    assert sorted(r["name"] for r in rows) == sorted(n for (n,) in in_scope)
    assert {r["name"]: r["reason"] for r in rows} == {
        "rule": "pinned",
        "new-truth": "included",
        "big": "dropped: budget",
        "stale": "dropped: age",
        "headless": "dropped: stage unknown",
        "old-truth": "not valid at T",
    }
    included = [r for r in rows if r["included"]]
    assert [r["position"] for r in included] == [1, 2]
    assert all(r["position"] is None for r in rows if not r["included"])


@pytest.mark.parametrize("budget", [0, 100, 300, 10_000])
def test_the_briefing_is_the_ledger_filtered_to_what_went_in(store, budget):
    store.memory("rule", kind="constraint", project=None, updated="2026-07-02T00:00:00Z")
    store.memory("stage", kind="stage", body="Status: open", updated="2026-07-03T00:00:00Z")
    for day in range(10, 20):
        store.memory(f"gotcha-{day}", project=None if day % 3 == 0 else "seamless", updated=f"2026-07-{day}T00:00:00Z")
    store.memory("same-time", updated="2026-07-15T00:00:00Z")
    store.index()
    ledger_rows = queries.run(store.db_path, "briefing_ledger", project="seamless", as_of=T, budget=budget)
    briefing_rows = queries.run(store.db_path, "briefing", project="seamless", as_of=T, budget=budget)
    assert briefing_rows == [r for r in ledger_rows if r["included"]]


def test_many_briefings_at_once_from_the_same_core(store):
    """What the `briefings` view will do: every project in one statement, each as if asked alone."""
    store.memory("seamless-gotcha", updated="2026-07-19T00:00:00Z")
    store.memory("tidepool-gotcha", project="tidepool", updated="2026-07-18T00:00:00Z")
    store.memory("global-rule", kind="constraint", project=None)
    store.memory("global-gotcha", project=None, updated="2026-07-17T00:00:00Z")
    store.index()
    sql = canned.compose(
        "briefing_params",
        f"SELECT DISTINCT project, '{T}' AS as_of, 200 AS budget FROM memories",
        ["briefing_ledger"],
        "SELECT briefing_project, name, reason, position FROM briefing_ledger",
    )
    rows = queries.execute(store.db_path, sql, {})
    for project in ("seamless", "tidepool", None):
        alone = queries.run(store.db_path, "briefing_ledger", project=project or "", as_of=T, budget=200)
        together = [r for r in rows if r["briefing_project"] == project]
        assert sorted((r["name"], r["reason"], r["position"]) for r in together) == sorted(
            (r["name"], r["reason"], r["position"]) for r in alone
        )


def test_missing_parameters_as_datasette_sends_them(store):
    store.memory("recent", updated="2099-01-01T00:00:00Z", created="2026-01-01T00:00:00Z")
    store.index()
    rows = queries.run(store.db_path, "briefing", project="seamless", as_of="", budget="")
    assert [r["name"] for r in rows] == ["recent"]
    assert rows[0]["budget"] == 6000 and rows[0]["as_of"].endswith("Z")
    assert queries.run(store.db_path, "briefing", project="seamless", as_of="not a time") == []


def test_every_bundled_project_has_a_briefing(example_db):
    from indexer.sqlite import sqlite3

    with sqlite3.connect(example_db) as conn:
        projects = [p for (p,) in conn.execute("select distinct project from memories where project is not null")]
        assert projects
        for project in projects:
            ledger_rows = queries.run(conn, "briefing_ledger", project=project)
            scope = conn.execute(
                "select count(*) from memories where project = ? or project is null", (project,)
            ).fetchone()[0]
            assert len(ledger_rows) == scope
            assert queries.run(conn, "briefing", project=project) == [r for r in ledger_rows if r["included"]]


@pytest.mark.parametrize("query", ["briefing", "briefing_ledger"])
def test_a_briefing_reads_only_the_memories_of_its_scopes(example_db, query):
    # each scope's memories are an index search, never a scan of every memory in the store (SQLite 3.51
    # chose a scan of all pinned rows until the join order was fixed: 1.8 ms instead of 0.1 at 100k)
    from indexer.sqlite import sqlite3

    with sqlite3.connect(example_db) as conn:
        plan = [
            row[3]
            for row in conn.execute(
                "explain query plan " + queries.QUERIES[query], {"project": "seamless", "as_of": "", "budget": ""}
            )
        ]
    reads = [step for step in plan if step.startswith(("SCAN m", "SEARCH m", "SCAN memories", "SEARCH memories"))]
    assert reads and all(step.startswith("SEARCH") for step in reads), plan


@pytest.mark.parametrize("as_of", ["2026", "2026-11-31", "2026-07-20T25:00:00Z", "last tuesday"])
def test_an_as_of_that_is_no_time_gives_no_briefing_rather_than_another_times(store, as_of):
    # the CLI and the explorer's pages refuse these with a message; callers of the SQL itself (MCP, ad hoc)
    # get nothing, where strftime would have read `2026` as a Julian day and `2026-11-31` as 1 December
    store.memory("recent", kind="constraint", updated="2026-07-19T00:00:00Z")
    store.memory("untouched", created="2024-01-01T00:00:00Z", updated="2024-01-01T00:00:00Z")
    store.index()
    assert briefing(store) == ["recent"]
    assert [r["name"] for r in queries.run(store.db_path, "gardener", as_of=T)] == ["untouched"]
    assert briefing(store, as_of=as_of) == [] and ledger(store, as_of=as_of) == {}
    assert queries.run(store.db_path, "gardener", as_of=as_of) == []
