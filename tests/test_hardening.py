"""Hardening (issue 18): whatever a file, a setting or a request holds, no crash, hang, outside read or stall.

Each test drives the real thing (a store on disk, the `seamless` command, a configured Datasette)
with an input an outside review used to break it.
"""

import asyncio
import cProfile
import html
import importlib.util
import json
import os
import pstats
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE_STORE, started_explorer
from hypothesis import given, settings
from hypothesis import strategies as st
from stores import assert_accounted_for, seamless
from test_hostile_input import indexed, memory, problems_of, run_cli
from test_served import free_port

import indexer.store.walk
from indexer.front.cli import cli
from indexer.front.serve import build_datasette
from indexer.query import bounded_sql
from indexer.sqlite import sqlite3
from indexer.store.validate import first_heading

# Times that parse but leave datetime's range once converted to UTC
OUT_OF_RANGE = ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00")
MEMORY_TIMESTAMPS = ("created", "updated", "valid_from", "invalid_at")
NOTE_TIMESTAMPS = ("created", "updated")
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ds(example_db):
    """One explorer over the example index (read-only, so tests cannot disturb it)."""
    return started_explorer(example_db)


@pytest.mark.parametrize("when", OUT_OF_RANGE)
def test_a_timestamp_out_of_range_in_utc_is_bad_timestamp_on_its_file(store, when):
    """Every timestamp field of memories and notes; the good files around them are indexed."""
    for n, key in enumerate(MEMORY_TIMESTAMPS):
        store.write(f"memories/seamless/{key}.md", memory(n, **{key: when}))
    for key in NOTE_TIMESTAMPS:
        store.write(f"notes/{key}.md", f"---\n{key}: {when}\n---\n# A note\n")
    store.memory("good-neighbour")
    store.note("good.md", "# Good\n")
    for command in ("index", "check"):
        result = run_cli(command, store.root, *(["--db", store.db_path] if command == "index" else []))
        assert result.exit_code == (1 if command == "check" else 0), result.output
        for key in MEMORY_TIMESTAMPS:
            assert f"memories/seamless/{key}.md:" in result.output and "outside years 1 to 9999" in result.output
    for key in MEMORY_TIMESTAMPS:
        assert problems_of(store, f"memories/seamless/{key}.md") == [("error", "bad-timestamp")]
    for key in NOTE_TIMESTAMPS:
        assert problems_of(store, f"notes/{key}.md") == [("error", "bad-timestamp")]
    assert indexed(store, "memories/seamless/good-neighbour.md") and indexed(store, "notes/good.md")


@pytest.mark.parametrize("command", [["briefing", "--project", "seamless"], ["gardener"]])
@pytest.mark.parametrize("when", OUT_OF_RANGE)
def test_an_as_of_out_of_range_is_a_usage_error(store, command, when):
    store.memory("m")
    store.index()
    result = CliRunner().invoke(cli, [*command, "--as-of", when, "--db", str(store.db_path)])
    assert result.exit_code == 2, result.output
    assert "--as-of" in result.output and "outside years 1 to 9999" in result.output


@pytest.mark.parametrize("path", ["briefing.json", "briefing.md", "briefing_ledger.json", "gardener.json", "briefing"])
@pytest.mark.parametrize("when", OUT_OF_RANGE)
async def test_an_as_of_out_of_range_is_a_400_naming_it(ds, path, when):
    response = await ds.client.get(f"/seamless/{path}?project=seamless&as_of={when.replace('+', '%2B')}")
    assert response.status_code == 400, response.text[:500]
    assert "as_of: " in response.text and "outside years 1 to 9999" in response.text


# --- 2. settings that cannot stop the run, a size limit that cannot take the memory ---


def settings_problems(store) -> list[tuple]:
    return store.rows("select line, severity, code, message from problems where path = 'seamless.toml'")


@pytest.mark.parametrize(
    "toml",
    [
        "[index]\nmax_file_bytes = 1000\nx = " + "[" * 1000 + "]" * 1000 + "\n",  # arrays a thousand deep
        "[index]\nmax_file_bytes = 1000\nx = " + "{a = " * 1000 + "}" * 1000 + "\n",  # inline tables
    ],
    ids=["arrays", "tables"],
)
def test_settings_nested_a_thousand_deep_are_a_settings_problem_with_the_defaults(store, toml):
    store.write("seamless.toml", toml)
    store.write("memories/seamless/m.md", memory(1, body="z" * 2000))
    assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
    assert [p[2:] for p in settings_problems(store)] == [("bad-settings", "TOML nested too deeply, defaults used")]
    assert store.rows("select value from settings where key = 'index.max_file_bytes'") == [(4194304,)]
    assert indexed(store, "memories/seamless/m.md")


