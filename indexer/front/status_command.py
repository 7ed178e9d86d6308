"""`seamless status`: the store compared with its index, without writing (and without the index run's modules)."""

import sys
from pathlib import Path

import click

from indexer import git
from indexer.front.console import connect
from indexer.front.options import db_option, store_argument
from indexer.index import freshness
from indexer.index.database import OtherStoreError, check_store
from indexer.index.status import drift
from indexer.sqlite import sqlite3


@click.command()
@store_argument
@db_option
def status(store: Path, db_path: str):
    """Compare STORE with its index without writing; exit 1 listing the files that differ.

    Also says when the index was last brought in step and whether a watcher follows the store.
    """
    conn = connect(db_path, read_only=True)
    try:
        check_store(conn, store, db_path)
        found = drift(store, conn)
        row = freshness.read(conn)
    except sqlite3.OperationalError as e:  # an index made by an older seamless lacks a table or column
        raise click.ClickException(
            f"the index at {db_path} was made by an older seamless ({e}): update it with `seamless index {store}`"
        ) from e
    except OtherStoreError as e:
        raise click.ClickException(str(e)) from e
    lines = [f"new: {p}" for p in found.new] + [f"changed: {p}" for p in found.changed]
    lines += [f"deleted: {p}" for p in found.deleted]
    if found.settings_changed:
        lines.append("changed: seamless.toml (its settings or their problems differ from the index's)")
    if found.dismissals_changed:
        lines.append("changed: gardener/dismissed.jsonl (the dismissals the index holds differ)")
    try:
        uncommitted = sorted(git.uncommitted(store))  # the store files git holds differently from the last commit
    except git.GitError as e:
        raise click.ClickException(str(e)) from None
    lines += [f"uncommitted: {p}" for p in uncommitted]
    if lines:
        click.echo("\n".join(lines))
    counts = f"{len(found.new)} new, {len(found.changed)} changed, {len(found.deleted)} deleted"
    click.echo(
        ("in step" if found.in_step else f"not in step: {counts}")
        + (f"; {len(uncommitted)} store files not committed to git" if uncommitted else "")
        + f"; {freshness.run_text(row)}; {freshness.watcher_text(row)}",
        err=True,
    )
    if not found.in_step:
        sys.exit(1)
