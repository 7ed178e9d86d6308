"""What a command costs before it does anything: `seamless` imports a command's module only when it runs (click's
lazily loaded subcommands), and a command keeps the heavy libraries it does not use (Datasette, mcp, watchfiles, the
gardener, the store's git history, YAML) off its process. Timed by `python -m bench.startup`, never here."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import EXAMPLE_STORE

from indexer.front.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent

# the gardener's reading of words and values, and the readers of the store's git history
GARDENER = {"indexer.gardener", "indexer.gardener.reading", "indexer.gardener.findings", "Stemmer"}
HISTORY = {"indexer.index.revision_rows", "indexer.query.revisions", "indexer.git.history"}
YAML = {"yaml", "frontmatter", "indexer.store.parse"}
SERVERS = {"datasette", "uvicorn", "mcp", "watchfiles"}


def imported_by_command(args: list, cwd: Path, stdin: bytes = b"") -> set[str]:
    """Every module the real `seamless ARGS` process (the console script's entry), run in `cwd`, had imported when
    it exited with 0."""
    out = cwd / "modules.txt"
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda out=sys.argv[1]: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
        "sys.argv = ['seamless', *sys.argv[2:]]\n"
        "from indexer.front.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, out, *map(str, args)], input=stdin, capture_output=True, cwd=cwd
    )
    assert done.returncode == 0, done.stderr.decode()
    return set(out.read_text().split())


def command_modules() -> set[str]:
    return {target.rpartition(".")[0] for target, _ in COMMANDS.values()}


def heavy(modules: set[str]) -> set[str]:
    """The heavy libraries among `modules`: a server's, the gardener's, the git history's."""
    found = modules & (GARDENER | HISTORY)
    return found | {m for m in modules if m.split(".")[0] in SERVERS}


def test_the_readers_import_no_heavy_library_nor_yaml(example_db, tmp_path):
    """recall, briefing, history and the session-start hook: what agents run most, each a whole process."""
    event = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}).encode()
    db = ["--db", example_db]
    commands = {
        "recall": (["recall", "chroma port", *db], b""),
        "briefing": (["briefing", "--project", "seamless", *db], b""),
        "hook": (["hook", "session-start", "--store", EXAMPLE_STORE, *db, "--project", "seamless"], event),
        "history": (["history", "chroma-boot-race", *db], b""),
    }
    for name, (args, stdin) in commands.items():
        modules = imported_by_command(args, tmp_path, stdin)
        assert "indexer.query.queries" in modules, name  # the probe saw the command run
        unwanted = heavy(modules) | modules & (YAML | {"tomllib"})  # (the hook's settings: as the index's)
        assert not unwanted, f"{name} imports {sorted(unwanted)}"
        own = COMMANDS[name][0].rpartition(".")[0]
        assert not modules & command_modules() - {own}, name


def test_an_index_run_with_nothing_to_do_reads_no_yaml_and_no_gardener(example_db, tmp_path):
    """Nor does it write a row or hash a file, nor load OpenSSL for it, nor read the git history (its head did not
    move), nor parse seamless.toml (the same bytes as the index's settings were made from)."""
    store = shutil.copytree(EXAMPLE_STORE, tmp_path / "store")  # its files' times as old as the checkout's
    identity = ["-c", "user.name=A", "-c", "user.email=a@example.com"]
    for args in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-qm", "the store"]):
        subprocess.run(["git", "-C", str(store), *args], check=True, capture_output=True)
    db = tmp_path / "seamless.db"
    imported_by_command(["index", store, "--db", db], tmp_path)  # the first run reads everything
    modules = imported_by_command(["index", store, "--db", db], tmp_path)
    assert "indexer.index.build" in modules
    unwanted = heavy(modules) | modules & (YAML | {"indexer.index.writer", "indexer.store.validate", "tomllib"})
    assert not unwanted and "_hashlib" not in modules, sorted(unwanted)


def test_a_check_runs_neither_the_gardener_nor_a_server(tmp_path):
    """`seamless check` parses every file (python-frontmatter's split, YAML): the gardener does not run."""
    modules = imported_by_command(["check", EXAMPLE_STORE], tmp_path)
    assert "indexer.store.parse" in modules
    unwanted = heavy(modules) - HISTORY
    assert not unwanted, sorted(unwanted)


def test_the_gardener_commands_read_no_rules_and_start_no_process_when_its_findings_are_in_step(example_db, tmp_path):
    """`needs-human` and `gardener` ask whether the findings are current first: in step, they import neither the
    gardener's rules nor subprocess, which only starting a settle of its own needs."""
    for name in ("needs-human", "gardener"):
        modules = imported_by_command([name, "--db", example_db], tmp_path)
        assert COMMANDS[name][0].rpartition(".")[0] in modules, name  # the probe saw the command run
        unwanted = modules & (GARDENER - {"indexer.gardener"} | {"subprocess"})
        assert not unwanted, f"{name} imports {sorted(unwanted)}"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_is_loaded_under_its_name(name):
    """`seamless --help` lists it, and asking for it imports its module: the command's summary is the one listed."""
    with click.Context(cli) as ctx:
        assert name in cli.list_commands(ctx)
        command = cli.get_command(ctx, name)
        assert command.name == name
        assert command.get_short_help_str(limit=80) == COMMANDS[name][1]


def test_listing_the_commands_imports_none_of_them(tmp_path):
    """`seamless --help` prints each command's summary from COMMANDS."""
    modules = imported_by_command(["--help"], tmp_path)
    assert "indexer.front.cli" in modules
    assert not modules & command_modules(), sorted(modules & command_modules())


def test_python_does_not_walk_the_objects_of_a_finished_command(example_db, tmp_path):
    """The last exit handler freezes the collector's objects: the shutdown's collection has nothing to walk."""
    probe = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: sys.stderr.write(f'frozen {gc.get_freeze_count()}'))\n"  # runs after main's handler
        "sys.argv = ['seamless', 'recall', 'chroma port', '--db', sys.argv[1]]\n"
        "from indexer.front.cli import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(example_db)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and "1. [" in done.stdout, done.stderr
    assert int(done.stderr.rpartition("frozen ")[2]) > 1_000  # (0 without the freeze)
