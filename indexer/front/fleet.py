"""The commands for a fleet of hosts sharing one store through git (docs/sync.md): `seamless sync` and
`seamless git-setup` (what git runs to merge a memory or note is `seamless merge-driver`, merge_driver.py)."""

import json
import signal
import sys
import threading
import time

import click

from indexer.edit.sync import SyncError
from indexer.edit.sync import git_setup as set_up
from indexer.edit.sync import sync as run
from indexer.front.options import db, json_option_for, store_argument
from indexer.git import GitError


@click.command()
@store_argument
@click.option("--remote", metavar="NAME", help="The remote to sync with. Default: the branch's upstream, else origin.")
@db("The index to bring in step (created when missing).")
@click.option(
    "--every",
    type=click.FloatRange(min=1),
    metavar="SECONDS",
    help="Sync again every SECONDS until stopped, one line per round on standard error (a failed round says why "
    "and the next one tries again).",
)
@json_option_for("Print {pulled, pushed, merged, conflicts_resolved, commits}.")
def sync(store, remote, db_path, every, as_json):
    """Share STORE with the other hosts of a fleet through its git remote.

    Commits what was changed by hand under memories/ and notes/ (`hand edits`), fetches, merges
    the remote branch by the store's rules (a merge commit, never a rebase), brings the index in
    step and pushes; when another host pushed first it fetches, merges and pushes again. It never
    force-pushes and never leaves a conflict marker or a half-done merge: when it cannot finish,
    the branch is put back as it was and one line says why (exit 1).
    """
    if every is None:
        try:
            result = run(store, db_path, remote)
        except SyncError as e:
            raise click.ClickException(str(e)) from None
        _say_result(result, as_json)
    else:
        _every(lambda: run(store, db_path, remote), every, as_json)


def _say_result(result, as_json: bool, prefix: str = "") -> None:
    if as_json:
        click.echo(json.dumps(result.as_json(), ensure_ascii=False))
    click.echo(prefix + result.line(), err=True)


def _every(round_, seconds: float, as_json: bool) -> None:
    """Run `round_` every `seconds` until SIGINT or SIGTERM; the round under way when one comes is finished."""
    stop = threading.Event()

    def on_signal(signum, frame):
        if stop.is_set():  # a second signal: stop now (the next sync finishes off this one)
            raise KeyboardInterrupt
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    try:
        while not stop.is_set():
            started = time.monotonic()
            stamp = time.strftime("%H:%M:%S ")
            try:
                _say_result(round_(), as_json, stamp)
            except SyncError as e:
                click.echo(f"{stamp}sync failed: {e}", err=True)
            stop.wait(max(0.0, seconds - (time.monotonic() - started)))
    except KeyboardInterrupt:
        sys.exit(130)
    click.echo("stopped syncing", err=True)


@click.command("git-setup")
@store_argument
def git_setup(store):
    """Register the store's merge driver in this clone, so `seamless sync` and a plain `git pull` merge memories
    and notes field by field: `.gitattributes` at the store's root (committed) and the driver's command in the
    clone's .git/config. `seamless sync` does it on first use.
    """
    try:
        done = set_up(store)
    except (SyncError, GitError) as e:
        raise click.ClickException(str(e)) from None
    for line in done:
        click.echo(line)
    if not done:
        click.echo("already set up: the merge driver is registered and .gitattributes committed", err=True)
