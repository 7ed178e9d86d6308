"""Hostile input: whatever lands in a store, the run finishes, each bad file leaves an error, nothing else is lost.

Each case is a real file in a real store beside one good memory, indexed into a real database;
the command-line tests run the installed `seamless` in a child process, so a crash of any kind
(a traceback, a segmentation fault, a hang) fails them.
"""

import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import Store
from stores import accounting, assert_accounted_for, dump, seamless, store_md_files

from indexer.front.cli import cli
from indexer.index.build import index_store
from indexer.sqlite import sqlite3

HERE = Path(__file__).resolve().parent
GOOD_ID = "01K9ZZ0000000000000000G00D"
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def run_cli(*args) -> Result:
    """The real command line in this process (click's CliRunner); an exception it lets out fails the test."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def memory(n: int, extra: str = "", body: str = "Body.\n", **fields: str | None) -> str:
    """A valid memory's text; `fields` replace its frontmatter lines verbatim (None drops one), `extra` is added."""
    lines = {
        "id": f"01K{n:023d}",
        "kind": "gotcha",
        "name": f"hostile-{n}",
        "description": f"Hostile case {n}, the run must go on",
        "project": "seamless",
        "created": "2026-07-10T18:00:00Z",
        "tags": "[hostile]",
    }
    lines.update(fields)
    text = "".join(f"{k}: {v}\n" for k, v in lines.items() if v is not None)
    return f"---\n{text}{extra}---\n{body}"


def laughs(levels: int = 30, tags: bool = False) -> str:
    """Billion-laughs YAML: each level is nine aliases of the one before (9**30 leaves if expanded)."""
    text = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, levels):
        text += f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n"
    return text + (f"tags: *l{levels - 1}\n" if tags else "")


def keys(count: int, indent: str = "") -> str:
    return "".join(f"{indent}key_{i}: value {i}\n" for i in range(count))