def test_a_settings_file_over_a_megabyte_is_refused_not_cut(store):
    # the setting that matters comes after the first 1,000,000 bytes: read in part, it was silently lost
    store.write("seamless.toml", "# padding\n" * 100_001 + "[index]\nmax_file_bytes = 1000\n")
    store.write("memories/seamless/m.md", memory(1, body="z" * 2000))
    assert run_cli("index", store.root, "--db", store.db_path).exit_code == 0
    assert [p[2:] for p in settings_problems(store)] == [
        ("bad-settings", "the file is over 1,000,000 bytes, defaults used")
    ]
    assert indexed(store, "memories/seamless/m.md")


def test_many_settings_are_read_in_one_pass(store):
    # each unknown key's line was looked for from the top: 100,000 keys took minutes
    store.write("seamless.toml", "[extra]\n" + "".join(f"k{n} = {n}\n" for n in range(60_000)))
    result = seamless("index", store.root, "--db", store.db_path, timeout=60)
    assert result.returncode == 0, result.stderr[-500:]


@pytest.mark.parametrize("limit", [2**53, 2**26 + 1])
def test_a_size_limit_past_the_cap_is_refused(store, limit):
    store.write("seamless.toml", f"[index]\nmax_file_bytes = {limit}\n")
    store.write("memories/seamless/m.md", memory(1))
    store.index()
    assert [p[2:] for p in settings_problems(store)] == [
        ("bad-settings", "index.max_file_bytes must be a whole number from 0 to 67,108,864; default 4194304 used")
    ]
    assert store.rows("select value from settings where key = 'index.max_file_bytes'") == [(4194304,)]


@pytest.mark.parametrize("limit", [2**53, 2**26])
def test_a_64_gb_sparse_file_is_too_large_within_bounded_memory(store, limit):
    """The run's address space is capped at 1 GB: reading the file at its stated size would fail."""
    store.write("seamless.toml", f"[index]\nmax_file_bytes = {limit}\n")
    huge = store.write("memories/seamless/huge.md", memory(1))
    os.truncate(huge, 64 << 30)
    store.write("memories/seamless/m.md", memory(2))
    cap = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
    command = [
        sys.executable,
        "-c",
        cap + "from indexer.front.cli import cli; cli()",
        "index",
        store.root,
        "--db",
        store.db_path,
    ]
    result = subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert problems_of(store, "memories/seamless/huge.md") == [("error", "too-large")]
    assert indexed(store, "memories/seamless/m.md")


# --- 3. every regex over file content is linear ---

# a long line that each pattern over file content must cross, and the note or memory that holds it
LONG = 4_000_000


