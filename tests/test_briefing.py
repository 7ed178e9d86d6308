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
    store.write("seamless.toml", "[gardener]\nstale_memories = true\n")  # so the gardener has one to propose
    store.index()
    assert briefing(store) == ["recent"]
    assert [r["name"] for r in queries.run(store.db_path, "gardener", as_of=T)] == ["untouched"]
    assert briefing(store, as_of=as_of) == [] and ledger(store, as_of=as_of) == {}
    assert queries.run(store.db_path, "gardener", as_of=as_of) == []


def walked(store, project, as_of, budget) -> tuple[list, dict]:
    """The briefing and the ledger by SPEC section 3, step by step in Python over the index's memories: a
    reference for the SQL walk. The briefing as (id, position, running_chars, reason); the ledger by id."""
    from datetime import datetime, timedelta

    def days_before(setting: str) -> str:
        (days,) = store.rows("select value from settings where key = ?", (setting,))[0]
        return (datetime.fromisoformat(as_of) - timedelta(days=int(days))).strftime("%Y-%m-%dT%H:%M:%SZ")

    age_cutoff, unknown_cutoff = (
        days_before("briefing.max_age_days"),
        days_before("briefing.stage_unknown_max_age_days"),
    )
    columns = "id, kind, pinned, stage_status, description, updated, valid_from, invalid_at"
    scope = [
        dict(zip(columns.split(", "), row))
        for row in store.rows(f"select {columns} from memories where project is ? or project is null", (project,))
    ]

    def verdict(m):
        if not ((m["valid_from"] or "") <= as_of and (m["invalid_at"] is None or m["invalid_at"] > as_of)):
            return "not valid at T"
        if m["pinned"]:
            return "pinned"
        if m["stage_status"] == "unknown" and (m["updated"] or "") < unknown_cutoff:
            return "dropped: stage unknown"
        if (m["updated"] or "") < age_cutoff:
            return "dropped: age"
        return None

    def newest_first(memories):  # updated newest first, ties by id
        return sorted(sorted(memories, key=lambda m: m["id"]), key=lambda m: m["updated"], reverse=True)

    reasons = {m["id"]: verdict(m) for m in scope}
    pinned = [m for m in scope if reasons[m["id"]] == "pinned"]
    went_in = newest_first([m for m in pinned if m["kind"] == "constraint"])
    went_in += newest_first([m for m in pinned if m["kind"] != "constraint"])
    running = sum(len(m["description"]) for m in went_in)
    over_at = None  # the running total the first memory that does not fit reached
    for m in newest_first([m for m in scope if reasons[m["id"]] is None]):
        if running > budget:  # the pinned ones alone are over: nothing is tried
            break
        running += len(m["description"])
        if running > budget:
            over_at = (m["id"], running)
            break
        reasons[m["id"]] = "included"
        went_in.append(m)
    briefing_rows, running = [], 0
    for position, m in enumerate(went_in, 1):
        running += len(m["description"])
        briefing_rows.append((m["id"], position, running, reasons[m["id"]]))
    ledger_rows = {m["id"]: (None, None, 0, reasons[m["id"]] or "dropped: budget") for m in scope}
    if over_at:
        ledger_rows[over_at[0]] = (None, over_at[1], 0, "dropped: budget")
    ledger_rows.update({m: (position, chars, 1, reason) for m, position, chars, reason in briefing_rows})
    return briefing_rows, ledger_rows


def test_many_memories_updated_at_one_time_walk_as_the_rules_say(store):
    # an import or an agent writes hundreds of memories on one day: the walk seeks past ties by id rather
    # than reading them all at each step, and must still give the rules' answer, pinned and skipped ones among them
    import random

    rng = random.Random(20261201)
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    same_day, other_day = "2026-07-19T00:00:00Z", "2026-07-15T12:00:00Z"
    for n in range(320):
        project = rng.choices(["seamless", None, "tidepool"], [6, 3, 1])[0]
        kind, body = rng.choices(
            [
                ("gotcha", "Body."),
                ("constraint", "Body."),
                ("stage", "Status: open"),
                ("stage", "?"),
                ("reference", "Body."),
            ],
            [10, 1, 1, 1, 3],
        )[0]
        store.memory(
            f"m-{n}",
            id="01K" + "".join(rng.choice(crockford) for _ in range(23)),
            kind=kind,
            body=body,
            project=project,
            description="d" * rng.randint(1, 40),
            created="2026-01-01T00:00:00Z",
            updated=rng.choices([same_day, other_day, "2026-07-10T00:00:00Z", LONG_AGO], [12, 4, 1, 1])[0],
            invalid_at=rng.choice([None] * 12 + ["2026-07-01T00:00:00Z"]),
        )
    store.index()
    assert (
        store.rows("select count(*) from memories where updated = ? and project = 'seamless'", (same_day,))[0][0] > 100
    )
    for project in ("seamless", "tidepool", None):
        for budget in (0, 60, 700, 2500, 100_000):
            expected_briefing, expected_ledger = walked(store, project, T, budget)
            asked = {"project": project or "", "as_of": T, "budget": budget}
            assert [
                (r["id"], r["position"], r["running_chars"], r["reason"])
                for r in queries.run(store.db_path, "briefing", **asked)
            ] == expected_briefing, (project, budget)
            assert {
                r["id"]: (r["position"], r["running_chars"], r["included"], r["reason"])
                for r in queries.run(store.db_path, "briefing_ledger", **asked)
            } == expected_ledger, (project, budget)


def test_a_walk_step_seeks_past_ties_instead_of_sorting_them(example_db):
    # the next memory after (updated, id) is a seek at the same updated for a greater id, else below it;
    # one search over `updated <= w.updated` sorted every memory sharing that updated by id at every step
    from indexer.sqlite import sqlite3

    with sqlite3.connect(example_db) as conn:
        plan = [
            row[3]
            for row in conn.execute(
                "explain query plan " + queries.QUERIES["briefing"], {"project": "seamless", "as_of": "", "budget": ""}
            )
        ]
    assert not [step for step in plan if "LAST TERM OF ORDER BY" in step], plan
    assert sum("memories_project_newest (project=? AND updated=? AND id>?)" in step for step in plan) == 2, plan
    assert sum("memories_project_newest (project=? AND updated>? AND updated<?)" in step for step in plan) == 2, plan
