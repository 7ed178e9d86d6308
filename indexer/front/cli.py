"""The `seamless` command line: each command parses its options and calls one library function.

Kept free of Datasette imports so that `seamless index` starts fast. The commands of `main.BODIES` are declared
here (and `hook session-start` in hook.py) for click, which runs them when `indexer.front.main` cannot (their
help, their errors); their bodies are functions of click-free modules, which `main` runs without click.
"""

import contextlib
import importlib
import sys
from pathlib import Path

import click

from indexer.front import options
from indexer.front.console import CommandError, echo_json, echo_line, scope, table
from indexer.front.options import DEFAULT_DB


def store_argument(function):
    return click.argument("store", type=click.Path(exists=True, file_okay=False, path_type=Path))(function)


# The commands kept in modules of their own, as "module:attribute": each module is imported only when its command
# runs (or `seamless --help` lists it), so a command pays for no other's imports
ELSEWHERE = {
    "problems": "indexer.front.problem_list:problems",
    "needs-human": "indexer.front.needs_human:needs_human",  # what needs a human, whole (the explorer's home page)
    "sync": "indexer.front.fleet:sync",  # a fleet (docs/sync.md)
    "git-setup": "indexer.front.fleet:git_setup",
    "merge-driver": "indexer.front.fleet:merge_driver",
    "hook": "indexer.front.hook:hook",  # agents' harnesses (docs/agents.md)
    "init": "indexer.front.init:init",
    "export": "indexer.front.export:export",
    "import": "indexer.front.imports:import_group",
}


class LazyGroup(click.Group):
    """A click group that loads the commands of ELSEWHERE when asked for them (click's "lazily loading
    subcommands")."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *ELSEWHERE})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in ELSEWHERE and name not in self.commands:
            module, attribute = ELSEWHERE[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CommandError as e:  # a command body's error, shown as click shows its own
            raise click.ClickException(e.message) from None


def run_body(command: str, given: dict) -> None:
    """Run `command`'s body (`main.BODIES`) with the values click read, as `main` runs it without click."""
    from indexer.front import main

    ctx = click.get_current_context()
    default = click.core.ParameterSource.DEFAULT
    main.run_body(command, given, {name for name in given if ctx.get_parameter_source(name) is default})


@click.group(cls=LazyGroup)
@click.version_option(package_name="seamless-explorer")
def cli():
    """Index and explore a Seamless memory store."""


@cli.command()
@store_argument
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to build or update.")
@click.option("--full", is_flag=True, help="Rebuild everything instead of only what changed.")
@click.option("--strict", is_flag=True, help="Exit 1 if any file has an error problem.")
def index(**given):
    """Build or update the index of STORE (a folder with memories/ and notes/)."""
    run_body("index", given)


@cli.command()
@store_argument
def check(**given):
    """Validate STORE without writing anything; exit 1 on any error problem."""
    run_body("check", given)


@cli.command()
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to serve (read-only).")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Interface to bind; 0.0.0.0 exposes it to the network."
)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option(
    "--watch",
    "watch_store",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="STORE",
    help="Also keep the index in step with STORE (`seamless watch` in a second process, stopped with the server).",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name the explorer answers to besides localhost, 127.0.0.1, [::1] and --host (repeatable).",
)
def serve(db_path, host, port, watch_store, allowed_hosts):
    """Serve the explorer (Datasette, read-only) on the index at --db."""
    from indexer.front.serve import ExplorerError
    from indexer.front.serve import serve as run

    with _watching(watch_store, db_path) if watch_store else contextlib.nullcontext():
        try:
            run(db_path, host=host, port=port, allowed_hosts=allowed_hosts)
        except ExplorerError as e:
            raise click.ClickException(str(e)) from e


@contextlib.contextmanager
def _watching(store: Path, db_path: str):
    """Run `seamless watch STORE` beside the block, from its first index until the block ends."""
    from indexer.index.watch import WatcherProcess

    # Should this process die of a signal (uvicorn raises SIGTERM again once the server is down), the
    # watcher sees its parent gone within a tick and stops by itself
    try:
        with WatcherProcess(store, db_path) as watcher:
            yield watcher
    except RuntimeError as e:
        raise click.ClickException(str(e)) from e


# Reading the index: briefing, recall, history, gardener. Each runs one query of indexer.query.queries.


def db_option(function):
    return click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to read.")(function)


def json_option(function):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")(function)


def as_of_option(function):
    return click.option(
        "--as-of",
        "as_of",
        callback=options.as_of,
        metavar="T",
        help="Replay the store as it was at T: an ISO 8601 date or time (Z or an offset). Default: now.",
    )(function)


def _connect(db_path: str, read_only: bool = False):
    """An open index, or a click error saying how to make one (for the commands declared here with their bodies)."""
    from indexer.front.read_commands import connect

    try:
        return connect(db_path, read_only)
    except CommandError as e:
        raise click.ClickException(e.message) from None


