"""`index_paths`: bringing the index in step for the paths a caller names, as a full rebuild would.

The write path calls it with the files it wrote, the watcher with each batch of changed paths.
Whatever happened to those files (created, edited, renamed, deleted, made duplicates of each
other, broken), the tables must come out equal to a `--full` rebuild of the whole store.
"""

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from stores import assert_accounted_for, dump
from test_properties import IDS, PATHS, SCRATCH, SETTINGS, Files, file_content

from indexer.index import database
from indexer.index.build import index_paths, index_store
from indexer.sqlite import sqlite3

FOLDERS = st.sampled_from(["memories/seamless", "memories/console", "memories/seamless/deep", "notes/seamless"])
# places the walk never looks: index_paths must ignore them too, even when named
IGNORED = st.sampled_from(
    ["memories/seamless/.hidden.md", "memories/.cache/x.md", "memories/seamless/a.txt", "seamless.md", "other/x.md"]
)


@st.composite
def contested_memory(draw) -> bytes:
    """A valid memory drawn from few ids, names and links: duplicates, chains, dangling links, cycles and forks."""
    fields = {
        "id": draw(st.sampled_from(IDS[:3])),
        "kind": "gotcha",
        "name": draw(st.sampled_from(["port-8000", "chroma-boot-race"])),
        "description": "d",
        "project": draw(st.sampled_from(["seamless", "console"])),
        "created": draw(st.sampled_from(["2026-07-10T18:00:00Z", "2026-07-11T18:00:00Z"])),
        "superseded_by": draw(st.sampled_from([None, None, *IDS[:3], "01K0000000000000000000ZZZZ"])),
        "supersedes": draw(st.sampled_from([None, None, *IDS[:3]])),  # agreeing with superseded_by, or a fork
    }
    if fields["superseded_by"]:
        fields["invalid_at"] = "2026-07-12T00:00:00Z"
    return ("---\n" + "".join(f"{k}: {v}\n" for k, v in fields.items() if v) + "---\nBody.\n").encode()


content = st.one_of(contested_memory(), file_content())

operation = st.one_of(
    st.tuples(st.just("write"), PATHS, content),
    st.tuples(st.just("copy"), st.integers(0, 20), PATHS),  # the same id and name in two files
    st.tuples(st.just("delete"), st.integers(0, 20)),
    st.tuples(st.just("rename"), st.integers(0, 20), PATHS),
    st.tuples(st.just("touch"), st.integers(0, 20)),
    st.tuples(st.just("move-folder"), FOLDERS, st.sampled_from(["memories/moved", "notes/moved"])),
    st.tuples(st.just("ignored"), IGNORED, content),
    st.tuples(st.just("symlink"), st.integers(0, 20), PATHS),
)


def apply(store: Files, op: tuple) -> list[str]:
    """Carry out one file operation; return the paths it touched, as a watcher would report them."""
    root = store.root
    existing = [path for path in store.existing() if not (root / path).is_symlink()]
    target = {"write": 1, "ignored": 1, "copy": 2, "rename": 2, "symlink": 2}.get(op[0])
    if target and (root / op[target]).is_symlink():
        (root / op[target]).unlink()  # a write through it would change the file it points to
    if op[0] in ("write", "ignored"):
        store.write(op[1], op[2])
        return [op[1]]
    if op[0] == "move-folder":
        source, target = op[1], op[2]
        if not (root / source).is_dir() or (root / target).exists():
            return []
        os.replace(root / source, root / target)
        return [source, target]
    if not existing:
        return []
    source = existing[op[1] % len(existing)]
    if op[0] == "delete":
        (root / source).unlink()
        return [source]
    if op[0] == "touch":
        store.tick(source)
        return [source]
    target = op[2]
    (root / target).parent.mkdir(parents=True, exist_ok=True)
    if op[0] == "rename":
        os.replace(root / source, root / target)
        return [source, target]
    if op[0] == "copy":
        store.write(target, (root / source).read_bytes())
        return [target]
    if op[0] == "symlink" and source != target:  # a symlink where a file was: never followed, so the file is gone
        (root / target).unlink(missing_ok=True)
        os.symlink(root / source, root / target)
        return [target]
    return []


