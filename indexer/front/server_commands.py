"""The commands that run until stopped: `seamless serve` (the explorer), `seamless watch` (the index kept in step with
its store) and `seamless mcp` (the write path and the queries as MCP tools). Datasette, watchfiles and the MCP SDK
are imported by the command that runs them (indexer.front.serve, indexer.index.watch, indexer.front.mcp_server)."""

import contextlib
import signal
import sys
import threading
from pathlib import Path

import click

from indexer.front.options import db, store_argument
from indexer.front.serve import ExplorerError
from indexer.front.serve import serve as run_explorer
from indexer.index.database import OtherStoreError
from indexer.index.watch import Watcher, WatcherProcess
from indexer.sqlite import sqlite3


@click.command()
@db("The index to serve (read-only).")
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
    with _watching(watch_store, db_path) if watch_store else contextlib.nullcontext():
        try:
            run_explorer(db_path, host=host, port=port, allowed_hosts=allowed_hosts)
        except ExplorerError as e:
            raise click.ClickException(str(e)) from e


@contextlib.contextmanager
def _watching(store: Path, db_path: str):
    """Run `seamless watch STORE` beside the block, from its first index until the block ends."""
    # Should this process die of a signal (uvicorn raises SIGTERM again once the server is down), the
    # watcher sees its parent gone within a tick and stops by itself
    try:
        with WatcherProcess(store, db_path) as watcher:
            yield watcher
    except RuntimeError as e:
        raise click.ClickException(str(e)) from e


@click.command()
@store_argument
@db("The index to keep in step.")
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


@click.command()
@click.argument("store", required=False, envvar="SEAMLESS_STORE", type=click.Path(file_okay=False, path_type=Path))
@db("The index to update (created when missing).", envvar=True)
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
        from indexer.front.mcp_server import serve as run  # the mcp extra, which may not be installed
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
