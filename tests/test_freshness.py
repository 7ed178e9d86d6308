"""The index's freshness on every explorer page and at /-/freshness.json: a live watcher, or a clear "not watching"."""

import datetime as dt

import pytest
from watching import Watching

from indexer.front.serve import build_datasette
from indexer.sqlite import sqlite3

PAGES = [
    "/",  # the home page (plugins/home_page.py)
    "/-/life",  # the store's life (plugins/store_life.py)
    "/seamless",
    "/seamless/memories",
    "/seamless/memories/01K00000000000000000000001",
    "/seamless/problems",
    "/seamless/briefing?project=seamless",
    "/seamless/recall?q=body",
    "/seamless?sql=select+1",
]


async def started_explorer(db_path):
    """The explorer as `seamless serve` builds it, started inside the test's event loop."""
    ds = build_datasette(db_path)
    await ds.invoke_startup()
    return ds


def heartbeat(db_path, seconds_ago: float, stopped: bool = False) -> None:
    """A watcher's row as it stands `seconds_ago` after its last heartbeat."""
    beat = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=seconds_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    with sqlite3.connect(db_path) as conn:
        conn.execute(
            "insert into index_watch (pid, host, started, heartbeat, stopped) values (4242, 'elsewhere', ?, ?, ?)",
            (beat, beat, beat if stopped else None),
        )


@pytest.fixture
def indexed(store):
    store.memory("a-memory", id="01K00000000000000000000001")
    store.index()
    return store


async def test_every_page_says_not_watching_when_no_watcher_ever_ran(indexed):
    ds = await started_explorer(indexed.db_path)
    for path in PAGES:
        response = await ds.client.get(path)
        assert response.status_code == 200, path
        assert "<strong>Not watching:</strong> no watcher has followed this index" in response.text, path
        assert "Changes to the store after the last index run are" in response.text
    data = (await ds.client.get("/-/freshness.json")).json()
    assert data["watching"] is False and data["last_run_mode"] == "full" and data["watcher_pid"] is None


@pytest.mark.parametrize(
    ("seconds_ago", "stopped", "shown"),
    [
        (3, False, "<strong>Watching:</strong> pid 4242 on elsewhere"),
        (10, False, "<strong>Watching:</strong> pid 4242 on elsewhere"),  # 5 s of margin for a loaded machine
        (16, False, "<strong>Not watching:</strong> the last watcher&#39;s heartbeat was 1"),  # 16 s, or 17 s by now
        (600, False, "<strong>Not watching:</strong> the last watcher&#39;s heartbeat was 10 min ago"),
        (3, True, "<strong>Not watching:</strong> the last watcher stopped at"),
    ],
)
async def test_an_old_heartbeat_reads_as_not_watching(indexed, seconds_ago, stopped, shown):
    heartbeat(indexed.db_path, seconds_ago, stopped)
    ds = await started_explorer(indexed.db_path)
    assert shown in (await ds.client.get("/seamless/memories")).text
    data = (await ds.client.get("/-/freshness.json")).json()
    assert data["watching"] is ("<strong>Watching:" in shown)
    assert data["watcher_host"] == "elsewhere" and data["heartbeat_age"] >= seconds_ago


async def test_a_live_watcher_is_shown_with_its_pid(indexed):
    with Watching(indexed.root, indexed.db_path) as watcher:
        ds = await started_explorer(indexed.db_path)
        page = (await ds.client.get("/seamless")).text
        assert f"<strong>Watching:</strong> pid {watcher.process.pid} on " in page
        assert (await ds.client.get("/-/freshness.json")).json()["watcher_pid"] == watcher.process.pid


async def test_an_index_without_the_heartbeat_table_is_not_shown_as_fresh(indexed):
    with sqlite3.connect(indexed.db_path) as conn:
        conn.execute("drop table index_watch")
    ds = await started_explorer(indexed.db_path)
    page = (await ds.client.get("/seamless/memories")).text
    assert "<strong>Freshness unknown:</strong>" in page and "no such table: index_watch" in page
    assert (await ds.client.get("/-/freshness.json")).json()["watching"] is False
