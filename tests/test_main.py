"""`seamless` runs its hot commands without click (indexer.front.main), and answers exactly as click does.

Each command line below is run both ways on the same store: by `main.run` (no click) and by click (CliRunner on
`cli`), and gives the same standard output, standard error and exit code; a command line `main` does not
understand whole (help, an unknown or repeated option, a value click refuses) is left to click.
"""

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE_STORE, FIXTURES
from gitstores import git

from docs import generate
from indexer.front import main
from indexer.front.cli import cli

AS_OF = "2026-06-01T00:00:00Z"


def test_the_declared_options_are_those_click_declares():
    """indexer/front/declared.py is written from the click commands: `make docs` writes it again."""
    assert generate.DECLARED.read_text() == generate.declared(), "run `make docs` (python -m docs.generate)"


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The example store in a git repository, indexed; and a store of rule fixtures with errors, indexed."""
    folder = tmp_path_factory.mktemp("main")
    good = shutil.copytree(EXAMPLE_STORE, folder / "store")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"]):
        git(good, *args)
    git(good, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "the example store")
    bad = folder / "bad"
    for case in ("duplicate-id", "bad-timestamp"):
        shutil.copytree(FIXTURES / "rules" / case, bad, dirs_exist_ok=True)
    assert CliRunner().invoke(cli, ["index", str(good), "--db", str(folder / "good.db")]).exit_code == 0
    CliRunner().invoke(cli, ["index", str(bad), "--db", str(folder / "bad.db")])
    return folder


def outcome_with_click(argv: list[str], stdin: bytes) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, argv, input=stdin, prog_name="seamless")
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def outcome_without_click(argv: list[str], stdin: bytes, capsys, monkeypatch) -> tuple[int, str, str] | None:
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    try:
        code = main.run(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return None if code is None else (code, out, err)


def same_both_ways(argv, capsys, monkeypatch, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run `argv` both ways; what they gave (the same), with times and durations left out."""
    argv = [str(a) for a in argv]
    without = outcome_without_click(argv, stdin, capsys, monkeypatch)
    assert without is not None, f"{argv} went to click"
    with_click = outcome_with_click(argv, stdin)
    assert steady(without) == steady(with_click), argv
    return with_click