def memory(n: int = 0, created: str = "2026-07-10", superseded_by: int | None = None, project: str = "") -> bytes:
    """A valid memory with the id IDS[n], replaced by IDS[superseded_by] if given, of `project` if given."""
    link = f"superseded_by: {IDS[superseded_by]}\ninvalid_at: 2026-07-12\n" if superseded_by is not None else ""
    link += f"project: {project}\n" if project else ""
    return f"---\nid: {IDS[n]}\nkind: gotcha\nname: m-{n}\ndescription: d\ncreated: {created}\n{link}---\nB.\n".encode()


A, B, C = "memories/seamless/a.md", "memories/seamless/b.md", "memories/seamless/c.md"


@settings(SETTINGS, max_examples=40)
# the earlier of two memories with one id deleted: the other wins now
@example({A: memory(0, "2026-07-10"), B: memory(0, "2026-07-11")}, [[("delete", 0)]], False)
@example({A: memory(0, superseded_by=1), B: memory(1)}, [[("delete", 1)]], False)  # a link dangles now
@example({A: memory(0, superseded_by=1)}, [[("write", B, memory(1))]], False)  # and no longer
@example(  # cycles broken and made
    {A: memory(0, superseded_by=1), B: memory(1, superseded_by=2), C: memory(2, superseded_by=0)},
    [[("write", C, memory(2))]],
    False,
)
@example({A: memory(0, superseded_by=1), B: memory(1)}, [[("write", B, memory(1, superseded_by=0))]], False)
# a memory moved to another project, its id and path the same: the gardener's group of it changes scope
@example({A: memory(0, project="seamless")}, [[("write", A, memory(0, project="console"))]], False)
@given(
    st.dictionaries(PATHS, content, max_size=6),
    st.lists(st.lists(operation, min_size=1, max_size=5), min_size=1, max_size=3),
    st.booleans(),
)
def test_index_paths_after_any_changes_matches_a_full_rebuild(files, rounds, absolute):
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        store = Files(Path(tmp) / "store")
        for path, data in files.items():
            store.write(path, data)
        db = Path(tmp) / "index.db"
        index_store(store.root, db)
        for n, changes in enumerate(rounds):
            touched = [path for op in changes for path in apply(store, op)]
            summary = index_paths(store.root, db, [store.root / p if absolute else p for p in touched])
            assert summary.mode == "paths"
            assert_accounted_for(store.root, db)
            fresh = Path(tmp) / f"fresh-{n}.db"
            index_store(store.root, fresh, full=True)
            assert dump(db) == dump(fresh)
        # nothing was left for a walk to find
        walked = index_store(store.root, db)
        assert (walked.files_changed, walked.files_deleted) == (0, 0)
        assert dump(db) == dump(fresh)


def test_index_paths_reads_only_the_paths_given(store):
    store.memory("kept")
    store.index(full=True)
    store.memory("seen")
    store.memory("not-named")
    summary = index_paths(store.root, store.db_path, ["memories/seamless/seen.md"])
    assert (summary.mode, summary.files_seen, summary.files_changed) == ("paths", 1, 1)
    assert store.rows("select name from memories order by name") == [("kept",), ("seen",)]
    assert store.rows("select mode, files_changed from index_runs order by id desc limit 1") == [("paths", 1)]
    # the folder it touched is looked into again by the next walk, which finds the other file
    assert store.index().files_changed == 1
    assert store.rows("select name from memories order by name") == [("kept",), ("not-named",), ("seen",)]


def test_a_loser_of_a_duplicate_wins_once_the_winner_is_deleted(store):
    store.memory("first", id="01K00000000000000000000AAA", created="2026-07-01T00:00:00Z")
    store.memory("second", id="01K00000000000000000000AAA", created="2026-07-02T00:00:00Z")
    store.index(full=True)
    assert store.rows("select code, path from problems") == [("duplicate-id", "memories/seamless/second.md")]
    (store.root / "memories/seamless/first.md").unlink()
    index_paths(store.root, store.db_path, ["memories/seamless/first.md"])
    assert store.rows("select name from memories") == [("second",)]
    assert store.rows("select code from problems") == []


def test_a_link_that_closes_a_cycle_warns_every_member_as_a_full_run_does(store):
    """c -> a and d -> c are indexed; then a names d: every one of the three is in the cycle, d too, which is not next
    to the file changed (found by test_index_paths_after_any_changes_matches_a_full_rebuild)."""
    ids = {name: f"01K0000000000000000000AAA{n}" for n, name in enumerate("acd", 1)}
    retired = {"invalid_at": "2026-07-12T00:00:00Z"}
    store.memory("a", id=ids["a"])
    store.memory("c", id=ids["c"], superseded_by=ids["a"], **retired)
    store.memory("d", id=ids["d"], path="memories/seamless/deep/d.md", superseded_by=ids["c"], **retired)
    store.index(full=True)
    store.memory("a", id=ids["a"], superseded_by=ids["d"], **retired)
    index_paths(store.root, store.db_path, ["memories/seamless/a.md"])
    cycle = "select path from problems where code = 'supersession-cycle' order by path"
    assert store.rows(cycle) == [
        ("memories/seamless/a.md",),
        ("memories/seamless/c.md",),
        ("memories/seamless/deep/d.md",),
    ]


