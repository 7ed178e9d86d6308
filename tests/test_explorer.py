"""The explorer through a real Datasette, configured by the same function as `seamless serve`."""

import json
import shutil
import urllib.parse

import pytest
import yaml
from click.testing import CliRunner
from conftest import load_plugin, started_explorer

from indexer.front.cli import cli
from indexer.front.serve import ROOT, ExplorerError, build_datasette
from indexer.query import queries
from indexer.sql.canned import QUERIES
from indexer.sqlite import sqlite3

CANNED = [*QUERIES, "problems_overview"]


async def started(db_path):
    ds = build_datasette(db_path)
    await ds.invoke_startup()
    return ds


@pytest.fixture(scope="module")
def ds(example_db):
    """One explorer over the example index for the module (it is read-only, so tests cannot disturb it)."""
    return started_explorer(example_db)


def memory_id(db_path, name: str) -> str:
    with sqlite3.connect(db_path) as conn:
        return conn.execute("select id from memories where name = ? order by updated desc", (name,)).fetchone()[0]


async def get_json(ds, path):
    response = await ds.client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


# --- configuration ---


async def test_serves_only_the_seamless_database(ds, example_db):
    databases = await get_json(ds, "/-/databases.json")
    assert [d["name"] for d in databases] == ["seamless"]
    assert databases[0]["path"] == str(example_db.resolve())
    assert databases[0]["is_mutable"]  # mode=ro, not immutable: a re-index is seen live


async def test_settings_limit_query_time(ds):
    settings = await get_json(ds, "/-/settings.json")
    assert settings["sql_time_limit_ms"] == 1000


async def test_home_page(ds):
    response = await ds.client.get("/")
    assert response.status_code == 200
    assert "text/html" in response.headers["content-type"]
    assert "Seamless memory explorer" in response.text


async def test_database_page_hides_bookkeeping_and_fts_tables(ds):
    response = await ds.client.get("/seamless")
    assert response.status_code == 200
    assert "Seamless memory store" in response.text
    for table in ("memories", "notes", "problems", "settings"):
        assert f'href="/seamless/{table}"' in response.text
    assert 'href="/seamless/index_runs"' not in response.text
    tables = {t["name"]: t for t in (await get_json(ds, "/seamless.json"))["tables"]}
    for hidden in (
        "index_files",
        "index_runs",
        "index_folders",
        "index_watch",
        "memories_fts",
        "notes_fts",
        "memories_fts_data",
        "memory_tags",
    ):
        assert tables[hidden]["hidden"], hidden
    for shown in ("memories", "notes", "problems", "settings"):
        assert not tables[shown]["hidden"], shown


def test_datasette_dot_serves_the_same_configuration(tmp_path, example_db):
    """`datasette .` in the repo root: here a copy of its configuration beside a seamless.db."""
    for name in ("metadata.yml", "settings.json", "plugins", "templates", "static"):
        (tmp_path / name).symlink_to(ROOT / name)
    shutil.copy(example_db, tmp_path / "seamless.db")
    from datasette.cli import cli as datasette_cli

    result = CliRunner().invoke(datasette_cli, [str(tmp_path), "--get", "/seamless/memories.json?_shape=array&_size=1"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["id"]
    result = CliRunner().invoke(
        datasette_cli, [str(tmp_path), "--get", "/seamless/briefing.json?project=seamless&_shape=array"]
    )
    assert result.exit_code == 0, result.output


def test_missing_index_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "nothing.db")])
    assert result.exit_code == 1
    assert "no index at" in result.output and "seamless index" in result.output


def test_missing_configuration_is_a_clear_error(tmp_path, example_db):
    with pytest.raises(ExplorerError, match=r"metadata\.yml"):
        build_datasette(example_db, root=tmp_path)