def long_line_store(store) -> None:
    """Files whose long lines made a pattern backtrack: titles, stage headers, frontmatter keys and boundaries."""
    for n, size in enumerate((100_000, LONG)):
        store.note(f"title-spaces-{n}.md", "# a" + " " * size + "x\n")
        store.note(f"title-hashes-{n}.md", "# a" + " #" * (size // 2) + "x\n")
        store.note(f"title-after-code-{n}.md", "```\n# code\n```\n# a" + "\t" * size + "x\n")
        store.note(f"boundary-{n}.md", "---\ntitle: t\n" + "-" * size + "x\n")
        store.write(
            f"memories/seamless/stage-{n}.md", memory(n, kind="stage", body="Status: open" + " |" * (size // 2) + "!\n")
        )
        store.write(
            f"memories/seamless/gate-{n}.md",
            memory(n + 10, kind="stage", body="Status: open\ngate" + " " * size + ":" + "a" * 1000 + "!\n"),
        )
    store.write("memories/seamless/key.md", memory(20, extra="a" * 30_000 + " " * 30_000 + "x\n"))
    store.write("memories/seamless/quote.md", memory(21, extra="q: '" + "''" * 30_000 + "\n"))


def test_long_lines_are_read_in_linear_time(store):
    """A hang detector, not a speed test: the run must end within a generous minute."""
    long_line_store(store)
    store.memory("good-neighbour")
    result = seamless("index", store.root, "--db", store.db_path, timeout=120)
    assert result.returncode == 0, result.stderr[-1000:]
    titles = dict(store.rows("select path, title from notes"))
    assert titles["notes/title-spaces-1.md"] == "a" + " " * LONG + "x"
    assert titles["notes/title-after-code-0.md"] == "a" + "\t" * 100_000 + "x"
    assert indexed(store, "memories/seamless/good-neighbour.md")


OLD_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)  # the quadratic pattern, as the reference


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=" \t#a\n", max_size=12))
def test_a_title_is_what_the_old_pattern_found(body):
    heading = OLD_HEADING.search(body)
    assert first_heading(body) == (heading.group(1).strip() if heading else None)


# --- 4. no part of a path is followed, even when a folder is swapped for a symlink during a run ---


def outside_folder(tmp_path) -> Path:
    """A folder outside the store holding memories, one with the name the store's file has."""
    outside = tmp_path / "outside"
    (outside / "b").mkdir(parents=True)
    for n, name in enumerate(["racy.md", "other.md"]):
        text = memory(90 + n, name=f"outside-{n}", description="SECRET-TOKEN outside the store")
        (outside / name).write_text(text)
        (outside / "b" / name).write_text(text)
    return outside


def nothing_from_outside(store) -> None:
    assert not store.rows("select 1 from memories where description like '%SECRET%' or path like '%outside%'")


def test_a_folder_swapped_for_a_symlink_between_walk_and_read_is_not_followed(store, tmp_path):
    outside = outside_folder(tmp_path)
    store.write("memories/seamless/racy.md", memory(1))
    store.memory("good-neighbour", project="elsewhere")
    command = [sys.executable, str(HERE / "race_run.py"), "folder-symlink", "memories/seamless/racy.md", outside]
    command += ["--", "index", store.root, "--db", store.db_path, "--full"]
    result = subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    nothing_from_outside(store)
    assert problems_of(store, "memories/seamless/racy.md") == [("error", "unreadable")]
    assert indexed(store, "memories/elsewhere/good-neighbour.md")
    store.index()  # at rest, the symlink is not walked into: the file is gone
    nothing_from_outside(store)
    assert_accounted_for(store.root, store.db_path)


@pytest.mark.parametrize("swapped", ["memories/a", "memories/a/b"])
def test_a_folder_swapped_for_a_symlink_during_the_walk_is_not_followed(store, tmp_path, monkeypatch, swapped):
    """Right after memories/a is listed, `swapped` becomes a symlink to a folder outside the store."""
    outside = outside_folder(tmp_path)
    store.write("memories/a/b/racy.md", memory(1))
    store.memory("good-neighbour", project="elsewhere")
    real_scandir, listed = os.scandir, str(store.root / "memories" / "a")

    def scandir(folder):
        entries = list(real_scandir(folder))
        name = os.readlink(f"/proc/self/fd/{folder}") if isinstance(folder, int) else folder
        if name == listed:  # the listing is taken: now the swap
            target = store.root / swapped
            target.rename(tmp_path / "moved")
            target.symlink_to(outside)
        return iter(entries)

    monkeypatch.setattr(indexer.store.walk.os, "scandir", scandir)
    store.index(full=True)
    monkeypatch.undo()
    nothing_from_outside(store)
    assert indexed(store, "memories/elsewhere/good-neighbour.md")
    assert_accounted_for(store.root, store.db_path)


# --- 5. a tilde-encoded name is the same query to the parameter checks ---

TILDE_PATHS = [
    ("/seamless/brief~69ng.json?project=seamless", "budget=abc", "budget: 'abc'"),
    ("/seamless/recal~6C.json?q=chroma", "limit=0", "limit: '0'"),
    ("/seamless/brief~69ng.md?project=seamless", "as_of=yesterday", "as_of: 'yesterday'"),
    ("/seamle~73s/briefing_ledger.json?project=seamless", "budget=-1", "budget: '-1'"),
    ("/seamless/~67ardener.json?_shape=array", "as_of=2026", "as_of: '2026'"),
]


@pytest.mark.parametrize(("path", "bad", "says"), TILDE_PATHS)
async def test_a_tilde_encoded_query_name_is_checked_like_the_plain_one(ds, path, bad, says):
    assert (await ds.client.get(path)).status_code == 200  # Datasette serves the query under that name
    response = await ds.client.get(f"{path}&{bad}")
    assert response.status_code == 400, response.text[:300]
    assert says in response.text


# --- 6. one SQL call cannot stall the server or take its memory ---

TOO_BIG = [
    "select length(randomblob(999999999))",
    "select length(replace(hex(zeroblob(2.4e8)), '0', 'ab'))",
    "select length(printf('%.*c', 4000000, 'x') || printf('%.*c', 4000000, 'x'))",
    "select length(zeroblob(100000000))",
    "with recursive r(s) as (select 'x' union all select s || s from r limit 40) select max(length(s)) from r",
]
# a text of 4 MB (as long as the largest file's body) that instr, replace, trim and LIKE compared in length**2 steps
FOUR_MB = "(select printf('%.*c', 4000000, 'a'))"
QUADRATIC = [
    (f"select instr({FOUR_MB}, substr({FOUR_MB}, 1, 2000000) || 'b')", 0),
    (f"select length(replace({FOUR_MB}, substr({FOUR_MB}, 1, 2000000) || 'b', 'x'))", 4_000_000),
    (f"select length(trim({FOUR_MB}, substr({FOUR_MB}, 1, 2000000) || 'bcdefghijklmnopqrstuvwxyz'))", 0),
    (f"select length(rtrim({FOUR_MB}, 'bcdefghijklmnopqrstuvwxyz' || substr({FOUR_MB}, 1, 1000)))", 0),
    (f"select {FOUR_MB} like '%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%b'", 0),
]


def sql_path(sql: str) -> str:
    return "/seamless.json?" + urllib.parse.urlencode({"sql": sql, "_shape": "array"})


def explorer_get(db, paths: list[str], timeout: float = 90) -> list[tuple[int, str]]:
    """Each path's status and answer, asked of an explorer in a child process that must end within `timeout`."""
    command = [sys.executable, str(HERE / "explorer_get.py"), str(db), *paths]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=HERE)
    assert result.returncode == 0, result.stderr[-2000:]
    return [tuple(json.loads(line)) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("sql", TOO_BIG)
async def test_a_value_past_the_largest_file_is_refused_at_once(ds, sql):
    response = await ds.client.get(sql_path(sql))
    assert response.status_code == 400, response.text[:300]
    assert "string or blob too big" in response.text


def test_functions_that_compared_long_texts_in_quadratic_time_answer(example_db):
    """A hang detector, not a speed test: before, each took hours and held one of the server's SQL threads."""
    answers = explorer_get(example_db, [sql_path(sql) for sql, _ in QUADRATIC])
    for (sql, expected), (status, text) in zip(QUADRATIC, answers):
        assert status == 200, (sql, text)
        assert list(json.loads(text)[0].values()) == [expected], sql


async def test_every_stored_body_is_still_readable(ds, example_db):
    longest = await ds.client.get(sql_path("select max(length(body)) as n from memories"))
    assert longest.status_code == 200 and longest.json()[0]["n"] > 0


SQL_VALUES = st.one_of(
    st.none(),
    st.text(alphabet="ab*%é ", max_size=6),
    st.text(alphabet="ab", max_size=4).map(str.encode),
    st.integers(-5, 50),
)  # blobs of UTF-8 only: SQLite itself returns invalid text for the others


@settings(max_examples=400, deadline=None)
@given(
    SQL_VALUES,
    SQL_VALUES,
    SQL_VALUES,
    st.sampled_from(["instr(?, ?)", "replace(?, ?, ?)", "trim(?, ?)", "ltrim(?, ?)", "rtrim(?, ?)"]),
)
def test_the_linear_functions_answer_as_sqlites_own(x, y, z, call):
    args = (x, y, z)[: call.count("?")]
    plain = sqlite3.connect(":memory:")
    bounded = sqlite3.connect(":memory:")
    bounded_sql.bound(bounded)
    if call.startswith(("trim", "ltrim", "rtrim")) and isinstance(y, str) and len(y) < 17:
        y = y * 3  # past the fast path's 16 characters too
        args = (x, y)
    expected = plain.execute(f"select {call}", args).fetchone()
    assert bounded.execute(f"select {call}", args).fetchone() == expected


# --- 7. bodies: no request to our own endpoints, no render on the event loop, a budget of size and time ---

OWN_SOURCES = [
    '<img src="/seamless.json?sql=select+1">',
    "![run](/seamless.json?sql=select+2)",
    '<img src="seamless.json?sql=select+3">',
    '<img src="//127.0.0.1:8001/seamless.json?sql=select+4">',
    '<img src="http://localhost:8001/seamless.json?sql=select+5">',
    '<img src="http://[::1]:8001/seamless.json?sql=select+6">',
    '<img src="HTTP://127.0.0.2/seamless.json?sql=select+7">',
]
FOREIGN_IMAGE = "https://example.com/diagram.png"


def body_store(store) -> dict[str, str]:
    """Memories whose bodies point images at our own endpoints, and two a renderer chokes on; their ids.

    The slow bodies end with the store's path: rendered once, a body is cached for the process.
    """
    ids = {}
    ids["own"] = store.memory("own-sources", body="\n\n".join([*OWN_SOURCES, f"![ok]({FOREIGN_IMAGE})", "The end."]))[
        "id"
    ]
    ids["huge"] = store.memory("huge-body", body="![" * 500_000 + str(store.root))["id"]  # 1 MB: minutes in markdown-it
    ids["slow"] = store.memory("slow-body", body="![" * 49_000 + str(store.root))[
        "id"
    ]  # 98 KB: under the size budget, seconds
    store.index()
    return ids


async def explorer(db_path):
    """The explorer, started from within a test's own event loop."""
    ds = build_datasette(db_path)
    await ds.invoke_startup()
    return ds


async def test_a_body_cannot_point_an_image_at_this_machine(store):
    ids = body_store(store)
    ds = await explorer(store.db_path)
    for path in (f"/seamless/memories/{ids['own']}", "/seamless/memories?name=own-sources"):
        sources = re.findall(r'src="([^"]*)"', (await ds.client.get(path)).text)
        assert FOREIGN_IMAGE in sources
        assert not [src for src in sources if "sql=" in src], path


async def test_a_body_too_long_or_too_slow_for_markdown_is_shown_as_text(store):
    ids = body_store(store)
    ds = await explorer(store.db_path)
    for name in ("huge", "slow"):
        html = (await ds.client.get(f"/seamless/memories/{ids[name]}")).text
        assert '<pre class="md-plain">![![![' in html, name


async def test_other_requests_are_answered_while_a_body_renders(store):
    ids = body_store(store)
    ds = await explorer(store.db_path)
    slow = asyncio.ensure_future(ds.client.get(f"/seamless/memories/{ids['slow']}"))
    await asyncio.sleep(0.2)
    quick = await ds.client.get("/seamless/settings.json?_shape=array")
    assert quick.status_code == 200 and not slow.done()  # answered while the slow body was still rendering
    assert (await slow).status_code == 200


# --- 8. problems capped per file; a run prints what it found ---


def test_a_flood_of_warnings_in_one_file_is_capped_and_counted(store):
    store.write("memories/seamless/flood.md", memory(1, tags="[" + ", ".join(["[]"] * 16_000) + "]"))
    store.write("seamless.toml", "".join(f"[unknown{n}]\nk = 1\n" for n in range(30)))
    store.index()
    rows = store.rows("select code, message from problems where path = 'memories/seamless/flood.md' order by rowid")
    assert rows[:-1] == [("bad-tags", "a tag must be text, not a list; ignored")] * 20
    assert rows[-1] == ("more-warnings", "15,980 more warnings not listed: 15,980 bad-tags")
    assert indexed(store, "memories/seamless/flood.md")  # warnings only: indexed, as before
    assert [code for _, _, code, _ in settings_problems(store)] == ["unknown-setting"] * 20 + ["more-warnings"]


def test_errors_are_never_capped(store):
    extra = "".join(f"k{n}: 1\n" for n in range(3))
    store.write(
        "memories/seamless/m.md", memory(1, kind="nonsense", tags="[" + ", ".join(["[]"] * 30) + "]", extra=extra)
    )
    store.index()
    codes = [code for _, code in problems_of(store, "memories/seamless/m.md")]
    assert "unknown-kind" in codes and "more-warnings" in codes
    assert not indexed(store, "memories/seamless/m.md")


def settled(*paths: Path) -> None:
    """Files written an hour ago: a run trusts their size and time (a file just written is read again)."""
    for path in paths:
        os.utime(path, (time.time() - 3600,) * 2)


def test_a_run_prints_the_problems_of_the_files_it_read(store):
    settled(
        store.write("memories/seamless/bad.md", memory(1, kind="nonsense")),
        store.write("memories/other/warned.md", memory(2, name="Not_Kebab")),
    )
    first = run_cli("index", store.root, "--db", store.db_path)
    assert "bad.md:" in first.stdout and "warned.md:" in first.stdout
    noop = run_cli("index", store.root, "--db", store.db_path)
    assert noop.stdout == ""  # nothing read, nothing new to say
    assert "2 problems in files this run did not change are not listed: `seamless problems --db" in noop.stderr
    settled(store.write("memories/other/warned.md", memory(2, name="Still_Not_Kebab")))
    edited = run_cli("index", store.root, "--db", store.db_path)
    assert "warned.md:" in edited.stdout and "bad.md:" not in edited.stdout
    for command in (["index", "--strict"], ["index", "--full"], ["check"]):
        result = run_cli(*command, store.root, *(["--db", store.db_path] if command[0] == "index" else []))
        assert "bad.md:" in result.stdout and "warned.md:" in result.stdout, command
        assert "not listed" not in result.stderr


def parsed_while(function, *args) -> tuple[int, object]:
    """How many files `function(*args)` parsed (calls of parse.parse_bytes, counted by a profiler), and its result."""
    profile = cProfile.Profile()
    result = profile.runcall(function, *args)
    calls = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return sum(
        v[1] for (file, _, name), v in calls.items() if name == "parse_bytes" and file.endswith("parse.py")
    ), result


def test_files_read_again_with_the_same_bytes_are_neither_parsed_nor_reported_again(store, monkeypatch):
    """Files full of warnings (each over the cap), read again only to find their bytes the same (written too
    recently to trust their times, then touched): no run after the first parses them or prints their problems,
    and `seamless problems` lists them all, in the lines the first run printed."""
    monkeypatch.chdir(store.root)
    tags = "[" + ", ".join(["[]"] * 300) + "]"
    paths = [store.write(f"memories/seamless/flood-{n}.md", memory(n, tags=tags)) for n in range(5)]
    first = run_cli("index", ".", "--db", store.db_path)  # just written: their times are not trusted yet
    assert len(first.stdout.splitlines()) == 5 * 21  # 20 bad-tags and one more-warnings each
    unlisted = f"105 problems in files this run did not change are not listed: `seamless problems --db {store.db_path}`"
    for reason in ("too recent to trust", "touched"):
        parsed, again = parsed_while(run_cli, "index", ".", "--db", store.db_path)
        assert (parsed, again.stdout) == (0, ""), reason
        assert unlisted in again.stderr, reason
        settled(*paths)  # for the next run: other times, the same bytes
    listed = run_cli("problems", "--db", store.db_path)
    assert listed.stdout == first.stdout and listed.exit_code == 0
    assert "105 problems in the index" in listed.stderr
    as_json = json.loads(run_cli("problems", "--db", store.db_path, "--json").stdout)
    assert len(as_json) == 105 and as_json[0].keys() == {"path", "line", "severity", "code", "message"}
    settled(store.write("memories/seamless/flood-1.md", memory(1, tags=tags.replace("[], ", "", 1))))
    parsed, edited = parsed_while(run_cli, "index", ".", "--db", store.db_path)
    assert parsed == 1 and len(edited.stdout.splitlines()) == 21  # the edited file alone: its whole verdict
    assert "84 problems in files this run did not change are not listed" in edited.stderr


# --- 10. DNS rebinding: only the host names the server was started for, no foreign Origin ---

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("host", ["localhost:8001", "127.0.0.1:8001", "[::1]:8001", "localhost"])
async def test_the_local_names_are_answered(ds, host):
    response = await ds.client.get("/seamless/memories.json?_size=1", headers={"host": host})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "path", ["/seamless/memories.json", "/seamless/briefing.json?project=seamless", "/seamless.json?sql=select+1", "/"]
)
@pytest.mark.parametrize(
    "headers",
    [
        {"host": "rebind.attacker.example"},
        {"host": "rebind.attacker.example:8001"},
        {"host": "localhost:8001", "origin": "http://rebind.attacker.example"},
        {"host": "localhost:8001", "origin": "null"},
    ],
)
async def test_a_foreign_host_or_origin_is_refused(ds, path, headers):
    response = await ds.client.get(path, headers=headers)
    assert response.status_code == 403, response.text[:300]
    assert "Forbidden" in response.text