def test_index_paths_refuses_the_index_of_another_store(store, tmp_path):
    store.memory("here")
    store.index(full=True)
    other = tmp_path / "other"
    (other / "memories").mkdir(parents=True)
    with pytest.raises(database.OtherStoreError) as refused:
        index_paths(other, store.db_path, ["memories/x.md"])
    assert f"seamless index {other.resolve()} --db {store.db_path} --full" in str(refused.value)
    assert store.rows("select name from memories") == [("here",)]
    # a whole run over the other store replaces the index's content, as before
    index_store(other, store.db_path)
    assert store.rows("select count(*) from memories") == [(0,)]
    with sqlite3.connect(store.db_path) as conn:
        assert database.store_of(conn) == str(other.resolve())


def test_index_paths_on_a_new_index_indexes_the_whole_store(store):
    store.memory("one")
    store.memory("two")
    summary = index_paths(store.root, store.db_path, ["memories/seamless/one.md"])
    assert (summary.mode, summary.memories) == ("full", 2)


HOLD = """
import sys
from indexer.index.database import writer_lock
with writer_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_the_writer_lock_is_on_the_resolved_file(tmp_path):
    """`--db real.db` and `--db alias.db` (a symlink to it) take turns instead of running at once."""
    real, alias = tmp_path / "real.db", tmp_path / "alias.db"
    real.touch()
    alias.symlink_to(real)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(alias)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "held\n"
        waited, done = threading.Event(), threading.Event()

        def take():
            with database.writer_lock(real, on_wait=waited.set):
                done.set()

        taker = threading.Thread(target=take)
        taker.start()
        assert waited.wait(10), "the lock on the alias did not keep the real file's writer waiting"
        time.sleep(0.1)
        assert not done.is_set()
        holder.stdin.write("\n")
        holder.stdin.flush()
        taker.join(10)
        assert done.is_set()
    finally:
        holder.kill()
        holder.wait()


def test_the_writer_lock_nests_within_one_process(tmp_path):
    """A writer holding the lock may run an index update, which takes the same lock again."""
    db = tmp_path / "x.db"
    with database.writer_lock(db), database.writer_lock(db):
        pass
    with database.writer_lock(db):  # released: free to take again
        pass


def test_an_index_named_through_a_symlink_is_the_file_it_names(store, tmp_path):
    """The first run builds the real file (the symlink stays one), and either name gives the same index."""
    store.memory("one")
    real, alias = tmp_path / "real.db", tmp_path / "alias.db"
    alias.symlink_to(real)
    assert index_store(store.root, alias).mode == "full"
    assert alias.is_symlink() and real.is_file()
    assert index_store(store.root, real).mode == "no-op"


def test_a_new_index_built_through_a_symlink_replaces_the_file_it_names(tmp_path):
    """fresh_db given a symlink builds beside the real file and renames onto it: the symlink stays one, and the
    stale write-ahead log it clears is the real file's."""
    real, alias = tmp_path / "real.db", tmp_path / "alias.db"
    alias.symlink_to(real)
    Path(f"{real}-wal").write_bytes(b"an older index's log")
    with database.fresh_db(alias) as db:
        database.set_meta(db, "store", database.store_root(tmp_path))
    assert alias.is_symlink() and real.is_file()
    assert not Path(f"{real}-wal").exists() and not list(tmp_path.glob("*.new"))
    with sqlite3.connect(alias) as conn:
        assert database.store_of(conn) == str(tmp_path.resolve())


def test_a_run_hands_its_files_to_read_to_the_progress_callable(store):
    """Library code draws nothing: the caller's `progress` wraps the files a run reads (the CLI's draws a bar)."""
    for n in range(3):
        store.memory(f"m-{n}")
    handed = []

    def progress(files):
        handed.append([f.path for f in files])
        return files

    store.index(progress=progress)
    assert handed == [sorted(f"memories/seamless/m-{n}.md" for n in range(3))]