# what the commands here and in other front modules print with (indexer.front.console)
_echo_json, _echo_line, _table, _scope = echo_json, echo_line, table, scope


@cli.command()
@click.option("--project", required=True, help="The project to brief; `global` for global memories only.")
@as_of_option
@click.option(
    "--budget", type=click.IntRange(min=0), help="Characters of descriptions (default: briefing.budget_chars)."
)
@click.option("--explain", is_flag=True, help="Show the ledger: every memory in scope, whether it went in and why.")
@json_option
@db_option
def briefing(**given):
    """What an agent on PROJECT is told before it starts: pinned memories, then the newest that fit."""
    run_body("briefing", given)


@cli.command()
@click.argument("query")
@click.option("--project", help="Only this project plus global (`global`: global only).")
@click.option(
    "--limit", default=20, show_default=True, type=click.IntRange(min=1), help="How many results (at most 100)."
)
@click.option("--all", "every", is_flag=True, help="Every word must match (stop words too), as before questions.")
@as_of_option
@json_option
@db_option
def recall(**given):
    """Ask in plain words: the memories and notes that answer, best first.

    Searches the memories valid now (or at --as-of) and the notes. QUERY is any text: a question, keywords, an error line, an identifier. A result holds any of its words
    (stemmed: races finds race; stop words such as what, when, the are left out), the most and rarest first;
    an identifier (CHROMA_PORT, chroma-boot-race) counts whole and in parts; "a phrase" in double quotes is a
    phrase; a trailing * matches a prefix. A time it names (in March 2026, on 2026-03-18, last week, yesterday,
    read against --as-of) ranks what was written then higher. --json gives each result's `matched` terms.
    """
    run_body("recall", given)


@cli.command()
@click.argument("id_or_name")
@click.option("--project", help="The project of the name, when several use it (`global` for global).")
@click.option("--revisions", is_flag=True, help="Instead, its file's git revisions, oldest first (a note's too).")
@json_option
@db_option
def history(**given):
    """The supersession chain of a memory (its id, or its name), oldest first, and its current truth."""
    run_body("history", given)


@cli.command()
@click.argument("x", metavar="X")
@click.option("--project", help="The project of the name X, when several use it (`global` for global).")
@click.option(
    "--at",
    metavar="COMMIT_OR_TIME",
    help="Show the file as it stood at this commit (anything git names one by) or ISO 8601 time. Default: now.",
)
@db_option
def show(**given):
    """Print the file of X (a memory's id or name, a note's id or path) as it stands now, or as it stood --at a
    commit or a time, followed through renames; the index knows its store."""
    run_body("show", given)


@cli.command()
@as_of_option
@json_option
@db_option
def gardener(as_of, as_json, db_path):
    """Proposals only, never acted on: contradictions, duplicates, vague descriptions, stale memories, and what the
    fleet left for a person (supersession forks, concurrent edits). Settles the findings first when they are behind."""
    from indexer.front.needs_human import settle_first
    from indexer.query.gardener import proposals

    _connect(db_path).close()  # a clear error when there is no index
    settle_first(db_path)
    rows = proposals(_connect(db_path), as_of=as_of, db_path=db_path)
    if as_json:
        _echo_json(rows)
        return
    for row in rows:
        if row["proposal"] == "unsettled":  # (the settle could not be made)
            _echo_line(f"{row['proposal']}: {row['reason']}")
            continue
        _echo_line(
            f"{row['proposal']} {row['id']} [{row['kind']}] {row['name']} ({_scope(row['project'])}): {row['reason']}"
        )
        if row["command"]:
            _echo_line(f"  {row['command']}")
    click.echo(f"{len(rows)} proposals; nothing was changed (the gardener only proposes)", err=True)


# Writing: the seed's write operations (docs/writing.md). Each command calls one function of indexer.edit.store_write.


def write_db_option(function):
    return click.option(
        "--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to update (created when missing)."
    )(function)


def write_store_argument(function):
    return click.argument("store", type=click.Path(file_okay=False, path_type=Path))(function)


def project_option(help_text: str):
    return click.option("--project", envvar="SEAMLESS_PROJECT", show_envvar=True, help=help_text)


@cli.command()
@write_store_argument
@project_option("The memory's project; `global` for a global memory. Required (fail closed).")
@click.option(
    "--kind", required=True, help="constraint, runbook, protocol, gotcha, decision, refuted, reference, stage."
)
@click.option("--name", required=True, help="kebab-case; an active memory of the project with this name is updated.")
@click.option("--description", required=True, help="One line, at most 150 characters: all an index shows.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat for several); given tags replace the old ones.")
@click.option("--supersedes", metavar="X", help="The id or name of the active memory this one replaces.")
@click.option("--session", envvar="SEAMLESS_SESSION", show_envvar=True, help="source_session of the memory.")
@click.option("--model", envvar="SEAMLESS_MODEL", show_envvar=True, help="The model that produced the content.")
@click.option("--body", metavar="TEXT", help="The body markdown; `-` reads standard input. Omitted: kept on update.")
@json_option
@write_db_option
def write(**given):
    """Write a memory to STORE: new, updated in place (same name), or replacing another (--supersedes)."""
    run_body("write", given)