def test_serve_answers_to_the_names_it_is_given_and_mcp_to_its_own_pages(example_db, tmp_path):
    port = free_port()
    command = [sys.executable, "-c", "from indexer.front.cli import cli; cli()", "serve", "--db", str(example_db)]
    command += ["--port", str(port), "--allow-host", "explorer.lan"]
    log = open(tmp_path / "serve.log", "w")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:

        def status(host: str, path: str = "/seamless/settings.json", origin: str | None = None) -> int:
            headers = {"Host": host} | ({"Origin": origin, **MCP_HEADERS} if origin else {})
            data = json.dumps(INITIALIZE).encode() if origin else None
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data, headers)
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    return response.status
            except urllib.error.HTTPError as e:
                return e.code

        deadline = time.monotonic() + 60
        while True:
            try:
                first = status("explorer.lan")
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.2)
        assert first == 200
        assert status(f"127.0.0.1:{port}") == 200
        assert status("rebind.attacker.example") == 403
        if importlib.util.find_spec("datasette_mcp") is not None:  # MCP's initialize, from a page of another site
            assert status(f"localhost:{port}", "/-/mcp", "https://rebind.attacker.example") == 403
            assert status(f"localhost:{port}", "/-/mcp", f"http://localhost:{port}") == 200
    finally:
        server.terminate()
        server.wait(10)
        log.close()


