"""Hardening (issue 18): whatever a file, a setting or a request holds, no crash, hang, outside read or stall.

Each test drives the real thing (a store on disk, the `seamless` command, a configured Datasette)
with an input an outside review used to break it.
"""

import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import started_explorer
from hypothesis import given, settings
from hypothesis import strategies as st
from stores import seamless
from test_hostile_input import indexed, memory, problems_of, run_cli

from indexer.cli import cli
from indexer.validate import first_heading

# Times that parse but leave datetime's range once converted to UTC
OUT_OF_RANGE = ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00")
MEMORY_TIMESTAMPS = ("created", "updated", "valid_from", "invalid_at")
NOTE_TIMESTAMPS = ("created", "updated")


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
        cap + "from indexer.cli import cli; cli()",
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
