"""Incremental runs: unchanged files skipped, edits, deletes and renames applied, same tables as --full."""

import os
import time
from pathlib import Path

import pytest
from stores import dump, generate_store, mutate_store

from indexer.index import writer
from indexer.index.build import RACY_NS, index_store
from indexer.sqlite import sqlite3
from indexer.store import settings


def full_dump(store, tmp_path) -> dict:
    """The tables a from-scratch --full rebuild of the same store gives."""
    fresh = tmp_path / "fresh.db"
    index_store(store.root, fresh, full=True)
    return dump(fresh)


def populate(store):
    store.memory(
        "chroma-boot-race", description="Chroma: wait for the heartbeat before the first query", tags=["chroma", "boot"]
    )
    store.memory(
        "old-port",
        tags=["chroma", "ports"],
        id="01K0000000000000000000A1D0",
        description="Chroma listens on 8000",
        invalid_at="2026-08-01T00:00:00Z",
        superseded_by="01K000000000000000000NEW00",
    )
    store.memory(
        "new-port",
        id="01K000000000000000000NEW00",
        description="Chroma listens on 8001",
        created="2026-08-01T00:00:00Z",
        updated="2026-08-01T00:00:00Z",
    )
    store.memory("global-rule", project=None, kind="constraint", description="Never force-push main")
    store.note("seamless/research.md", "# Vector stores compared\n\nChroma against pgvector.\n")
    store.write("memories/seamless/broken.md", "---\nkind: [\n---\n")


def test_incremental_edits_deletes_and_renames_match_full_rebuild(store, tmp_path):
    populate(store)
    store.index()
    # edit one, add one, delete one, rename one, break one, fix the broken one
    store.memory(
        "chroma-boot-race",
        id="01K0000000000000000000000Z",
        description="Chroma: retry the first query until the heartbeat answers",
    )
    os.remove(store.root / "memories/seamless/chroma-boot-race.md")
    store.memory(
        "retry-first-query",
        id="01K0000000000000000000000Z",
        description="Chroma: retry the first query until the heartbeat answers",
        tags=["chroma", "retry"],
    )
    store.memory("brand-new", description="Celery: set acks_late for idempotent tasks only", tags=["celery"])
    os.rename(store.root / "memories/_global/global-rule.md", store.root / "memories/_global/no-force-push.md")
    os.remove(store.root / "notes/seamless/research.md")
    store.write("memories/seamless/broken.md", "---\nkind: gotcha\n---\nno id\n")
    summary = store.index()
    assert summary.mode == "incremental"
    tables = dump(store.db_path)
    assert tables == full_dump(store, tmp_path)
    assert tables["memory_tags"] == tables["memory_tags_of_memories"]  # the tags facet's rows, kept in step
    assert ("01K0000000000000000000000Z", "retry") in tables["memory_tags"]
    assert ("01K0000000000000000000000Z", "boot") not in tables["memory_tags"]


def test_a_renamed_file_keeps_its_id(store):
    meta = store.memory("rename-me", description="Postgres: VACUUM FULL locks the table")
    store.index()
    os.rename(store.root / "memories/seamless/rename-me.md", store.root / "memories/seamless/renamed.md")
    store.index()
    assert store.rows("select id, path from memories") == [(meta["id"], "memories/seamless/renamed.md")]


def test_a_no_op_run_changes_nothing(store):
    populate(store)
    store.index()
    before = dump(store.db_path)
    summary = store.index()
    assert (summary.mode, summary.files_changed, summary.files_deleted) == ("no-op", 0, 0)
    assert dump(store.db_path) == before


def test_a_touched_but_unchanged_file_is_not_reparsed(store):
    populate(store)
    store.index()
    path = store.root / "memories/seamless/chroma-boot-race.md"
    os.utime(path, ns=(1, 1))
    summary = store.index()
    assert summary.files_changed == 0
    assert store.rows("select mtime_ns from index_files where path = 'memories/seamless/chroma-boot-race.md'") == [(1,)]


def test_deleting_the_winner_of_a_duplicate_indexes_the_other(store, tmp_path):
    store.memory("first", id="01K00000000000000000000D0P", created="2026-07-01T00:00:00Z")
    store.memory("second", id="01K00000000000000000000D0P", created="2026-07-02T00:00:00Z")
    store.index()
    assert store.rows("select name from memories") == [("first",)]
    os.remove(store.root / "memories/seamless/first.md")
    store.index()
    assert store.rows("select name from memories") == [("second",)]
    assert store.rows("select * from problems") == []
    assert dump(store.db_path) == full_dump(store, tmp_path)