# --- 11. a table page's unreadable parameter is a 400 that says what is wrong ---

BAD_TABLE_PARAMETERS = {
    "_through={}": "_through must be JSON like",
    '_through={"table":"x"}': "_through must be JSON like",
    "_through=[1]": "_through must be JSON like",
    "_through=abc": "_through must be JSON like",
    '_through={"table":"x","column":"y","value":"z"}': "Invalid _through",
    "id__in=[": "id__in must be a JSON list",
    "id__in=[1": "id__in must be a JSON list",
    "id__notin=[": "id__notin must be a JSON list",
    "_sort=nope": "Cannot sort table by nope",
    "_sort_desc=nope": "Cannot sort table by nope",
    "_sort=body&_sort_desc=id": "Cannot use _sort and _sort_desc at the same time",
    "_timelimit=abc": "_timelimit must be a whole number",
    # found by the fuzz campaign: Datasette reads a _facet* value that starts with { as JSON
    "_facet={": "_facet must be a column name, or JSON like",
    "_facet={}": "_facet must be a column name, or JSON like",
    '_facet={"column":1}': "_facet must be a column name, or JSON like",
    "_facet_array={}": "_facet_array must be a column name, or JSON like",
    "_facet_size={": "_facet_size must be a column name, or JSON like",
}