# case: (the file's bytes given a scratch folder, "indexed" or the error code it must get)
CASES = {
    "random-bytes": (lambda tmp: random.Random(6).randbytes(4096), "not-utf8"),
    "nul-byte-in-body": (lambda tmp: memory(1, body="a\x00b\n").encode(), "binary-file"),
    "only-nul-bytes": (lambda tmp: b"\x00" * 64, "binary-file"),
    "latin-1-text": (lambda tmp: memory(2, description="Caf\xe9 cr\xe8me").encode("latin-1"), "not-utf8"),
    "utf-16-text": (lambda tmp: memory(3).encode("utf-16"), "not-utf8"),
    "encoded-surrogate": (lambda tmp: memory(4).encode() + b"\xed\xa0\x80\n", "not-utf8"),
    "control-character": (lambda tmp: memory(5, model="a\x07b").encode(), "yaml-error"),
    "recursive-alias": (lambda tmp: memory(6, extra="loop: &a [*a]\n").encode(), "indexed"),
    "recursive-alias-in-tags": (lambda tmp: memory(7, tags="&t [*t]").encode(), "indexed"),
    "recursive-alias-as-description": (lambda tmp: memory(8, description="&d [*d]").encode(), "bad-field"),
    "recursive-mapping": (lambda tmp: memory(9, extra="loop: &m {self: *m}\n").encode(), "indexed"),
    "billion-laughs": (lambda tmp: memory(10, extra=laughs()).encode(), "indexed"),
    "billion-laughs-in-tags": (lambda tmp: memory(11, tags=None, extra=laughs(tags=True)).encode(), "indexed"),
    "10k-unclosed-brackets": (lambda tmp: memory(12, extra="deep: " + "[" * 10_000 + "\n").encode(), "yaml-error"),
    "10k-nested-brackets": (
        lambda tmp: memory(13, extra=f"deep: {'[' * 10_000}{']' * 10_000}\n").encode(),
        "yaml-error",
    ),
    "200k-nested-brackets": (
        lambda tmp: memory(14, extra=f"deep: {'[' * 200_000}{']' * 200_000}\n").encode(),
        "frontmatter-too-large",
    ),
    "100k-nested-mappings": (
        lambda tmp: memory(15, extra=f"deep: {'{a: ' * 100_000}{'}' * 100_000}\n").encode(),
        "frontmatter-too-large",
    ),
    "100k-nested-block-lists": (
        lambda tmp: memory(16, extra="deep:\n" + "- " * 100_000 + "x\n").encode(),
        "frontmatter-too-large",
    ),
    "500-nested-brackets": (lambda tmp: memory(17, extra=f"deep: {'[' * 500}{']' * 500}\n").encode(), "indexed"),
    "5000-keys": (lambda tmp: memory(18, extra=keys(5000)).encode(), "frontmatter-too-large"),
    "5000-nested-keys": (
        lambda tmp: memory(19, extra="nested:\n" + keys(5000, "  ")).encode(),
        "frontmatter-too-large",
    ),
    "5000-tags": (lambda tmp: memory(20, tags="[" + ", ".join(f"t{i}" for i in range(5000)) + "]").encode(), "indexed"),
    "python-object-apply": (
        lambda tmp: memory(21, extra=f"x: !!python/object/apply:os.system ['touch {tmp}/pwned']\n").encode(),
        "yaml-error",
    ),
    "python-object-new": (
        lambda tmp: memory(22, extra=f"x: !!python/object/new:subprocess.Popen [[touch, {tmp}/pwned]]\n").encode(),
        "yaml-error",
    ),
    "python-name": (lambda tmp: memory(23, extra="x: !!python/name:os.system\n").encode(), "yaml-error"),
    "python-module": (lambda tmp: memory(24, extra="x: !!python/module:os\n").encode(), "yaml-error"),
    "custom-tag": (lambda tmp: memory(25, extra="x: !include /etc/passwd\n").encode(), "yaml-error"),
    "bad-int-tag": (lambda tmp: memory(26, extra="x: !!int abc\n").encode(), "yaml-error"),
    "bad-float-tag": (lambda tmp: memory(27, extra="x: !!float abc\n").encode(), "yaml-error"),
    "bad-bool-tag": (lambda tmp: memory(28, extra="x: !!bool maybe\n").encode(), "yaml-error"),
    "bad-timestamp-tag": (lambda tmp: memory(29, created="!!timestamp 2026-13-45").encode(), "bad-timestamp"),
    "explicit-timestamp-tag": (lambda tmp: memory(30, created="!!timestamp 2026-07-10").encode(), "indexed"),
    "binary-tag-description": (lambda tmp: memory(31, description="!!binary aGVsbG8=").encode(), "bad-field"),
    "5000-digit-number": (lambda tmp: memory(32, model="1" * 5000).encode(), "yaml-error"),
    "unclosed-frontmatter": (lambda tmp: memory(33).removesuffix("---\nBody.\n").encode(), "unclosed-frontmatter"),
    "only-dashes": (lambda tmp: b"---", "unclosed-frontmatter"),
    "empty-frontmatter": (lambda tmp: b"---\n---\n", "missing-kind"),
    "whitespace-only": (lambda tmp: b" \n\t\r\n", "empty-file"),
    "cr-only-line-endings": (lambda tmp: memory(34).replace("\n", "\r").encode(), "no-frontmatter"),
    "bom-and-crlf": (lambda tmp: ("\ufeff" + memory(35)).replace("\n", "\r\n").encode(), "indexed"),
    "3-mb-body-on-one-line": (lambda tmp: memory(36, body="x" * 3_000_000).encode(), "indexed"),
    "1-mb-description": (lambda tmp: memory(37, description="y" * 1_000_000).encode(), "frontmatter-too-large"),
    "note-random-bytes": (lambda tmp: random.Random(7).randbytes(512), "not-utf8"),
    "note-broken-yaml": (lambda tmp: b"---\ntitle: [unclosed\n---\n# Note\n", "yaml-error"),
    "note-billion-laughs": (lambda tmp: f"---\n{laughs()}---\n# Note\n".encode(), "indexed"),
    "note-nested-200k": (
        lambda tmp: f"---\nx: {'[' * 200_000}{']' * 200_000}\n---\n# N\n".encode(),
        "frontmatter-too-large",
    ),
}


def case_path(case: str) -> str:
    return f"notes/seamless/{case}.md" if case.startswith("note-") else f"memories/seamless/{case}.md"


def good_neighbour(store) -> None:
    store.memory("good-neighbour", project="elsewhere", id=GOOD_ID)


def problems_of(store, path: str) -> list[tuple]:
    return store.rows("select severity, code from problems where path = ?", (path,))


