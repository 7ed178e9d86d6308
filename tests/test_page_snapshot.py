"""A page reads the index from one snapshot (plugins/page_snapshot.py): its count, its rows and its facets agree
even when a run commits while it is drawn, and the next page sees the run.

The runs are real (`index_store` on the store's files). In the first tests a run lands at a chosen moment of the
page: a facet class registered for the test runs it when Datasette computes the page's facets, after the page's
count and rows. The last test is the red team's: a real `seamless serve` answering rounds of requests at once
while runs commit as fast as they can.
"""

import contextlib
import json
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from datasette import hookimpl
from datasette.facets import Facet
from datasette.plugins import pm
from test_served import Server

from indexer.front.serve import build_datasette
from indexer.index import database
from indexer.index.build import index_store
from indexer.sqlite import sqlite3

PAGE = "/seamless/memories.json?_size=max&_facet=kind"

DURING_FACETS: list = []  # callables run when the table page asks for its facets, after its count and rows
BEFORE_ROWS: list = []  # callables run when the table page reads its filters, before its rows and count


class RunDuringFacets(Facet):
    """Runs the first of DURING_FACETS (one per page) when Datasette asks for this page's facets."""

    type = "run_during_facets"

    async def suggest(self):
        return []

    async def facet_results(self):
        if DURING_FACETS:
            DURING_FACETS.pop(0)()
        return [], []


class Plugin:
    @hookimpl
    def register_facet_classes(self):
        return [RunDuringFacets]

    @hookimpl
    def filters_from_request(self):
        if BEFORE_ROWS:
            BEFORE_ROWS.pop(0)()


@pytest.fixture
async def explorer(store):
    for n in range(4):
        store.memory(f"before-{n}")
    store.index()
    ds = build_datasette(store.db_path)
    await ds.invoke_startup()
    pm.register(Plugin(), name="run_during_facets")
    try:
        yield ds
    finally:
        pm.unregister(name="run_during_facets")
        DURING_FACETS.clear()
        BEFORE_ROWS.clear()


def add_memories(store, count: int):
    def run():
        for n in range(count):
            store.memory(f"during-{n}", kind="decision")
        assert index_store(store.root, store.db_path).files_changed == count

    return run


def kinds(data: dict) -> dict[str, int]:
    return {f["value"]: f["count"] for f in data["facet_results"]["kind"]["results"]}


async def test_a_run_between_the_count_and_the_facets_is_not_on_the_page(explorer, store):
    DURING_FACETS.append(add_memories(store, 3))
    data = (await explorer.client.get(PAGE)).json()
    assert not DURING_FACETS  # it ran, after the count and the rows, before the facets
    # count, rows and facets all describe the index before the run
    assert data["filtered_table_rows_count"] == len(data["rows"]) == 4 and kinds(data) == {"gotcha": 4}
    data = (await explorer.client.get(PAGE)).json()  # the next page sees the run
    assert data["filtered_table_rows_count"] == len(data["rows"]) == 7 and kinds(data) == {"gotcha": 4, "decision": 3}


async def test_every_shape_of_the_page_agrees_with_itself(explorer, store):
    """A run while Datasette reads the page's filters, and one during its facets: the HTML and an array of rows."""
    BEFORE_ROWS.append(add_memories(store, 2))
    rows = (await explorer.client.get("/seamless/memories.json?_shape=array")).json()
    assert not BEFORE_ROWS and len(rows) in (4, 6)  # the run landed before the page's first query or after it
    DURING_FACETS.append(add_memories(store, 3))  # during-0 and during-1 are rewritten, during-2 is new
    html = (await explorer.client.get(PAGE.replace(".json", ""))).text
    assert not DURING_FACETS and "6 rows" in html
    assert 'kind=decision">decision</a> 2<' in html  # the kind facet counts the 6 rows: not during-2
    assert "7 rows" in (await explorer.client.get("/seamless/memories")).text