@pytest.mark.parametrize(
    "table_page", ["memories.json", "memories", "active_memories.json", "notes.json", "memories.csv"]
)
@pytest.mark.parametrize("parameter", BAD_TABLE_PARAMETERS)
async def test_a_parameter_datasette_cannot_read_is_a_400_saying_why(ds, table_page, parameter):
    response = await ds.client.get(f"/seamless/{table_page}?{parameter}")
    if table_page.endswith(".csv") and parameter.startswith("_facet"):
        assert response.status_code == 200  # CSV has no facets: nothing reads them
        return
    assert response.status_code == 400, response.text[:300]
    assert html.escape(BAD_TABLE_PARAMETERS[parameter], quote=False) in response.text.replace("&#34;", '"')


async def test_a_view_with_a_next_that_is_no_number_is_a_400(ds):
    response = await ds.client.get("/seamless/active_memories.json?_next=abc")
    assert response.status_code == 400 and "_next" in response.text


async def test_good_parameters_still_answer(ds):
    for query in (
        "_sort=updated",
        "_sort_desc=created",
        'id__in=["a","b"]',
        "id__in=a,b",
        "_timelimit=500",
        '_facet={"column":"kind"}',
    ):
        assert (await ds.client.get(f"/seamless/memories.json?{query}")).status_code == 200, query