def steady(outcome: tuple[int, str, str]) -> tuple[int, str, str]:
    """An outcome without the figures that differ from run to run: a run's duration, how long ago."""
    code, out, err = outcome
    clock = re.compile(r"in \d+\.\d+ s|\d+ (?:seconds?|minutes?|s) ago|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
    return code, clock.sub("T", out), clock.sub("T", err)


def cases(folder: Path) -> list[tuple[list, bytes]]:
    good, bad, db = folder / "store", folder / "bad", folder / "good.db"
    event = json.dumps({"session_id": "s", "cwd": str(good), "hook_event_name": "SessionStart"}).encode()
    hook = ["hook", "session-start", "--store", good, "--db", db]
    return [
        (["index", good, "--db", db], b""),
        (["index", bad, "--db", folder / "bad.db", "--strict"], b""),  # exit 1, every problem listed
        (["index", good, "--db", folder / "no-such-folder" / "x.db"], b""),  # Error: cannot open the index
        (["index", good, "--db", folder / "good.db", "--full"], b""),
        (["check", good], b""),
        (["check", bad], b""),
        (["status", good, "--db", db], b""),
        (["status", good, "--db", folder / "missing.db"], b""),  # Error: no index
        (["status", bad, "--db", db], b""),  # Error: another store
        (["recall", "chroma port", "--db", db], b""),
        (["recall", "chroma port", f"--db={db}", "--json", "--limit", "3"], b""),
        (["recall", "port", "--db", db, "--project", "seamless", "--all", "--as-of", "2026-01-01"], b""),
        (["recall", "chroma port last week", "--db", db, "--as-of", "2026-03-20", "--json"], b""),  # a time named
        (["recall", "port in March 2026", "--db", db, "--all"], b""),
        (["recall", "the", "--db", db], b""),  # nothing to search
        (["recall", "--db", db, "--", "-zebra-"], b""),  # no match; a query after --
        (["recall", "x", "--db", EXAMPLE_STORE / "README.md"], b""),  # Error: not an index
        (["briefing", "--project", "seamless", "--as-of", AS_OF, "--db", db], b""),
        (["briefing", "--project", "seamless", "--as-of", AS_OF, "--db", db, "--explain"], b""),
        (["briefing", "--project", "nobody", "--as-of", AS_OF, "--db", db, "--json", "--budget", "0"], b""),
        (["history", "chroma-boot-race", "--db", db], b""),
        (["history", "chroma-boot-race", "--db", db, "--json"], b""),
        (["history", "chroma-boot-race", "--db", db, "--revisions"], b""),
        (["history", "no-such-memory", "--db", db], b""),  # Error
        (["show", "chroma-boot-race", "--db", db], b""),
        (["show", "chroma-boot-race", "--db", db, "--at", "HEAD"], b""),
        (["show", "chroma-boot-race", "--db", db, "--at", "no-such-commit"], b""),  # Error
        ([*hook, "--project", "seamless", "--as-of", AS_OF], event),
        ([*hook, "--max-chars", "600"], event),
        ([*hook, "--project", "seamless"], b"not json"),
    ]


def test_each_command_gives_the_same_answer_without_click(stores, capsys, monkeypatch):
    for variable in ("SEAMLESS_STORE", "SEAMLESS_DB", "SEAMLESS_PROJECT"):
        monkeypatch.delenv(variable, raising=False)
    codes = set()
    for argv, stdin in cases(stores):
        codes.add(same_both_ways(argv, capsys, monkeypatch, stdin)[0])
    assert codes == {0, 1}  # successes and errors alike


def test_the_hook_reads_the_environment_as_click_does(stores, capsys, monkeypatch, tmp_path):
    """SEAMLESS_STORE and SEAMLESS_DB stand for --store and --db; with neither, a folder without an index is told
    how to set the store up."""
    event = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}).encode()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEAMLESS_PROJECT", raising=False)
    for variable in ("SEAMLESS_STORE", "SEAMLESS_DB"):
        monkeypatch.delenv(variable, raising=False)
    _, out, _ = same_both_ways(["hook", "session-start"], capsys, monkeypatch, event)
    assert "not set up on this machine" in out
    monkeypatch.setenv("SEAMLESS_STORE", str(stores / "store"))
    monkeypatch.setenv("SEAMLESS_DB", str(stores / "good.db"))
    monkeypatch.setenv("SEAMLESS_PROJECT", "seamless")
    _, out, _ = same_both_ways(["hook", "session-start", "--as-of", AS_OF], capsys, monkeypatch, event)
    assert "# Briefing: seamless" in out