def test_the_loser_of_a_duplicate_is_not_read_again_when_nothing_changed(store):
    store.memory("first", id="01K00000000000000000000D0P", created="2026-07-01T00:00:00Z")
    store.memory("second", id="01K00000000000000000000D0P", created="2026-07-02T00:00:00Z")
    store.index()  # both files are too recent to trust: the next run reads them and finds the same hashes
    summary = store.index()
    assert (summary.mode, summary.files_changed) == ("no-op", 0)


def test_a_new_earlier_file_takes_the_id_from_an_indexed_one(store, tmp_path):
    store.memory("later", id="01K00000000000000000000D0P", created="2026-07-02T00:00:00Z")
    store.index()
    store.memory("earlier", id="01K00000000000000000000D0P", created="2026-07-01T00:00:00Z")
    store.index()
    assert store.rows("select name from memories") == [("earlier",)]
    assert store.rows("select path, code from problems") == [("memories/seamless/later.md", "duplicate-id")]
    assert dump(store.db_path) == full_dump(store, tmp_path)


def test_a_loser_edited_to_lose_again_lets_the_other_loser_win(store, tmp_path):
    """Both files lost a contest: `a` its name to `c`, `b` its id to `a`. Edited so that only the id is
    shared, and later than `b`, `a` must now lose the id: `b` is read again because `a` changed."""
    shared = "01K00000000000000000000D0P"
    store.memory("taken", path="memories/seamless/a.md", id=shared)
    store.memory("port", path="memories/seamless/b.md", id=shared)
    store.memory("taken", path="memories/console/c.md")
    store.index()
    assert store.rows("select path, code from problems order by path") == [
        ("memories/seamless/a.md", "duplicate-name"),
        ("memories/seamless/b.md", "duplicate-id"),
    ]
    store.memory("port", path="memories/seamless/a.md", id=shared, created="2026-07-11T18:00:00Z")
    store.index()
    assert store.rows("select path, code from problems") == [("memories/seamless/a.md", "duplicate-id")]
    assert dump(store.db_path) == full_dump(store, tmp_path)


def test_settings_changes_reach_the_settings_table(store):
    populate(store)
    store.index()
    store.write("seamless.toml", "[briefing]\nbudget_chars = 1200\n")
    summary = store.index()
    assert summary.mode == "incremental"
    assert store.rows("select value from settings where key = 'briefing.budget_chars'") == [(1200,)]


def test_seamless_toml_is_parsed_again_only_when_its_bytes_or_the_defaults_differ(store, monkeypatch):
    populate(store)
    store.write("seamless.toml", "[briefing]\nbudget_chars = 1200\nnonsense = 1\n")
    store.index()
    warned = store.rows("select code from problems where path = 'seamless.toml'")
    assert warned == [("unknown-setting",)]
    store.write("seamless.toml", "[briefing]\nbudget_chars = 1200\nnonsense = 1\n# a comment changes no setting\n")
    assert store.index().mode == "no-op"  # read again, the same settings and problems: nothing to judge again
    assert store.index().mode == "no-op"  # (and now known as read: not parsed at all)
    assert store.rows("select code from problems where path = 'seamless.toml'") == warned
    # a release with other defaults finds the settings changed though the file is the same
    monkeypatch.setitem(settings.DEFAULTS, "briefing.max_age_days", 90)
    assert store.index().mode == "incremental"
    assert store.rows("select value from settings where key = 'briefing.max_age_days'") == [(90,)]


def test_each_run_is_recorded(store):
    populate(store)
    store.index()
    store.index()
    runs = store.rows("select mode, files_seen, memories, errors from index_runs order by id")
    assert runs == [("full", 6, 4, 1), ("no-op", 6, 4, 1)]


def test_an_index_from_before_schema_3_loses_its_fts_triggers_and_stays_in_step(store, tmp_path):
    """Schema 2 kept FTS in step with triggers; the indexer now does it itself, so they must go."""
    populate(store)
    store.index()
    with sqlite3.connect(store.db_path) as conn:  # put back what sqlite-utils' enable_fts created
        conn.execute(
            "create trigger memories_ai after insert on memories begin insert into memories_fts "
            "(rowid, name, description, tags, body) values (new.rowid, new.name, new.description, "
            "new.tags, new.body); end"
        )
        conn.execute("pragma user_version = 2")
    store.memory("brand-new", description="Celery: set acks_late for idempotent tasks only")
    assert store.index().mode == "full"  # an older indexer's index is read again in full, in place
    with sqlite3.connect(store.db_path) as conn:
        assert conn.execute("select name from sqlite_master where type = 'trigger'").fetchall() == []
        assert conn.execute("pragma user_version").fetchone()[0] >= 3
    assert dump(store.db_path) == full_dump(store, tmp_path)  # a trigger left behind would index twice