# --- 12. control characters in printed paths are escaped: one problem, one line ---


def test_a_file_name_cannot_forge_a_problem_line(store):
    forged = "x.md\nmemories/seamless/innocent.md:1: error yaml-error: forged\x1b[2K\r"
    store.write(f"memories/seamless/{forged}.md", "---\nkind: [\n---\n")
    store.write("memories/seamless/tab\there.md", "---\nkind: [\n---\n")
    for command in ("index", "check"):
        result = run_cli(command, store.root, *(["--db", store.db_path] if command == "index" else []))
        lines = result.stdout.splitlines()
        assert len(lines) == 2, lines  # one line per problem, nothing else
        assert all(line.startswith(f"{store.root}/memories/seamless/") for line in lines)
        assert "x.md\\nmemories/seamless/innocent.md:1: error yaml-error: forged\\x1b[2K\\r.md:3:" in result.stdout
        assert "tab\\there.md:3:" in result.stdout
        assert "\x1b" not in result.stdout


ESCAPE = "\x1b]0;pwned\x07\x1b[2J"  # sets the terminal's title, clears the screen


def test_recall_history_and_gardener_print_store_text_escaped(store):
    """Titles, names, descriptions and paths come from files: printed with control characters escaped."""
    project = f"evil{ESCAPE}"
    new = store.memory("chroma-race-fixed", project=project, description=f"chroma fixed {ESCAPE}")
    old = store.memory(
        "chroma-race",
        project=project,
        description=f"chroma {ESCAPE}",
        invalid_at="2026-07-11T00:00:00Z",
        superseded_by=new["id"],
    )
    store.write(f"notes/{project}/n.md", f"---\ntitle: {json.dumps(f'chroma {ESCAPE}')}\n---\nchroma\n")
    store.write("seamless.toml", "[gardener]\nstale_memories = true\n")  # so the gardener proposes one to print
    store.index()
    db = ["--db", store.db_path]
    assert "2. note notes/evil\\x1b" in run_cli("recall", "chroma", *db).stdout  # the note's path and title too
    for args in (["recall", "chroma"], ["history", old["id"]], ["gardener", "--as-of", "2027-12-01T00:00:00Z"]):
        result = run_cli(*args, *db)
        assert result.exit_code == 0 and result.stdout, (args, result.output)
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout, (args, result.stdout)
        assert "\\x1b]0;pwned\\x07\\x1b[2J" in result.stdout, args