def test_the_writes_give_the_same_answers_without_click(stores, capsys, monkeypatch, tmp_path):
    """Each write, run without click on one copy of a store and with click on another: the same answers, ids,
    commits and times aside; the same files written and committed."""
    monkeypatch.delenv("SEAMLESS_PROJECT", raising=False)
    monkeypatch.setenv("SEAMLESS_SESSION", "s-1")
    for variable in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(variable, "A" if variable.endswith("NAME") else "a@example.com")
    copies = [shutil.copytree(stores / "store", tmp_path / side, symlinks=True) for side in ("without", "with")]
    gave: list[list] = [[], []]
    for side, (store, run) in enumerate(zip(copies, (outcome_without_click, None))):
        db = store.parent / f"{store.name}.db"
        new = ["--project", "seamless", "--kind", "gotcha", "--name", "port-taken"]
        new += ["--description", "Port 8123 is taken by the bench server", "--db", db]
        lines = [
            (["write", store, *new, "--tag", "ports", "--tag", "bench", "--body", "-"], b"Use 8124 instead.\n"),
            (["write", store, *new, "--json"], b""),  # a retry: unchanged
            (["append", store, "port-taken", "--project", "seamless", "--text", "Since March.", "--db", db], b""),
            (["note", store, "--project", "seamless", "--title", "Ports we use", "--body", "8123, 8124", "--db", db], b""),
            (["archive", store, "port-taken", "--project", "seamless", "--json", "--db", db], b""),
            (["delete", store, "port-taken", "--project", "seamless", "--db", db], b""),  # refused: not active
            (["write", store, "--kind", "gotcha", "--name", "x", "--description", "no project", "--db", db], b""),
        ]  # fmt: skip
        for argv, stdin in lines:
            argv = [str(a) for a in argv]
            if run is None:
                outcome = outcome_with_click(argv, stdin)
            else:
                outcome = run(argv, stdin, capsys, monkeypatch)
                assert outcome is not None, f"{argv} went to click"
            gave[side].append(unnamed(steady(outcome), store))
        gave[side].append(unnamed(git(store, "log", "--format=%s%n%b", "--name-status", "-n", "6"), store))
    assert gave[0] == gave[1]
    assert {code for code, _, _ in gave[1][:-1]} == {0, 1}


def unnamed(outcome, store: Path):
    """An outcome (or a text) without what differs between two runs of the same writes: ids, commits, the store."""
    ids = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b|\b[0-9a-f]{40}\b")
    if isinstance(outcome, str):
        return ids.sub("ID", outcome.replace(str(store), "STORE"))
    return tuple(
        ids.sub("ID", part.replace(str(store), "STORE")) if isinstance(part, str) else part for part in outcome
    )


@pytest.mark.parametrize(
    ("argv", "click_exit"),
    [
        (["recall", "x", "--help"], 0),
        (["recall"], 2),  # QUERY missing
        (["recall", "x", "y"], 2),  # an extra argument
        (["recall", "x", "--limit", "0"], 2),  # below the range
        (["recall", "x", "--limit", "ten"], 2),
        (["recall", "x", "--as-of", "yesterday"], 2),  # the callback's error
        (["recall", "x", "--json=yes"], 2),  # a flag given a value
        (["recall", "x", "--project"], 2),  # no value
        (["recall", "x", "--proj", "p"], 2),
        (["recall", "x", "--limit", "3", "--limit", "4"], 1),  # given twice: click takes the last (no index here)
        (["recall", "x", "--project", "--json"], 1),  # click takes --json for the project
        (["briefing"], 2),  # --project is required
        (["index", "no-such-folder"], 2),
        (["status", str(EXAMPLE_STORE / "README.md")], 2),  # a file, not a folder
        (["hook", "session-start", "--max-chars", "100"], 2),  # under MIN_CHARS
        (["hook", "session-start", "--store", str(EXAMPLE_STORE / "README.md")], 2),
        (["hook", "--help"], 0),
        (["--version"], 0),
        (["write", "store"], 2),  # --kind, --name and --description missing
        ([], 2),
    ],
)
def test_what_is_not_understood_whole_goes_to_click(argv, click_exit, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert outcome_without_click(argv, b"", capsys, monkeypatch) is None
    assert outcome_with_click(argv, b"")[0] == click_exit


def test_click_is_not_imported_by_the_commands_run_without_it(stores, tmp_path):
    """The real console script (a process), for each command: its answer comes without importing click."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('click' in sys.modules and 'CLICK' or 'NO CLICK'))\n"
        "sys.argv = ['seamless', *sys.argv[1:]]\n"
        "from indexer.front.main import main\n"
        "main()\n"
    )
    db = str(stores / "good.db")
    for argv in (["recall", "chroma", "--db", db], ["status", str(stores / "store"), "--db", db]):
        done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0 and done.stderr.endswith("NO CLICK"), done.stderr
    done = subprocess.run([sys.executable, "-c", probe, "recall", "--help"], capture_output=True, text=True)
    assert "QUERY" in done.stdout and done.stderr.endswith("CLICK")
