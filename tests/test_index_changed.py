"""A page drawn while a run changed the index says so (plugins/index_changed.py); one drawn from an unchanged
index never does.

The run is real (`index_store` on the store's files) and lands at a chosen moment of the page: a facet class
registered for the test runs it when Datasette computes the page's facets, after the page's count and rows.
"""

import contextlib

import pytest
from datasette import hookimpl
from datasette.facets import Facet
from datasette.plugins import pm

from indexer.front.serve import build_datasette
from indexer.index import database
from indexer.index.build import index_store
from indexer.sqlite import sqlite3

LINE = "The index changed while this page was drawn"
PAGE = "/seamless/memories.json?_size=max&_facet=kind"


DURING_FACETS: list = []  # callables run when the table page asks for its facets, after its count and rows
BEFORE_ROWS: list = []  # callables run when the table page reads its filters, before its first query


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


def generation(store) -> int:
    with contextlib.closing(sqlite3.connect(store.db_path)) as conn:
        return database.generation(conn)


async def test_a_run_between_the_count_and_the_facets_is_flagged_on_the_page(explorer, store):
    DURING_FACETS.append(add_memories(store, 3))
    response = await explorer.client.get(PAGE)
    data = response.json()
    kinds = {f["value"]: f["count"] for f in data["facet_results"]["kind"]["results"]}
    # the page mixes two states of the index: count and rows from before the run, the kind facet from after it
    assert data["filtered_table_rows_count"] == len(data["rows"]) == 4
    assert kinds == {"gotcha": 4, "decision": 3}
    assert data["index_changed"] is True and response.headers["seamless-index-changed"] == "1"

    DURING_FACETS.append(add_memories(store, 1))  # another run (the file during-0 is rewritten)
    html = (await explorer.client.get(PAGE.replace(".json", ""))).text
    assert LINE in html and 'class="index-changed"' in html
    assert "seamless-index-changed" not in (await explorer.client.get(PAGE)).headers  # drawn again: one index


async def test_other_shapes_of_json_carry_the_header(explorer, store):
    """An array of rows has no place for the flag: the header says it (a run before the rows, which have no facets)."""
    BEFORE_ROWS.append(add_memories(store, 2))
    response = await explorer.client.get("/seamless/memories.json?_shape=array")
    assert len(response.json()) == 6 and response.headers["seamless-index-changed"] == "1"
    assert not BEFORE_ROWS  # it ran


async def test_an_unchanged_index_never_shows_the_line(explorer, store):
    """Nothing runs, then a no-op run and a run over touched files (same bytes) land in the middle of the page:
    the content is the same, so is the generation, and no page says it changed."""
    before = generation(store)

    def noop():
        assert index_store(store.root, store.db_path).mode == "no-op"

    def touched():
        for path in (store.root / "memories").rglob("*.md"):
            path.touch()
        assert index_store(store.root, store.db_path).files_changed == 0

    for during in (None, noop, touched):
        if during:
            DURING_FACETS.append(during)
        response = await explorer.client.get(PAGE)
        assert "index_changed" not in response.json() and "seamless-index-changed" not in response.headers
        assert LINE not in (await explorer.client.get(PAGE.replace(".json", ""))).text
        assert not DURING_FACETS  # it ran
    for path in ("/", "/seamless/memories", "/-/life", "/seamless/problems", "/seamless/briefing?project=seamless"):
        assert LINE not in (await explorer.client.get(path)).text, path
    assert generation(store) == before


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
