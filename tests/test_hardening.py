"""Hardening (issue 18): whatever a file, a setting or a request holds, no crash, hang, outside read or stall.

Each test drives the real thing (a store on disk, the `seamless` command, a configured Datasette)
with an input an outside review used to break it.
"""

import pytest
from click.testing import CliRunner
from conftest import started_explorer
from test_hostile_input import indexed, memory, problems_of, run_cli

from indexer.cli import cli

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