@cli.command()
@write_store_argument
@click.argument("memory", metavar="X")
@project_option("The project to look the name X up in (then global).")
@click.option("--text", required=True, help="The text to add to the end of the body; `-` reads standard input.")
@json_option
@write_db_option
def append(**given):
    """Add text to the end of the body of active memory X (an id or a name); `updated` becomes now."""
    run_body("append", given)


@cli.command()
@write_store_argument
@click.argument("memory", metavar="X")
@project_option("The project to look the name X up in (then global).")
@json_option
@write_db_option
def archive(**given):
    """Archive active memory X: invalid from now, with no successor; it stays on disk."""
    run_body("archive", given)


@cli.command()
@write_store_argument
@click.argument("memory", metavar="X")
@project_option("The project to look the name X up in (then global).")
@json_option
@write_db_option
def delete(**given):
    """Delete memory X's file: for what was never true. Refused if a memory was replaced by X."""
    run_body("delete", given)


@cli.command()
@write_store_argument
@project_option("The note's project; `global` for a global note. Required (fail closed).")
@click.option("--title", required=True, help="The note's title (also its file name).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat for several).")
@click.option("--body", metavar="TEXT", help="The note's markdown; `-` reads standard input.")
@json_option
@write_db_option
def note(**given):
    """Write a note (research, a meeting summary, a design record) under STORE/notes/<project>/."""
    run_body("note", given)


@cli.command()
@click.argument("store", required=False, envvar="SEAMLESS_STORE", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--db", "db_path", envvar="SEAMLESS_DB", show_envvar=True, default=DEFAULT_DB, show_default=True,
    help="The index to update (created when missing).",
)  # fmt: skip
@click.option("--project", help="The session's project: where writes without one land (else SEAMLESS_PROJECT).")
def mcp(store, db_path, project):
    """Serve STORE (else SEAMLESS_STORE) to agents as an MCP server over stdio: the write tools, briefing, recall
    and history."""
    if store is None:
        raise click.UsageError(
            "no store: give STORE, or set SEAMLESS_STORE (`seamless init DIR --store STORE` puts it in "
            "DIR/.claude/settings.local.json, which Claude Code gives the servers it starts)"
        )
    try:
        from indexer.front.mcp_server import serve as run
    except ImportError as e:
        raise click.ClickException(
            f"the MCP server needs the mcp extra: pip install 'seamless-explorer[mcp]' ({e})"
        ) from None
    if not store.is_dir():
        raise click.ClickException(
            f"no store at {store}: give the folder that holds memories/ and notes/ (moved? `seamless init DIR "
            "--store NEW_PLACE`)"
        )
    run(store, db_path, project)


# Freshness: following the store, and comparing it with the index.


@cli.command()
@store_argument
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to keep in step.")
@click.option(
    "--sweep",
    type=click.FloatRange(min=1),
    help="Seconds between runs over the whole store that catch any change the events missed (default 300).",
)
@click.option("--parent", type=int, hidden=True, help="Stop when this process is no longer the parent.")
def watch(store, db_path, sweep, parent):
    """Index STORE, then keep the index in step with its changes until stopped (Ctrl-C).

    Each batch of changes is applied in one transaction; a heartbeat in the index tells the
    explorer and `seamless status` that the store is being followed.
    """
    import signal
    import threading

    from indexer.index.database import OtherStoreError
    from indexer.index.watch import Watcher
    from indexer.sqlite import sqlite3

    stop = threading.Event()

    def on_signal(signum, frame):
        if stop.is_set():  # a second signal: stop now; the batch in progress rolls back
            raise KeyboardInterrupt
        stop.set()  # the batch in progress, if any, completes; then the watcher stops

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    watcher = Watcher(store, db_path, **({"sweep": sweep} if sweep else {}), say=_say, parent=parent)
    try:
        watcher.run(stop)
    except OtherStoreError as e:
        raise click.ClickException(str(e)) from e
    except KeyboardInterrupt:
        click.echo("stopped at once: the batch in progress was rolled back", err=True)
        sys.exit(130)
    except sqlite3.DatabaseError as e:
        raise click.ClickException(f"could not write the index at {db_path}: {e}") from e
    except OSError as e:
        raise click.ClickException(f"cannot open the index at {db_path}: {e.strerror or e}") from e
    click.echo("stopped watching", err=True)


def _say(line: str) -> None:
    click.echo(line, err=True)


@cli.command()
@store_argument
@db_option
def status(**given):
    """Compare STORE with its index without writing; exit 1 listing the files that differ.

    Also says when the index was last brought in step and whether a watcher follows the store.
    """
    run_body("status", given)
