"""`seamless hook session-start` (SPEC 11): the harness's event on standard input, one JSON object out, exit 0
whatever happens, the briefing within --max-chars with pinned memories first and never a silent cut."""

import json
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from stores import seamless

from indexer.front.cli import cli

SOURCES = ("startup", "resume", "clear", "compact")


def event(source="startup", cwd=None) -> str:
    fields = {"session_id": "0a1b", "source": source, "hook_event_name": "SessionStart"}
    return json.dumps(fields | ({"cwd": str(cwd)} if cwd else {}))


def hook(store, *options, input=None, env=None, cwd=None):
    """The hook's `additionalContext`, through the real command; it must exit 0 with only that JSON object."""
    done = seamless(
        "hook", "session-start", "--db", store.db_path, *options, input=input, env=env, cwd=cwd or store.root.parent
    )
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert list(output) == ["hookSpecificOutput"]
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return output["hookSpecificOutput"]["additionalContext"]


def context(store, *options, input="", env=None) -> str:
    """The same through click's runner: quicker, for the many variants."""
    env = {"SEAMLESS_PROJECT": None, **(env or {})}
    result = CliRunner().invoke(
        cli, ["hook", "session-start", "--db", str(store.db_path), *map(str, options)], input=input, env=env
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["hookSpecificOutput"]["additionalContext"]


def briefing(store, project, *options) -> str:
    result = CliRunner().invoke(cli, ["briefing", "--project", project, "--db", str(store.db_path), *options])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("source", SOURCES)
def test_every_source_gets_the_projects_briefing_as_seamless_briefing_gives_it(briefed, source):
    # at one time: `As of` names the second each was made in
    text = hook(briefed, "--store", briefed.root, "--project", "seamless", "--as-of", "2026-12-01", input=event(source))
    assert text == briefing(briefed, "seamless", "--as-of", "2026-12-01")
    assert "chroma-port" in text and "no-secrets" in text and "console-port" not in text


def test_the_project_comes_from_the_environment_then_the_git_root_of_the_events_cwd(briefed, tmp_path):
    assert "chroma-port" in context(briefed, env={"SEAMLESS_PROJECT": "seamless"})
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    repository = tmp_path / "work" / "console"
    (repository / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    text = context(briefed, input=event(cwd=repository / "src" / "deep"))
    assert text.startswith("# Briefing: console\n") and "console-port" in text
    # the event's cwd decides, not the process's; the flag decides over both
    assert "chroma-port" in context(briefed, "--project", "seamless", input=event(cwd=repository))


def test_no_project_mapped_gives_the_global_briefing_and_says_how_to_map_one(briefed, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(tmp_path / "elsewhere")], check=True)
    text = context(briefed, "--as-of", "2026-12-01", input=event(cwd=tmp_path / "elsewhere"))
    first, rest = text.split("\n\n", 1)
    assert "No project of the Seamless memory store is mapped" in first and "seamless init DIR" in first
    assert "SEAMLESS_PROJECT" in first and "The store's projects: console, seamless." in first
    assert "'elsewhere'" in first or "not in a git work tree" in first
    assert (
        rest == briefing(briefed, "global", "--as-of", "2026-12-01")
        and "no-secrets" in rest
        and "chroma-port" not in rest
    )


@pytest.mark.parametrize(
    "given", ["", "not json", "[1, 2]", '"text"', "\xff\xfe{", '{"cwd": 42}', '{"cwd": "/nowhere"}']
)
def test_empty_or_malformed_input_is_no_input(briefed, given):
    text = context(briefed, "--project", "seamless", "--as-of", "2026-12-01", input=given)
    assert text == briefing(briefed, "seamless", "--as-of", "2026-12-01")


def test_a_missing_or_foreign_index_is_said_in_the_text_with_exit_0(briefed, tmp_path):
    missing = tmp_path / "none.db"
    text = hook(briefed, "--store", briefed.root, "--project", "seamless", "--db", missing, input=event())
    assert f"no index at {missing}" in text and f"seamless index {briefed.root} --db {missing}" in text
    assert not missing.exists()
    (tmp_path / "notes.txt").write_text("not a database")
    text = context(briefed, "--project", "seamless", "--db", tmp_path / "notes.txt")
    assert "is not a Seamless index" in text
    other = type(briefed)(tmp_path / "other")
    other.index()
    text = context(briefed, "--store", other.root, "--project", "seamless")
    assert "cannot brief this session" in text and f"holds the store at {briefed.root.resolve()}" in text


def test_the_text_stays_within_max_chars_pinned_first_and_says_what_was_left_out(store):
    for n in range(40):
        store.memory(f"rule-{n:02d}", kind="constraint", description=f"Rule {n:02d}: " + "never do this " * 6)
    for n in range(10):
        store.memory(f"fact-{n:02d}", kind="gotcha", description=f"Fact {n:02d}", updated=f"2026-07-{n + 11}T00:00:00Z")
    store.index()
    full = briefing(store, "seamless", "--budget", "100000")
    whole = context(store, "--project", "seamless", "--max-chars", 100000)
    assert whole.endswith(full.split("\n", 4)[4])  # all of it, nothing left out
    for limit in (500, 1200, 3000, len(whole) - 1):
        text = context(store, "--project", "seamless", "--max-chars", limit)
        assert len(text) <= limit
        shown = re.findall(r"^- \[(\w+)\] ([\w-]+):", text, re.MULTILINE)
        kinds = [kind for kind, _ in shown]
        assert kinds == sorted(kinds, key=lambda k: k != "constraint"), "a pinned memory was left out before another"
        last = text.rstrip("\n").rsplit("\n", 1)[1]
        left = 50 - len(shown)
        pinned = 40 - kinds.count("constraint")
        assert last == (
            f"{left} of 50 memories left out to stay within {limit} characters ({pinned} of them pinned): "
            f"`seamless briefing --project seamless --db {store.db_path}` shows them all."
        )
    cut = context(store, "--project", "seamless", "--max-chars", 1200, "--as-of", "2026-12-01")
    assert "`seamless briefing --project seamless --db " in cut and "--as-of 2026-12-01T00:00:00Z`" in cut


def test_a_bad_option_is_a_usage_error_not_a_traceback(store):
    result = CliRunner().invoke(cli, ["hook", "session-start", "--max-chars", "10"])
    assert result.exit_code == 2 and "Traceback" not in result.output


# The index brought in step first (SPEC 11): what changed since it was built is briefed, or the text says why not


def status(store) -> int:
    return seamless("status", store.root, "--db", store.db_path).returncode


def test_files_changed_since_the_index_was_built_are_indexed_before_the_briefing(briefed):
    briefed.memory("boot-race", description="Boot race: wait for the port before connecting")  # new
    chroma = briefed.root / "memories/seamless/chroma-port.md"
    chroma.write_text(chroma.read_text().replace("Chroma listens on 8000", "Chroma listens on 8001"))  # in place
    (briefed.root / "memories/_global/no-secrets.md").unlink()  # gone
    assert status(briefed) == 1
    text = hook(briefed, "--store", briefed.root, "--project", "seamless", input=event())
    assert text.startswith("# Briefing: seamless\n"), text  # nothing to say: the index is in step now
    assert "boot-race" in text and "Chroma listens on 8001" in text and "no-secrets" not in text
    assert status(briefed) == 0
    # the store comes from the index when the hook is given none
    briefed.memory("late-rule", kind="constraint", description="A rule written by hand")
    assert "late-rule" in hook(briefed, "--project", "seamless", input=event())


def test_an_index_it_cannot_bring_in_step_is_said_to_be_behind_with_the_command(briefed):
    from indexer.index.database import writer_lock

    briefed.memory("boot-race", description="Boot race: wait for the port")
    with writer_lock(briefed.db_path):  # another index run holds the index: the hook does not wait for it
        text = hook(briefed, "--store", briefed.root, "--project", "seamless", input=event())
    first, rest = text.split("\n\n", 1)
    assert first == (
        f"The Seamless index at {briefed.db_path} is behind its store: another index run holds the index (1 paths: "
        "memories/seamless/boot-race.md), so this briefing may miss memories or show them as they were. Bring it in "
        f"step: `seamless index {briefed.root} --db {briefed.db_path}`."
    )
    assert rest.startswith("# Briefing: seamless\n") and "boot-race" not in rest
    (briefed.root / "seamless.toml").write_text("[briefing]\nbudget_chars = 3000\n")  # a run over the whole store
    text = hook(briefed, "--store", briefed.root, "--project", "seamless", input=event())
    assert text.startswith("The Seamless index at ") and "the store's settings (seamless.toml) changed" in text
    assert status(briefed) == 1


def test_a_store_moved_away_is_said_gone_and_briefed_from_its_index(briefed, tmp_path):
    moved = tmp_path / "moved"
    briefed.root.rename(moved)
    text = hook(briefed, "--project", "seamless", input=event(cwd=tmp_path))
    first, rest = text.split("\n\n", 1)
    assert first.startswith(f"The Seamless memory store at {briefed.root} is gone (moved or deleted)")
    assert f"`seamless init {tmp_path} --store NEW_PLACE`" in first
    assert rest.startswith("# Briefing: seamless\n") and "chroma-port" in rest


def test_a_project_the_store_has_no_memory_of_is_said_with_the_stores_projects(briefed):
    text = context(briefed, "--project", "seamles", "--as-of", "2026-12-01")
    first, rest = text.split("\n\n", 1)
    assert first == (
        "The Seamless memory store has no memory of project 'seamles' yet, so this briefing holds the global memories "
        "only. If the name is misspelt, mend it with `seamless init DIR --project P`. The store's projects: console, "
        "seamless."
    )
    assert rest.startswith("# Briefing: seamles\n") and "no-secrets" in rest and "chroma-port" not in rest