def indexed(store, path: str) -> bool:
    return bool(
        store.rows("select 1 from memories where path = ? union all select 1 from notes where path = ?", (path, path))
    )


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Every case in one store beside a good memory, indexed once; and the scratch folder (for the canary)."""
    tmp = tmp_path_factory.mktemp("hostile")
    store = Store(tmp / "store")
    for case, (make, _) in CASES.items():
        store.write(case_path(case), make(tmp))
    good_neighbour(store)
    started = time.perf_counter()
    store.index()
    store.seconds = time.perf_counter() - started
    return store, tmp


@pytest.mark.parametrize("case", CASES)
def test_hostile_file_is_indexed_or_an_error(hostile, case):
    store, _ = hostile
    path, expected = case_path(case), CASES[case][1]
    problems = problems_of(store, path)
    if expected == "indexed":
        assert indexed(store, path), problems
        assert "error" not in {severity for severity, _ in problems}, problems
    else:
        assert not indexed(store, path)
        assert ("error", expected) in problems, problems


def test_hostile_files_do_not_stop_or_stall_the_others(hostile):
    store, tmp = hostile
    assert store.rows("select id from memories where id = ?", (GOOD_ID,)) == [(GOOD_ID,)]
    assert_accounted_for(store.root, store.db_path)
    assert store.seconds < 30, f"indexing the hostile store took {store.seconds:.1f} s"
    assert not (tmp / "pwned").exists(), "a YAML tag ran a command"


def test_an_explicit_timestamp_tag_is_read_as_the_time_it_says(store):
    store.write("memories/seamless/t.md", memory(1, created="!!timestamp 2026-07-10 18:00:00+02:00"))
    store.index()
    assert store.rows("select created from memories") == [("2026-07-10T16:00:00Z",)]


def test_a_bad_character_is_reported_at_its_own_line(store):
    store.write("memories/seamless/c.md", memory(1, model="a\x07b", description="Caf\u00e9: cr\u00e8me"))
    store.index()
    lines = store.rows("select line from problems where code = 'yaml-error'")
    text = memory(1, model="a\x07b", description="Caf\u00e9: cr\u00e8me")
    assert lines == [(text[: text.index("\x07")].count("\n") + 1,)]


def test_every_hostile_file_at_once_through_the_command_line(hostile, tmp_path):
    """`seamless index` on the hostile store exits 0 without a traceback and prints each error."""
    store, scratch = hostile
    root, db = store.root, tmp_path / "cli.db"
    result = seamless("index", root, "--db", db)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-2000:]
    assert "Traceback" not in output
    for case, (_, expected) in CASES.items():
        if expected != "indexed":
            assert f"{root}/{case_path(case)}:" in result.stdout, case
    assert_accounted_for(root, db)
    assert not (scratch / "pwned").exists()
    result = seamless("check", root)
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr


def test_a_file_of_tens_of_megabytes_is_too_large_and_not_read_whole(store):
    huge = store.write("memories/seamless/huge.md", b"")
    with open(huge, "wb") as f:
        f.write(memory(1).encode())
        f.truncate(40_000_000)  # 40 MB; sparse, so the disk is spared
    try:
        good_neighbour(store)
        store.index()
        assert problems_of(store, "memories/seamless/huge.md") == [("error", "too-large")]
        assert_accounted_for(store.root, store.db_path)
    finally:
        huge.unlink()


def test_the_size_limit_is_the_configured_one(store):
    store.write("seamless.toml", "[index]\nmax_file_bytes = 1000\n")
    store.write("memories/seamless/big.md", memory(1, body="z" * 1000))
    store.write("memories/seamless/small.md", memory(2))
    store.index()
    assert problems_of(store, "memories/seamless/big.md") == [("error", "too-large")]
    assert indexed(store, "memories/seamless/small.md")
    assert_accounted_for(store.root, store.db_path)


def test_symlinks_are_never_followed(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(memory(99, description="SECRET-TOKEN outside the store"))
    real = store.write("memories/seamless/real.md", memory(1))
    links = {
        "memories/seamless/to-outside-file.md": outside / "secret.md",
        "memories/seamless/to-inside-file.md": real,
        "memories/to-outside-folder": outside,
        "memories/to-inside-folder": store.root / "notes",
        "memories/loop": store.root / "memories",
        "notes/self-loop.md": store.root / "notes" / "self-loop.md",
        "notes/dangling.md": tmp_path / "nowhere.md",
    }
    for link, target in links.items():
        (store.root / link).symlink_to(target)
    assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
    assert store.rows("select path from memories union all select path from notes") == [("memories/seamless/real.md",)]
    assert store.rows("select * from problems") == []
    for part in ("", "-wal"):
        data = Path(f"{store.db_path}{part}").read_bytes() if Path(f"{store.db_path}{part}").exists() else b""
        assert b"SECRET-TOKEN" not in data


def test_symlinked_top_folders_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    (outside / "p").mkdir(parents=True)
    (outside / "p" / "m.md").write_text(memory(1))
    root = tmp_path / "store"
    root.mkdir()
    (root / "memories").symlink_to(outside)
    (root / "notes").symlink_to(outside)
    index_store(root, tmp_path / "i.db")
    with sqlite3.connect(tmp_path / "i.db") as conn:
        assert conn.execute("select count(*) from memories").fetchone() == (0,)
        assert conn.execute("select count(*) from notes").fetchone() == (0,)


def test_hidden_and_other_files_are_ignored(store):
    for path in (
        "memories/seamless/.draft.md",
        "memories/.git/objects/x.md",
        "notes/.obsidian/n.md",
        "README.md",
        "memories/seamless/notes.txt",
        "memories/seamless/x.MD.bak",
    ):
        store.write(path, random.Random(1).randbytes(64))
    store.write("memories/seamless/ok.md", memory(1))
    store.index()
    assert store.rows("select path from memories") == [("memories/seamless/ok.md",)]
    assert store.rows("select * from problems") == []


def test_special_files_do_not_hang_the_run(store):
    os.mkfifo(store.root / "memories" / "pipe.md")
    (store.root / "notes" / "folder.md").mkdir()
    store.write("notes/folder.md/inside.md", "# Inside\n")
    result = seamless("index", store.root, "--db", store.db_path, timeout=60)
    assert result.returncode == 0, result.stderr
    assert store.rows("select path from notes") == [("notes/folder.md/inside.md",)]


def remove_tree(top: Path) -> None:
    """shutil.rmtree without its recursion, which 1,100 nested folders overflow."""
    stack = [str(top)]
    while stack:
        entries = list(os.scandir(stack[-1]))
        folders = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
        if folders:
            stack.extend(folders)
        else:
            os.rmdir(stack.pop())


def test_folders_nested_a_thousand_deep(store, monkeypatch):
    monkeypatch.chdir(store.root / "notes")  # relative mkdir keeps each path short; restored afterwards
    try:
        for _ in range(1100):
            os.mkdir("d")
            os.chdir("d")
        Path("deep.md").write_text("# Deep\n")
        store.index()
        assert store.rows("select title from notes") == [("Deep",)]
    finally:
        os.chdir(store.root)
        remove_tree(store.root / "notes" / "d")


def test_weird_but_valid_file_names(store):
    names = [
        "new\nline.md",
        "tab\there.md",
        "spaces and 'quotes' \"too\".md",
        "ünïcödé-✓.md",
        "-dash.md",
        "%s%n.md",
        "x" * 250 + ".md",
        "back\\slash.md",
    ]
    for name in names:
        store.write(f"notes/{name}", f"# {len(name)}\n")
    assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
    assert {r[0] for r in store.rows("select path from notes")} == {f"notes/{n}" for n in names}


def non_utf8_store(store) -> str:
    name = os.fsdecode(b"caf\xe9-latin-1.md")  # a file name whose bytes are not UTF-8
    (store.root / "memories" / name).write_text(memory(1))
    good_neighbour(store)
    return name


def test_a_file_name_that_is_not_utf8_does_not_stop_the_run(store):
    non_utf8_store(store)
    assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
    assert store.rows("select id from memories") == [(GOOD_ID,)]


def test_a_file_name_that_is_not_utf8_is_an_error(store):
    non_utf8_store(store)
    run_cli("index", store.root, "--db", store.db_path)
    assert problems_of(store, "memories/caf\\xe9-latin-1.md") == [("error", "not-utf8")]


def test_a_folder_name_that_is_not_utf8_is_an_error_for_its_files_run_after_run(store):
    folder = store.root / "memories" / os.fsdecode(b"caf\xe9")  # a folder name whose bytes are not UTF-8
    folder.mkdir()
    (folder / "x.md").write_text(memory(1))
    good_neighbour(store)
    for _ in range(2):  # the second run compares the folder's fingerprint, stored as text
        assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
        assert problems_of(store, "memories/caf\\xe9/x.md") == [("error", "not-utf8")]
        assert store.rows("select id from memories") == [(GOOD_ID,)]


@pytest.mark.skipif(ROOT_USER, reason="root reads a chmod 000 file anyway, so there is nothing to test")
def test_an_unreadable_file_is_an_error(store):
    path = store.write("memories/seamless/locked.md", memory(1))
    path.chmod(0)
    try:
        store.index()
        assert problems_of(store, "memories/seamless/locked.md") == [("error", "unreadable")]
    finally:
        path.chmod(0o644)


def check_folder_refused(store, run) -> None:
    """Index, make memories/locked unlistable with `run`'s first step, index again, then undo it."""
    store.memory("behind-the-lock", path="memories/locked/kept.md")
    good_neighbour(store)
    store.index()
    lock, unlock = run
    lock()
    try:
        summary = store.index()
        # the folder's files are unknown: they leave the index, and the folder says why (never silently)
        assert summary.mode == "incremental" and summary.errors == 1
        assert [p.code for p in summary.problems] == ["unreadable-folder"]  # said by the run that found it
        assert problems_of(store, "memories/locked") == [("error", "unreadable-folder")]
        assert store.rows("select id from memories") == [(GOOD_ID,)]
        assert run_cli("check", store.root).exit_code == 1
        noop = store.index()
        assert noop.mode == "no-op"  # still refused, nothing new: the problem stays
        assert (noop.problems, noop.unlisted) == ([], 1)  # and is not said again by every run
        assert problems_of(store, "memories/locked") == [("error", "unreadable-folder")]
    finally:
        unlock()
    store.index()
    assert store.rows("select count(*) from problems") == [(0,)]
    assert store.rows("select name from memories order by name") == [("behind-the-lock",), ("good-neighbour",)]