def test_an_index_made_by_an_older_indexer_is_read_again_in_full(store, tmp_path):
    """Its rows and problems followed older rules: unchanged files must not keep them."""
    from indexer.index.database import SCHEMA_VERSION

    populate(store)
    store.index()
    with sqlite3.connect(store.db_path) as conn:  # as an indexer that kept repeated tags would have left it
        conn.execute("""update memories set tags = '["chroma", "chroma"]'""")
        conn.execute(f"pragma user_version = {SCHEMA_VERSION - 1}")
    assert store.index().mode == "full"
    assert store.rows("""select count(*) from memories where tags = '["chroma", "chroma"]'""") == [(0,)]
    assert dump(store.db_path) == full_dump(store, tmp_path)
    assert store.index().mode == "no-op"


def test_an_index_from_before_schema_16_gets_the_briefing_walks_index_instead_of_its_old_one(store):
    populate(store)
    store.index()
    with sqlite3.connect(store.db_path) as conn:  # as schema 15 left it
        conn.execute("drop index memories_project_newest")
        conn.execute("create index memories_project_updated on memories (project, updated)")
        conn.execute("pragma user_version = 15")
    store.index()
    assert store.rows("select name from sqlite_master where name glob 'memories_project_*' order by name") == [
        ("memories_project_newest",),
        ("memories_project_pinned",),
    ]


def test_an_index_from_schema_17_gets_the_facets_indexes_and_memory_tags_filled_by_a_full_run(store, tmp_path):
    populate(store)
    store.index()
    with sqlite3.connect(store.db_path) as conn:  # as schema 17 (conflict-markers) left it
        conn.execute("drop index memories_model")
        conn.execute("drop index memories_stage_status")
        conn.execute("drop table memory_tags")
        conn.execute("pragma user_version = 17")
    assert store.index().mode == "full"  # memory_tags is filled from every memory, as a new index's
    facets = "select name from sqlite_master where name in ('memories_model', 'memories_stage_status') order by name"
    assert store.rows(facets) == [("memories_model",), ("memories_stage_status",)]
    tables = dump(store.db_path)
    assert tables == full_dump(store, tmp_path)
    assert tables["memory_tags"] == tables["memory_tags_of_memories"] != []
    assert store.index().mode == "no-op"


def age(store, hours: int = 1) -> None:
    """Give every store file an mtime `hours` ago, well outside the window where mtimes are not trusted."""
    then = time.time_ns() - hours * 3600 * 10**9
    for path in store.root.rglob("*.md"):
        os.utime(path, ns=(then, then))


def fingerprints(store) -> dict:
    return dict(store.rows("select folder, walk is not null from index_folders"))


def test_a_folder_with_a_file_too_recent_to_trust_keeps_no_fingerprint(store):
    populate(store)
    age(store)
    store.memory("brand-new", description="Celery: set acks_late for idempotent tasks only")  # just now
    store.index()
    assert fingerprints(store) == {"memories/_global": 1, "memories/seamless": 0, "notes/seamless": 1}
    age(store)
    store.index()
    assert fingerprints(store) == {"memories/_global": 1, "memories/seamless": 1, "notes/seamless": 1}


def test_files_dated_in_the_future_are_trusted_once_they_changed_long_enough_ago(store):
    """Files copied from a machine whose clock is ahead (or `touch -d tomorrow`): their ctime, which only the
    system sets, says when they changed; once that is past the window, no run reads them again."""
    populate(store)
    future = time.time_ns() + 86400 * 10**9
    for path in store.root.rglob("*.md"):
        os.utime(path, ns=(future, future))
    store.index()
    time.sleep(RACY_NS / 1e9 + 0.1)  # their ctimes leave the window; their mtimes never would
    store.index()  # reads them again once (they were too recent then), finds them the same and trusts them
    assert set(store.rows("select distinct mtime_ns from index_files")) == {(future,)}
    assert set(fingerprints(store).values()) == {1}
    assert store.index().mode == "no-op"


def test_the_remembered_walk_misses_no_edit_delete_addition_or_settings_change(store, tmp_path):
    populate(store)
    age(store)
    store.index()
    assert store.index().mode == "no-op"
    changes = [
        lambda: store.memory("chroma-boot-race", description="Chroma: retry until the heartbeat answers"),
        lambda: os.remove(store.root / "notes/seamless/research.md"),
        lambda: store.memory("brand-new", description="Celery: set acks_late for idempotent tasks only"),
        lambda: store.memory("nested", path="memories/seamless/deep/er/nested.md"),  # a new folder
        lambda: os.rename(store.root / "memories/seamless/deep/er/nested.md", store.root / "memories/nested.md"),
        lambda: store.write("seamless.toml", "[briefing]\nbudget_chars = 500\n"),
    ]
    for hours, change in enumerate(changes, start=2):
        change()
        age(store, hours)  # old files again, each time with another mtime
        assert store.index().mode == "incremental"
        assert dump(store.db_path) == full_dump(store, tmp_path)
        assert store.index().mode == "no-op"