def test_not_an_index_is_a_clear_error(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("create table t (x)").connection.close()
    result = CliRunner().invoke(cli, ["serve", "--db", str(other)])
    assert result.exit_code == 1
    assert "not a seamless index" in result.output


# --- browsing ---


async def test_memories_open_newest_first_with_facets(ds):
    data = await get_json(ds, "/seamless/memories.json?_size=max&_shape=objects")
    assert data["human_description_en"] == "sorted by updated descending"
    updated = [row["updated"] for row in data["rows"]]
    assert updated == sorted(updated, reverse=True)
    facets = data["facet_results"]
    for facet in ("kind", "project", "status", "stage_status", "model", "tags"):
        assert facet in facets, facet
    assert facets["tags"]["type"] == "array"
    assert {r["value"] for r in facets["status"]["results"]} == {"active", "superseded", "archived"}


@pytest.mark.parametrize("rows", ["", "&status=active", "&_search=chroma", "&tags__arraycontains=chroma"])
async def test_the_tags_facet_counts_as_datasettes_own_array_facet(ds, rows):
    # ?_facet_array=tags asks Datasette's own array facet too: both appear, with the same counts and links, over
    # every row or the rows a filter or a search leaves (ours counts each distinct array once, then its tags)
    data = await get_json(ds, f"/seamless/memories.json?_facet_array=tags&_size=0{rows}")
    ours, datasettes = data["facet_results"]["tags"], data["facet_results"]["tags_2"]
    assert ours["type"] == datasettes["type"] == "array"
    assert ours["results"] and ours["results"] == datasettes["results"]


async def test_an_index_made_before_memory_tags_still_shows_the_tags_facet(ds, example_db, tmp_path):
    # served before its next index run (which adds the table): the facet splits the arrays instead
    old = tmp_path / "old.db"
    shutil.copy(example_db, old)
    with sqlite3.connect(old) as conn:
        conn.execute("drop table memory_tags")
    data = await get_json(await started(old), "/seamless/memories.json?_size=0")
    assert (
        data["facet_results"]["tags"]
        == (await get_json(ds, "/seamless/memories.json?_size=0"))["facet_results"]["tags"]
    )


async def test_the_tags_facet_counts_a_memory_once_per_tag(store):
    store.memory("twice", tags=["chroma", "chroma", "boot"])
    store.memory("once", tags=["chroma"])
    store.index()
    assert store.rows("select tags from memories where name = 'twice'") == [('["chroma", "boot"]',)]  # stored distinct
    data = await get_json(await started(store.db_path), "/seamless/memories.json?_size=0")
    assert {r["value"]: r["count"] for r in data["facet_results"]["tags"]["results"]} == {"chroma": 2, "boot": 1}


def test_the_tables_default_order_and_column_facets_read_an_index_not_every_row(example_db):
    """At 100,000 memories a scan of the table took 0.1 s per facet; an index makes each a few ms, and one in the
    facet's order saves sorting every row (model: 4 ms against 18; status, left to memories_facets, is the 18)."""
    metadata = yaml.safe_load((ROOT / "metadata.yml").read_text())["databases"]["seamless"]["tables"]
    with sqlite3.connect(example_db) as conn:
        for table in ("memories", "notes"):
            config = metadata[table]
            order = conn.execute(
                f"explain query plan select * from {table} order by {config['sort_desc']} desc limit 101"
            ).fetchall()
            assert "USING INDEX" in order[-1][3], (table, order)
            for column in (f for f in config["facets"] if isinstance(f, str)):
                # Datasette's facet: the values of the page's rows, counted, the most frequent first
                facet = f"""select {column} as value, count(*) as count from (select * from {table})
                    where {column} is not null group by {column} order by count desc, value limit 31"""
                plan = [step[3] for step in conn.execute("explain query plan " + facet)]
                assert "COVERING INDEX" in plan[0], (column, plan)
                if column != "status":  # see schema.sql: no index may lead with status
                    assert "TEMP B-TREE FOR GROUP BY" not in " ".join(plan), (column, plan)
        array_facet = load_plugin("array_facet")
        tags_facet = array_facet.FACET_SQL.format(col="tags", sql="select * from memories where 1", limit=31)
        plan = [step[3] for step in conn.execute("explain query plan " + tags_facet)]
        assert any("COVERING INDEX memories_tags" in step for step in plan), plan
        every_tag = array_facet.WHOLE_TABLE_SQL[("memories", "tags")].format(limit=31)
        plan = [step[3] for step in conn.execute("explain query plan " + every_tag)]
        assert plan[0] == "SCAN memory_tags" and "GROUP BY" not in " ".join(plan), plan  # counted in tag order
        for column in metadata["memories"]["sortable_columns"]:  # Datasette's page of a sort: no sort of every row
            if column == "created":  # but this one (no index led by it: see schema.sql)
                continue
            for direction in ("", " desc"):
                sort = f"select * from memories order by {column}{direction} limit 51"
                plan = [step[3] for step in conn.execute("explain query plan " + sort)]
                assert plan == [plan[0]] and "USING INDEX" in plan[0], (column, direction, plan)


async def test_the_memories_table_sorts_by_the_columns_an_index_serves(ds):
    html = (await ds.client.get("/seamless/memories")).text
    for column in ("id", "kind", "name", "project", "model", "created", "updated"):
        assert f"_sort={column}" in html or f"_sort_desc={column}" in html, column  # a link in its header
    for column in ("description", "body", "valid_from", "status"):
        assert f"_sort={column}" not in html and f"_sort_desc={column}" not in html, column
    rows = await get_json(ds, "/seamless/memories.json?_sort=name&_shape=array")
    assert [r["name"] for r in rows] == sorted(r["name"] for r in rows)
    response = await ds.client.get("/seamless/memories.json?_sort=body")
    assert response.status_code == 400 and "Cannot sort table by body" in response.text


async def test_memories_page(ds):
    response = await ds.client.get("/seamless/memories")
    assert response.status_code == 200
    html = response.text
    assert "<h1" in html and "Memories" in html
    assert "sorted by updated descending" in html
    assert 'data-column-description="One line, at most 150 characters: the ONLY text shown in indexes"' in html
    for facet in ("kind", "project", "status", "stage_status", "model", "tags"):
        assert f'<div class="facet-info facet-seamless-memories-{facet}" id="facet-{facet}"' in html  # its results
    assert '<input type="search"' in html or 'name="_search"' in html  # the search box


async def test_facet_filter(ds):
    rows = await get_json(ds, "/seamless/memories.json?status=superseded&_shape=array")
    assert rows and {r["status"] for r in rows} == {"superseded"}
    rows = await get_json(ds, "/seamless/memories.json?tags__arraycontains=chroma&_shape=array")
    assert rows and all("chroma" in json.loads(r["tags"]) for r in rows)


async def test_search_memories_and_notes(ds):
    rows = await get_json(ds, "/seamless/memories.json?_search=chroma&_shape=array")
    assert rows and all("chroma" in (r["name"] + r["description"] + r["body"] + r["tags"]).lower() for r in rows)
    html = (await ds.client.get("/seamless/memories?_search=chroma")).text
    assert 'value="chroma"' in html
    notes = await get_json(ds, "/seamless/notes.json?_search=supersession&_shape=array")
    assert notes and all("title" in n for n in notes)


async def test_problems_table_has_facets(ds):
    data = await get_json(ds, "/seamless/problems.json")
    assert {"severity", "code"} <= set(data["facet_results"])


async def test_superseded_by_links_to_successor(ds, example_db):
    old = memory_id(example_db, "chroma-port-8000")
    new = memory_id(example_db, "chroma-port-8001")
    html = (await ds.client.get("/seamless/memories?status=superseded")).text
    assert f'<a href="/seamless/memories/{new}">{new}</a>' in html
    html = (await ds.client.get(f"/seamless/memories/{old}")).text
    assert f'href="/seamless/memories/{new}"' in html


async def test_json_returns_raw_body(ds, example_db):
    old = memory_id(example_db, "chroma-port-8000")
    rows = await get_json(ds, f"/seamless/memories/{old}.json?_shape=array")
    with sqlite3.connect(example_db) as conn:
        body = conn.execute("select body from memories where id = ?", (old,)).fetchone()[0]
    assert rows[0]["body"] == body
    assert "<p>" not in rows[0]["body"]


# --- a memory's page ---


@pytest.fixture
async def lifecycle(store):
    """A store with an active memory, one it superseded, an archived one, and a stage."""
    store.memory(
        "new-truth", description="The port is 8001 now", body="## Now\n\nUse **8001**.", id="01K00000000000000000000NEW"
    )
    store.memory(
        "old-truth",
        description="The port is 8000",
        body="Use 8000.",
        id="01K0000000000000000000PAST",
        invalid_at="2026-08-01T10:00:00Z",
        superseded_by="01K00000000000000000000NEW",
        path="memories/seamless/superseded/old-truth.md",
    )
    store.memory("gone", description="Something no longer relevant", project=None, invalid_at="2026-09-01T12:00:00Z")
    store.memory("launch", kind="stage", body="Status: blocked\nGate: human\n\nWaiting for review.")
    store.memory(
        "oldest-truth",
        description="The port is 7000",
        id="01K0000000000000000000FRST",
        invalid_at="2026-07-01T10:00:00Z",
        superseded_by="01K0000000000000000000PAST",
    )
    store.memory(
        "dangling",
        description="Replaced by something never indexed",
        id="01K0000000000000000000DANG",
        invalid_at="2026-07-01T10:00:00Z",
        superseded_by="01K0000000000000000000GHST",
    )
    store.index()
    return await started(store.db_path)


async def lifecycle_id(ds, name):
    return (await ds.get_database("seamless").execute("select id from memories where name = ?", [name])).first()[0]


async def test_superseded_memory_page(lifecycle):
    response = await lifecycle.client.get("/seamless/memories/01K0000000000000000000PAST")
    assert response.status_code == 200
    html = response.text
    assert '<p class="memory-description">The port is 8000</p>' in html
    assert 'class="banner banner-superseded"' in html
    assert "Superseded on 2026-08-01T10:00:00Z" in html
    assert '<a class="successor" href="/seamless/memories/01K00000000000000000000NEW">new-truth</a>' in html
    assert 'href="/seamless/history?id=01K0000000000000000000PAST"' in html
    assert "project: seamless" in html


async def test_chain_page_shows_the_current_truth(lifecycle):
    html = (await lifecycle.client.get("/seamless/memories/01K0000000000000000000FRST")).text
    assert '<a class="successor" href="/seamless/memories/01K0000000000000000000PAST">old-truth</a>' in html
    assert '<a class="current" href="/seamless/memories/01K00000000000000000000NEW">new-truth</a>' in html
    # one link away, the successor is the current truth: said once
    html = (await lifecycle.client.get("/seamless/memories/01K0000000000000000000PAST")).text
    assert 'class="current"' not in html


async def test_dangling_successor_is_named_not_linked(lifecycle):
    response = await lifecycle.client.get("/seamless/memories/01K0000000000000000000DANG")
    assert response.status_code == 200
    assert "Replaced by <code>01K0000000000000000000GHST</code>, which is not in the index." in response.text
    # nor does its Fields table, the memories table or its history link the id to a page that would be a 404
    for path in (
        "/seamless/memories/01K0000000000000000000DANG",
        "/seamless/memories?name=dangling",
        "/seamless/history?id=01K0000000000000000000DANG",
    ):
        html = (await lifecycle.client.get(path)).text
        assert 'href="/seamless/memories/01K0000000000000000000GHST"' not in html, path
        assert "01K0000000000000000000GHST <em" in html, path
    assert (await lifecycle.client.get("/seamless/memories/01K0000000000000000000GHST")).status_code == 404
    html = (await lifecycle.client.get("/seamless/memories?name=old-truth")).text
    assert '<a href="/seamless/memories/01K00000000000000000000NEW">01K00000000000000000000NEW</a>' in html


async def test_successor_page_has_no_banner_and_renders_body(lifecycle):
    html = (await lifecycle.client.get("/seamless/memories/01K00000000000000000000NEW")).text
    assert "banner" not in html.split("<article", 1)[1].split("</article>")[0].replace('class="memory ', "")
    assert "<h2>Now</h2>" in html and "<strong>8001</strong>" in html


async def test_archived_memory_page(lifecycle):
    html = (await lifecycle.client.get(f"/seamless/memories/{await lifecycle_id(lifecycle, 'gone')}")).text
    assert 'class="banner banner-archived"' in html
    assert "Archived on 2026-09-01T12:00:00Z" in html
    assert ">global</a>" in html


async def test_stage_page_shows_status_and_gate(lifecycle):
    html = (await lifecycle.client.get(f"/seamless/memories/{await lifecycle_id(lifecycle, 'launch')}")).text
    assert "Status: blocked · Gate: human" in html
    assert ">pinned<" in html


async def test_history_link_answers(lifecycle):
    rows = await get_json(lifecycle, "/seamless/history.json?id=01K0000000000000000000PAST&_shape=array")
    assert [r["name"] for r in rows] == ["oldest-truth", "old-truth", "new-truth"]


# --- canned queries ---


async def test_canned_queries_listed_and_read_only(ds):
    queries = {q["name"]: q for q in (await get_json(ds, "/seamless.json"))["queries"]}
    assert set(CANNED) <= set(queries)
    for name in CANNED:
        assert queries[name]["title"] and queries[name]["description"], name
        assert not queries[name].get("write"), name


async def test_canned_queries_use_the_indexer_sql(ds):
    queries = await ds.get_canned_queries("seamless", None)
    for name, sql in QUERIES.items():
        assert queries[name]["sql"] == sql


@pytest.mark.parametrize(
    "name, args",
    [
        ("briefing", "project=seamless&as_of=2026-12-02"),
        ("briefing_ledger", "project=tidepool&as_of=2026-12-02&budget=500"),
        ("recall", "q=chroma&project=seamless"),
        ("history", "id={chroma}"),
        ("gardener", "as_of=2026-12-02"),
        ("problems_overview", ""),
    ],
)
async def test_canned_query_json_array(ds, example_db, name, args):
    args = args.format(chroma=memory_id(example_db, "chroma-port-8000"))
    rows = await get_json(ds, f"/seamless/{name}.json?_shape=array&{args}")
    assert isinstance(rows, list) and rows, name
    html = await ds.client.get(f"/seamless/{name}?{args}")
    assert html.status_code == 200


async def test_briefing_answers_like_the_library(ds, example_db):

    rows = await get_json(ds, "/seamless/briefing.json?project=seamless&as_of=2026-12-02&_shape=array")
    expected = queries.run(example_db, "briefing", project="seamless", as_of="2026-12-02")
    assert [r["id"] for r in rows] == [r["id"] for r in expected]


@pytest.mark.parametrize(
    "path, refused",
    [
        (
            "/seamless/briefing.json?project=seamless&as_of=2026",
            "as_of: '2026' is not an ISO 8601 date",
        ),  # a Julian day to strftime
        (
            "/seamless/briefing_ledger.json?project=seamless&as_of=2026-11-31",
            "as_of: '2026-11-31'",
        ),  # 1 December to strftime
        ("/seamless/gardener.json?as_of=yesterday", "as_of: 'yesterday'"),
        ("/seamless/briefing.json?project=seamless&budget=abc", "budget: 'abc' is not a whole number"),  # 0 to CAST
        ("/seamless/briefing.json?project=seamless&budget=-5", "budget: '-5'"),
        ("/seamless/recall.json?q=chroma&limit=0", "limit: '0' is not a whole number of results"),  # no rows to SQL
        ("/seamless/recall.json?q=chroma&limit=3.5", "limit: '3.5'"),  # 20 rows to SQL
        ("/seamless/briefing.md?project=seamless&as_of=2026", "as_of: '2026'"),
        ("/seamless/briefing?project=seamless&as_of=2026", "as_of: &#39;2026&#39;"),  # the error page, escaped
    ],
)
async def test_a_parameter_the_cli_refuses_is_a_400_that_says_why(ds, path, refused):
    response = await ds.client.get(path)
    assert response.status_code == 400
    assert refused in response.text


async def test_as_of_is_read_as_the_cli_reads_it(ds, example_db):

    # an offset, read as UTC: the SQL gets the same canonical text as `seamless briefing --as-of`
    path = "/seamless/briefing_ledger.json?project=seamless&as_of=2026-12-02T01:00:00%2B02:00&budget=&_shape=array"
    rows = await get_json(ds, path)
    assert {r["as_of"] for r in rows} == {"2026-12-01T23:00:00Z"}
    expected = queries.run(example_db, "briefing_ledger", project="seamless", as_of="2026-12-01T23:00:00Z")
    assert [(r["id"], r["reason"]) for r in rows] == [(r["id"], r["reason"]) for r in expected]


@pytest.mark.parametrize("limit, expected", [("", 20), ("3", 3), ("500", 54)])
async def test_recall_answers_like_the_cli_20_unless_asked(ds, example_db, limit, expected):
    # `the` matches 47 active memories (and 6 invalid ones) and 7 notes: more than 20, fewer than the cap of 100

    rows = await get_json(ds, f"/seamless/recall.json?q=the&limit={limit}&_shape=array")
    cli = queries.recall(example_db, "the", limit=int(limit or queries.RECALL_DEFAULT))
    assert len(rows) == expected
    assert [(r["type"], r["id"]) for r in rows] == [(r["type"], r["id"]) for r in cli]


async def test_recall_links_memories_and_notes(ds):
    html = (await ds.client.get("/seamless/recall?q=supersession")).text
    assert 'href="/seamless/memories/' in html
    assert 'href="/seamless/notes/notes' in html


async def test_recall_snippets_are_escaped_text_with_the_matches_highlighted(ds):
    html = (await ds.client.get("/seamless/recall?q=supersession")).text
    cells = html.split('<p class="result-snippet">')[1:]  # the recall page's results (test_pages.py)
    cells = [cell.split("</p>")[0] for cell in cells]
    # a snippet is of the body: a match only in the name or description leaves it unmarked
    assert any("<mark>supersession</mark>" in cell.lower() for cell in cells)
    rows = await get_json(ds, "/seamless/recall.json?q=supersession&_shape=array")
    assert any(row["highlights"] for row in rows)  # the API gives the spans of the matches (test_snippets.py)


async def test_recall_page_asks_in_plain_words_and_shows_what_each_result_matched(ds):
    html = (await ds.client.get("/seamless/recall?q=what+port+does+chroma+listen+on%3F")).text
    assert 'name="as_of"' in html and 'name="all"' in html  # as of a time, every word
    matched = [cell.split("</p>")[0] for cell in html.split('<p class="result-matched">')[1:]]
    assert matched and all("<mark>chroma</mark>" in cell or "<mark>port</mark>" in cell for cell in matched)
    assert "<mark>what</mark>" not in html  # a question word is not a term


async def test_recall_page_says_why_text_without_a_word_finds_nothing(ds):
    html = (await ds.client.get("/seamless/recall?q=%3F%3F%3F")).text
    assert "nothing to search for in &#39;???&#39;: recall searches words and numbers" in html
    assert await get_json(ds, "/seamless/recall.json?q=%3F%3F%3F&_shape=array") == []


async def test_recall_as_of_searches_what_the_store_believed_then(ds, example_db):
    then = await get_json(ds, "/seamless/recall.json?q=chroma+port&as_of=2026-05-01&limit=3&_shape=array")
    assert then[0]["name"] == "chroma-port-8765"  # valid from April to July
    now = await get_json(ds, "/seamless/recall.json?q=chroma+port&limit=3&_shape=array")
    assert "chroma-port-8765" not in [r["name"] for r in now]
    bad = await ds.client.get("/seamless/recall.json?q=chroma&as_of=2026-13-01")
    assert bad.status_code == 400
    assert (await ds.client.get("/seamless/recall.json?q=chroma&all=maybe")).status_code == 400


@pytest.mark.parametrize(
    "view, linked",
    [
        ("active_memories", ["id"]),
        ("briefings", ["id"]),
        ("supersession_history", ["chain_id", "id", "current_id"]),
        ("gardener_proposals", ["id"]),
    ],
)
async def test_the_sql_views_link_each_memory_to_its_page(ds, view, linked):
    html = (await ds.client.get(f"/seamless/{view}?_size=5")).text
    for column in linked:
        cells = [c.split("</td>")[0] for c in html.split(f'class="col-{column} ')[1:]]
        assert cells and all('<a href="/seamless/memories/' in c for c in cells), (view, column)


async def test_the_active_memories_view_renders_bodies(ds):
    html = (await ds.client.get("/seamless/active_memories?_size=3")).text
    assert html.count('<div class="md-body">') == 3


@pytest.mark.parametrize("path", ["/seamless/briefing", "/seamless/memories", "/seamless"])
async def test_nothing_can_be_posted(ds, path):
    response = await ds.client.post(path, data={"project": "seamless", "sql": "delete from memories"})
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"


# --- the briefing as markdown ---


async def test_briefing_markdown(ds, example_db):

    response = await ds.client.get("/seamless/briefing.md?project=seamless&as_of=2026-12-02")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    text = response.text
    assert text.startswith("# Briefing: seamless\n")
    expected = queries.run(example_db, "briefing", project="seamless", as_of="2026-12-02")
    lines = [line for line in text.splitlines() if line.startswith("- [")]
    assert len(lines) == len(expected)
    assert lines[0] == f"- [{expected[0]['kind']}] {expected[0]['name']}: {expected[0]['description']}"


async def test_briefing_markdown_is_linked_from_the_briefing_page(ds):
    html = (await ds.client.get("/seamless/briefing?project=seamless")).text
    assert 'href="/seamless/briefing.md?project=seamless' in html


async def test_markdown_only_for_the_briefing(ds):
    assert (await ds.client.get("/seamless/memories.md")).status_code == 404
    assert (await ds.client.get("/seamless/recall.md?q=x")).status_code == 404


# --- read-only ---


async def test_ad_hoc_select_allowed(ds):
    rows = await get_json(ds, "/seamless.json?sql=select+count(*)+as+n+from+memories&_shape=array")
    assert rows[0]["n"] > 0


@pytest.mark.parametrize(
    "sql",
    [
        "delete from memories",
        "update memories set name = 'x'",
        "insert into settings (key, value) values ('x', 1)",
        "drop table memories",
        "pragma query_only = 0",
    ],
)
async def test_ad_hoc_writes_refused(ds, example_db, sql):
    before = sqlite3.connect(example_db).execute("select count(*) from memories").fetchone()[0]
    response = await ds.client.get("/seamless.json?" + urllib.parse.urlencode({"sql": sql}))
    assert response.status_code == 400
    assert sqlite3.connect(example_db).execute("select count(*) from memories").fetchone()[0] == before


async def test_write_connection_refuses_writes(ds):
    """Even a plugin's write through Datasette's write connection fails: query_only on every connection."""
    with pytest.raises(sqlite3.OperationalError, match=r"readonly|query_only"):
        await ds.get_database("seamless").execute_write("delete from settings")


async def test_reads_go_through_a_memory_map(ds):
    # many whole rows (views, facets, searches) read faster mapped than with a read() per page
    mmap_size = await ds.get_database("seamless").execute_fn(
        lambda conn: conn.execute("pragma mmap_size").fetchone()[0]
    )
    assert mmap_size == queries.MMAP_BYTES > 0


async def test_slow_query_is_interrupted(ds):
    sql = "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n"
    response = await ds.client.get("/seamless.json?" + urllib.parse.urlencode({"sql": sql}))
    assert response.status_code == 400
    assert "interrupted" in response.text.lower() or "time limit" in response.text.lower()


async def test_allow_sql_false_turns_sql_off(example_db):
    ds = build_datasette(example_db)
    ds._metadata_local["allow_sql"] = False  # as if uncommented in metadata.yml
    await ds.invoke_startup()
    assert (await ds.client.get("/seamless.json?sql=select+1")).status_code == 403
    assert (await ds.client.get("/seamless/briefing.json?project=seamless")).status_code == 200


async def test_reindex_seen_without_restart(store):
    store.memory("first")
    store.index()
    ds = await started(store.db_path)
    assert len(await get_json(ds, "/seamless/memories.json?_shape=array")) == 1
    store.memory("second")
    store.index()
    assert len(await get_json(ds, "/seamless/memories.json?_shape=array")) == 2
    store.index(full=True)  # drops and recreates the FTS tables
    assert len(await get_json(ds, "/seamless/memories.json?_search=second&_shape=array")) == 1


def test_serve_binds_localhost_by_default(monkeypatch, example_db):
    import uvicorn

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: calls.append(kwargs))
    result = CliRunner().invoke(cli, ["serve", "--db", str(example_db)])
    assert result.exit_code == 0, result.output
    assert calls[0]["host"] == "127.0.0.1" and calls[0]["port"] == 8001
