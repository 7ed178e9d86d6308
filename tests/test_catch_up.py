"""The index brought in step quickly for the session-start hook (indexer/index/catch_up.py): a large store is
looked at folder by folder, only where a folder changed since the last walk, and each folder looked into once."""

import os

import pytest

from indexer.index import catch_up as module
from indexer.sqlite import sqlite3

OLD = 1_767_225_600_000_000_000  # 2026-01-01


def runs(store) -> int:
    return store.rows("select count(*) from index_runs")[0][0]


def caught(store):
    with sqlite3.connect(f"{store.db_path.as_uri()}?mode=ro", uri=True) as conn:
        return module.catch_up(conn, store.root, store.db_path)


@pytest.fixture
def large(briefed, monkeypatch):
    """The `briefed` store, looked at as a large one is; its files older than a run's racy window (build.RACY_NS),
    so that the index trusts their times."""
    monkeypatch.setattr(module, "SMALL_FILES", 0)
    for path in briefed.root.rglob("*.md"):
        os.utime(path, ns=(OLD, OLD))
    briefed.index()
    # the folders were made in the second the walk started: looked into once (nothing differs), then not again
    assert caught(briefed).state == "in-step"
    return briefed


def test_a_large_store_is_looked_at_only_in_the_folders_changed_since_the_last_walk(large):
    before = runs(large)
    found = caught(large)
    assert (found.state, found.paths) == ("in-step", []) and found.unchecked_since
    assert runs(large) == before  # nothing changed since the walk: nothing is written
    large.memory("boot-race", description="Boot race: wait")  # a file created: its folder's ctime moves
    large.memory("tide-table", project="tidepool")  # a new project folder: memories/ moves
    (large.root / "memories/console/console-port.md").unlink()
    found = caught(large)
    assert found.state == "caught-up"
    assert found.paths == [
        "memories/console/console-port.md",
        "memories/seamless/boot-race.md",
        "memories/tidepool",
    ]
    assert large.rows("select name from memories order by name") == [
        ("boot-race",), ("chroma-port",), ("no-secrets",), ("tide-table",)
    ]  # fmt: skip
    # each folder looked into is remembered: the next hook looks into none, and writes nothing
    after = runs(large)
    again = caught(large)
    assert (again.state, again.paths, runs(large)) == ("in-step", [], after)


def test_an_edit_in_place_in_a_large_store_is_left_to_the_watcher_and_said(large):
    chroma = large.root / "memories/seamless/chroma-port.md"
    chroma.write_text(chroma.read_text().replace("8000", "8001"))
    found = caught(large)
    assert found.state == "in-step" and found.unchecked_since  # the hook says edits in place are not looked for


def test_more_changed_files_than_it_may_index_leave_the_index_behind(large, monkeypatch):
    monkeypatch.setattr(module, "MAX_PATHS", 2)
    for n in range(3):
        large.memory(f"rule-{n}", kind="constraint")
    found = caught(large)
    assert (found.state, found.why) == ("behind", "more than 2 files changed") and len(found.paths) == 3
    assert not large.rows("select 1 from memories where name like 'rule-%'")
