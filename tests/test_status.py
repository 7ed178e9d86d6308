"""`seamless status`: the store against its index, read-only; exit 1 with the files that differ."""

import hashlib
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from watching import Watching

import indexer.index.status
from indexer.front.cli import cli


def status(store) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["status", str(store.root), "--db", str(store.db_path)])
    return result.exit_code, result.stdout, result.stderr


def fingerprint(db_path: Path) -> str:
    """The bytes of the index and of its write-ahead log (a reader of a WAL index may create it, empty)."""
    digest = hashlib.sha256()
    for suffix in ("", "-wal"):
        path = Path(f"{db_path}{suffix}")
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


@pytest.fixture
def indexed(store):
    for name in ("kept", "edited", "deleted", "touched"):
        store.memory(name)
    store.note("seamless/findings.md", "# Findings\n")
    store.index()
    return store


def test_in_step_exits_0_with_the_last_run_and_no_watcher(indexed):
    code, out, err = status(indexed)
    assert (code, out) == (0, "")
    assert err.startswith("in step; last indexed ")
    assert "(0 s ago, full)" in err or "(1 s ago, full)" in err
    assert "not watching: no watcher has followed this index" in err


def test_drift_is_listed_by_kind_and_exits_1(indexed):
    root = indexed.root
    indexed.memory("added")
    edited = root / "memories/seamless/edited.md"
    edited.write_text(edited.read_text() + "One more line.\n")
    (root / "memories/seamless/deleted.md").unlink()
    (root / "notes/seamless/findings.md").rename(root / "notes/seamless/renamed.md")
    code, out, err = status(indexed)
    assert code == 1
    assert out.splitlines() == [
        "new: memories/seamless/added.md",
        "new: notes/seamless/renamed.md",
        "changed: memories/seamless/edited.md",
        "deleted: memories/seamless/deleted.md",
        "deleted: notes/seamless/findings.md",
    ]
    assert err.startswith("not in step: 2 new, 1 changed, 2 deleted; last indexed ")
    indexed.index()
    assert status(indexed)[0] == 0


def test_a_touched_file_with_the_same_content_is_in_step(indexed):
    os.utime(indexed.root / "memories/seamless/touched.md", ns=(1_700_000_000_000_000_000,) * 2)
    assert status(indexed)[:2] == (0, "")


def test_a_settings_change_is_drift(indexed):
    indexed.write("seamless.toml", "[briefing]\nbudget_chars = 10\n")
    code, out, _ = status(indexed)
    assert code == 1 and "changed: seamless.toml" in out


def test_a_settings_file_whose_problems_changed_is_drift_until_indexed(indexed):
    """An unknown key changes no setting, but the index's warnings: the next run judges the store again."""
    indexed.write("seamless.toml", "[briefing]\nbudget_chars = 6000\nno_such_key = 1\n")
    code, out, _ = status(indexed)
    assert code == 1 and "changed: seamless.toml" in out
    indexed.index()
    assert status(indexed)[0] == 0
    assert indexed.rows("select code from problems where path = 'seamless.toml'") == [("unknown-setting",)]


def test_it_writes_nothing(indexed):
    indexed.memory("added")
    before = fingerprint(indexed.db_path)
    assert status(indexed)[0] == 1
    assert fingerprint(indexed.db_path) == before


def test_no_index_is_a_clear_error(store):
    code, _, err = status(store)
    assert code == 1 and f"no index at {store.db_path}: run `seamless index STORE` first" in err


def test_an_index_of_another_store_is_refused_with_the_command_that_rebuilds_it(indexed, tmp_path):
    other = tmp_path / "other-store"
    (other / "memories").mkdir(parents=True)
    result = CliRunner().invoke(cli, ["status", str(other), "--db", str(indexed.db_path)])
    assert result.exit_code == 1
    assert f"holds the store at {indexed.root.resolve()}, not {other.resolve()}" in result.stderr
    assert f"seamless index {other.resolve()} --db {indexed.db_path} --full" in result.stderr


def test_a_live_watcher_is_named_with_its_heartbeat(indexed):
    with Watching(indexed.root, indexed.db_path) as watcher:
        code, _, err = status(indexed)
    assert code == 0
    assert f"; watching: pid {watcher.process.pid} on " in err and ", heartbeat 20" in err and " s ago)" in err


def test_a_folder_swapped_for_a_symlink_after_the_walk_is_not_read_through(indexed, tmp_path, monkeypatch):
    """The edited file's folder becomes a symlink to a copy holding the indexed text: not followed, so changed."""
    folder = indexed.root / "memories/seamless"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "edited.md").write_bytes((folder / "edited.md").read_bytes())
    (folder / "edited.md").write_text((folder / "edited.md").read_text() + "One more line.\n")
    real_walk = indexer.index.status.walk_folders

    def walk_then_swap(root):
        walked = real_walk(root)
        folder.rename(tmp_path / "moved")
        folder.symlink_to(outside)
        return walked

    monkeypatch.setattr(indexer.index.status, "walk_folders", walk_then_swap)
    code, out, _ = status(indexed)
    assert code == 1
    assert "changed: memories/seamless/edited.md" in out.splitlines()