@pytest.mark.skipif(ROOT_USER, reason="root lists a chmod 000 folder anyway: see the test after this one")
def test_a_folder_that_cannot_be_listed_is_an_error_not_a_silent_loss(store):
    folder = store.root / "memories" / "locked"
    check_folder_refused(store, (lambda: folder.chmod(0), lambda: folder.chmod(0o755)))


def test_a_folder_the_system_refuses_to_list_is_an_error_not_a_silent_loss(store, monkeypatch):
    # as root nothing can be made unlistable, so the refusal is the operating system's answer, injected
    import indexer.store.walk

    refused, real_open = set(), os.open

    def open_folder(path, *args, **kwargs):  # the walk opens each folder by its path, then lists it
        if path in refused:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(indexer.store.walk.os, "open", open_folder)
    folder = str(store.root / "memories" / "locked")
    check_folder_refused(store, (lambda: refused.add(folder), refused.clear))


# Files that change between the walk and the reads. race_run.py applies the change at exactly that moment.

RACES = {
    "vanish": (None, lambda store: not indexed(store, "memories/seamless/racy.md")),
    "modify": (
        memory(1, description="Changed after the walk"),
        lambda store: (
            store.rows("select description from memories where path = ?", ("memories/seamless/racy.md",))
            == [("Changed after the walk",)]
        ),
    ),
    "grow": (None, lambda store: problems_of(store, "memories/seamless/racy.md") == [("error", "too-large")]),
    "symlink": ("SECRET", lambda store: problems_of(store, "memories/seamless/racy.md") == [("error", "unreadable")]),
    "fifo": (None, lambda store: problems_of(store, "memories/seamless/racy.md") == [("error", "unreadable")]),
    "directory": (None, lambda store: problems_of(store, "memories/seamless/racy.md") == [("error", "unreadable")]),
}