def test_the_first_run_builds_beside_the_index_and_renames_it_into_place(store, tmp_path):
    populate(store)
    Path(f"{store.db_path}.new").write_bytes(b"half a database from a run killed earlier")
    Path(f"{store.db_path}-wal").write_bytes(b"the log of an index deleted by hand")
    store.index()
    assert not Path(f"{store.db_path}.new").exists()
    with sqlite3.connect(store.db_path) as conn:
        assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert dump(store.db_path) == full_dump(store, tmp_path)


def rowid_order(db_path) -> dict:
    """Which row got which rowid: FTS5 breaks ties between equal ranks by rowid."""
    with sqlite3.connect(db_path) as conn:
        return {
            table: conn.execute(f"select rowid, {key} from {table} order by rowid").fetchall()
            for table, key in (("memories", "id"), ("notes", "path"))
        }


def test_rows_written_in_many_small_batches_make_the_same_index_as_one_batch(tmp_path, monkeypatch):
    # one batch is inserted directly; of many, each is staged, then moved into its table and indexed on the writer
    # thread
    root = generate_store(tmp_path / "store", files=80, seed=5)
    index_store(root, tmp_path / "one.db", full=True)
    monkeypatch.setattr(writer, "BATCH", 3)
    index_store(root, tmp_path / "many.db", full=True)
    assert dump(tmp_path / "many.db") == dump(tmp_path / "one.db")
    assert rowid_order(tmp_path / "many.db") == rowid_order(tmp_path / "one.db")
    # and an incremental run in small batches over edits, deletes and additions
    mutate_store(root, changes=20, seed=6)
    index_store(root, tmp_path / "many.db")
    index_store(root, tmp_path / "fresh.db", full=True)
    assert dump(tmp_path / "many.db") == dump(tmp_path / "fresh.db")


def test_an_error_on_the_writer_thread_fails_the_run_and_leaves_the_index_as_it_was(tmp_path, monkeypatch):
    root = generate_store(tmp_path / "store", files=30, seed=7)
    index_store(root, tmp_path / "index.db", full=True)
    before = dump(tmp_path / "index.db")
    monkeypatch.setattr(writer, "BATCH", 3)

    def failing(conn, after):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(writer, "_move_batch", failing)
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        index_store(root, tmp_path / "index.db", full=True)
    assert dump(tmp_path / "index.db") == before


def test_a_new_size_limit_judges_every_file_again(store):
    store.memory("chroma-boot-race", body="Wait for the heartbeat. " * 20)  # about 700 bytes
    store.index()
    store.write("seamless.toml", "[index]\nmax_file_bytes = 300\n")
    summary = store.index()
    assert summary.mode == "full"
    assert store.rows("select count(*) from memories") == [(0,)]
    assert store.rows("select path, code from problems") == [("memories/seamless/chroma-boot-race.md", "too-large")]
    os.remove(store.root / "seamless.toml")  # back to the default limit: the same file is indexed again
    store.index()
    assert store.rows("select name from memories") == [("chroma-boot-race",)]
    assert store.rows("select count(*) from problems") == [(0,)]


def test_two_files_swapped_by_renames_are_seen_though_sizes_and_mtimes_match(store, tmp_path):
    # `mv` keeps mtimes, and files from tar, rsync or `cp -p` often share one: only ctime tells
    store.memory("alpha", path="memories/seamless/a.md", id="01K000000000000000000000A1")
    store.memory("bravo", path="memories/seamless/b.md", id="01K000000000000000000000B2")
    age(store)
    store.index()
    folder = store.root / "memories/seamless"
    os.rename(folder / "a.md", folder / "t.md")
    os.rename(folder / "b.md", folder / "a.md")
    os.rename(folder / "t.md", folder / "b.md")
    assert store.index().mode == "incremental"
    assert store.rows("select name, path from memories order by name") == [
        ("alpha", "memories/seamless/b.md"),
        ("bravo", "memories/seamless/a.md"),
    ]
    assert dump(store.db_path) == full_dump(store, tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway, so there is nothing to test")
def test_a_file_made_readable_again_is_indexed_by_the_next_run(store, tmp_path):
    # chmod leaves size and mtime alone: the old verdict (unreadable) must not be kept
    store.memory("locked", path="memories/seamless/locked.md")
    age(store)
    path = store.root / "memories/seamless/locked.md"
    path.chmod(0)
    try:
        store.index()
        assert store.rows("select code from problems") == [("unreadable",)]
    finally:
        path.chmod(0o644)
    store.index()
    assert store.rows("select name from memories") == [("locked",)]
    assert dump(store.db_path) == full_dump(store, tmp_path)