async def test_a_page_holds_its_read_only_while_it_is_drawn(explorer, store):
    """A checkpoint that must wait for every reader is kept waiting by a page being drawn, never by one drawn."""

    def checkpoint() -> int:  # 1: a reader still holds a snapshot the checkpoint cannot pass
        with contextlib.closing(sqlite3.connect(store.db_path, timeout=0)) as conn:  # busy: answer at once
            store.memory("written-meanwhile")
            assert index_store(store.root, store.db_path).files_changed == 1
            return conn.execute("pragma wal_checkpoint(truncate)").fetchone()[0]

    during = []
    DURING_FACETS.append(lambda: during.append(checkpoint()))
    for _ in range(3):
        assert (await explorer.client.get(PAGE)).status_code == 200
    assert during == [1]
    assert checkpoint() == 0  # three pages drawn: none holds its read any longer


def generation(store) -> int:
    with contextlib.closing(sqlite3.connect(store.db_path)) as conn:
        return conn.execute(database.GENERATION).fetchone()[0]


def test_each_run_that_changes_the_index_counts_one_generation(store):
    store.memory("one")
    store.index()
    assert generation(store) == 1
    assert store.index().mode == "no-op" and generation(store) == 1
    store.memory("two")
    store.index()
    assert generation(store) == 2
    (store.root / "memories/seamless/two.md").unlink()
    store.index()
    assert generation(store) == 3
    store.index(full=True)
    assert generation(store) == 4


# --- the red team's round ---

STEADY, CHURN = 200, 50  # the store holds 200 memories, or 250 while a run has added 50 more
ROUNDS, AT_ONCE = 30, 25
RED_TEAM_PAGE = f"/seamless/memories.json?_size=max&_col=name&_facet=status&_facet_size={STEADY + CHURN}"


def churn(store, stop: threading.Event, commits: list) -> None:
    """Add 50 memories and index them, take them away and index again, until stopped: a commit every run."""
    churned = [store.root / f"memories/seamless/churn-{n}.md" for n in range(CHURN)]
    while not stop.is_set():
        for n in range(CHURN):
            store.memory(f"churn-{n}", id=f"01K{'0' * 19}X{n:03d}")
        index_store(store.root, store.db_path)
        commits.append(STEADY + CHURN)
        for path in churned:
            path.unlink()
        index_store(store.root, store.db_path)
        commits.append(STEADY)


def test_under_writes_every_page_counts_the_rows_it_shows(store, tmp_path):
    """The red team's round: 25 requests at once for the whole memories table (its count, rows and a facet) while
    runs add and take away 50 of its 250 memories. Before each page read one snapshot, 1 round in 5 had a page whose
    count and rows disagreed (count 200, 250 rows). If one round in five still failed, 30 passing rounds in a row
    would happen with probability (4/5)^30 = 0.12%: this test fails, except about one time in 800."""
    for n in range(STEADY):
        store.memory(f"steady-{n}")
    store.index()
    server = Server(store.db_path, tmp_path / "serve.log")
    url = server.url + RED_TEAM_PAGE
    stop, commits = threading.Event(), []
    writer = threading.Thread(target=churn, args=(store, stop, commits))

    def page(_) -> tuple[int, int, int]:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = json.load(response)
        statuses = sum(f["count"] for f in data["facet_results"]["status"]["results"])
        return data["filtered_table_rows_count"], len(data["rows"]), statuses

    writer.start()
    try:
        with ThreadPoolExecutor(AT_ONCE) as pool:
            rounds = [list(pool.map(page, range(AT_ONCE))) for _ in range(ROUNDS)]
    finally:
        stop.set()
        writer.join()
        server.stop()
    mixed = [(r, p) for r, pages in enumerate(rounds) for p in pages if len(set(p)) > 1]
    assert mixed == [], f"pages whose (count, rows, status facet) disagree, by round: {mixed}"
    seen = {count for pages in rounds for count, _, _ in pages}
    assert seen == {STEADY, STEADY + CHURN} and len(commits) >= ROUNDS  # the runs committed while pages were drawn