@pytest.mark.parametrize("race", RACES)
def test_a_file_changed_between_walk_and_read(store, tmp_path, race):
    target, check = RACES[race]
    if target == "SECRET":
        secret = tmp_path / "secret.md"
        secret.write_text(memory(99, description="SECRET-TOKEN outside the store"))
        target = str(secret)
    store.write("memories/seamless/racy.md", memory(1))
    good_neighbour(store)
    command = [
        sys.executable,
        str(HERE / "race_run.py"),
        race,
        "memories/seamless/racy.md",
        *([target] if target else []),
        "--",
        "index",
        str(store.root),
        "--db",
        str(store.db_path),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert check(store), store.rows("select * from problems")
    assert not store.rows("select 1 from memories where body like '%SECRET%' or description like '%SECRET%'")
    assert store.rows("select id from memories where id = ?", (GOOD_ID,))
    # the next run, with the store at rest, is in step with it
    store.index()
    assert_accounted_for(store.root, store.db_path)
    fresh = tmp_path / "fresh.db"
    index_store(store.root, fresh, full=True)
    assert dump(store.db_path) == dump(fresh)


def test_runs_while_the_store_churns(store, tmp_path):
    """A thread writes, rewrites, renames and deletes files while `seamless index` runs again and again."""
    for n in range(150):
        store.write(f"memories/seamless/m{n}.md", memory(n))
    stop = threading.Event()

    def churn():
        rng = random.Random(3)
        folder = store.root / "memories" / "churn"
        folder.mkdir(exist_ok=True)
        while not stop.is_set():
            n = rng.randrange(50)
            path = folder / f"c{n}.md"
            try:
                action = rng.random()
                if action < 0.4:
                    path.write_text(memory(1000 + n, body="x" * rng.randrange(10_000)))
                elif action < 0.6:
                    path.unlink()
                elif action < 0.8:
                    path.rename(folder / f"c{rng.randrange(50)}.md")
                else:
                    path.write_bytes(random.Random(n).randbytes(100))
            except OSError:
                pass

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        for _ in range(2):
            result = seamless("index", store.root, "--db", store.db_path)
            assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    finally:
        stop.set()
        thread.join()
    store.index()
    assert_accounted_for(store.root, store.db_path)
    fresh = tmp_path / "fresh.db"
    index_store(store.root, fresh, full=True)
    assert dump(store.db_path) == dump(fresh)


def test_a_same_size_rewrite_in_the_same_clock_tick_is_seen(store):
    path = store.write("memories/seamless/stage.md", memory(1, kind="stage", body="Status: open\n"))
    store.index()
    before = os.stat(path)
    path.write_text(memory(1, kind="stage", body="Status: done\n"))  # same size, within the same tick
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    store.index()
    assert store.rows("select stage_status from memories") == [("done",)]


def test_a_huge_size_limit_is_a_settings_problem(store):
    store.write("seamless.toml", "[index]\nmax_file_bytes = 99999999999999999999\n")
    store.write("memories/seamless/m.md", memory(1))
    assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
    assert problems_of(store, "seamless.toml") == [("error", "bad-settings")]


def test_a_symlinked_settings_file_is_not_followed(store, tmp_path):
    (tmp_path / "elsewhere.toml").write_text("[index]\nmax_file_bytes = 10\n")
    (store.root / "seamless.toml").symlink_to(tmp_path / "elsewhere.toml")
    store.write("memories/seamless/m.md", memory(1))
    store.index()
    assert indexed(store, "memories/seamless/m.md")


@pytest.mark.parametrize("db", ["not-a-database", "missing-folder/index.db"])
def test_a_bad_database_path_is_a_one_line_error(store, tmp_path, db):
    (tmp_path / "not-a-database").write_bytes(random.Random(2).randbytes(4096))
    store.write("memories/seamless/m.md", memory(1))
    result = run_cli("index", store.root, "--db", tmp_path / db)
    assert result.exit_code == 1 and result.stderr.startswith("Error: "), result.stderr[-500:]


def test_store_files_are_never_written(store):
    for case, (make, _) in list(CASES.items())[:12]:
        store.write(case_path(case), make(store.root.parent))

    def snapshot():
        return {
            p: (os.stat(store.root / p).st_mtime_ns, (store.root / p).read_bytes()) for p in store_md_files(store.root)
        }

    before = snapshot()
    store.index()
    store.index(full=True)
    assert snapshot() == before
    assert not accounting(store.root, store.db_path)["neither"]


def test_megabytes_of_frontmatter_are_refused_quickly(store):
    nodes = "".join(f"  - [a{n}, b{n}]\n" for n in range(20_000))  # ~400 KB of tiny YAML nodes
    store.write("memories/seamless/huge.md", f"---\nid: 01K0000000000000000000000H\ntags:\n{nodes}---\nbody\n")
    store.memory("neighbour")
    store.index()
    assert store.rows("select path, line, code from problems") == [
        ("memories/seamless/huge.md", 1, "frontmatter-too-large")
    ]
    assert store.rows("select name from memories") == [("neighbour",)]