# --- 13. our own index is recognised (PRAGMA application_id); any other SQLite file is refused, untouched ---


def unrelated_database(path: Path) -> bytes:
    """A SQLite file of someone else's that happens to hold a `memories` table; its bytes."""
    with sqlite3.connect(path) as conn:
        conn.execute("create table memories (id integer primary key, text)")
        conn.execute("insert into memories (text) values ('not ours')")
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    "command",
    [
        ["briefing", "--project", "seamless"],
        ["recall", "chroma"],
        ["history", "chroma-boot-race"],
        ["gardener"],
        ["index", str(EXAMPLE_STORE)],
    ],
)
def test_another_sqlite_database_is_refused_in_one_sentence_and_left_untouched(tmp_path, command):
    other = tmp_path / "other.db"
    before = unrelated_database(other)
    result = CliRunner().invoke(cli, [*command, "--db", str(other)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "is a SQLite database but not a seamless index" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert other.read_bytes() == before and not Path(f"{other}-wal").exists()


def test_serve_refuses_another_sqlite_database(tmp_path):
    other = tmp_path / "other.db"
    unrelated_database(other)
    result = seamless("serve", "--db", other, "--port", free_port(), timeout=60)  # a server that starts never ends
    assert result.returncode == 1 and "is a SQLite database but not a seamless index" in result.stderr


def test_an_index_is_stamped_and_an_older_one_still_read(store):
    store.memory("chroma-boot-race")
    store.index()
    assert store.rows("pragma application_id") == [(0x5345414D,)]
    with sqlite3.connect(store.db_path) as conn:  # as an index made before application_id was set
        conn.execute("pragma application_id = 0")
    conn.close()
    result = run_cli("history", "chroma-boot-race", "--db", store.db_path)
    assert result.exit_code == 0 and "chroma-boot-race" in result.output
    store.index()
    assert store.rows("pragma application_id") == [(0x5345414D,)]
