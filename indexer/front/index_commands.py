"""The commands that build, check and compare the index: index, check, status. Each body takes the options its
click command declares (cli.py) and is run by click or, without it, by `indexer.front.main`."""

import contextlib
import sys
from pathlib import Path

from indexer.front.console import CommandError, echo
from indexer.front.options import DEFAULT_DB
from indexer.front.read_commands import connect

PROGRESS_THRESHOLD = 2000  # files to read before a progress bar is worth showing


def index(store: Path, db_path: str, full: bool, strict: bool) -> None:
    """Build or update the index of STORE (a folder with memories/ and notes/)."""
    from indexer.index import build
    from indexer.index.database import NotAnIndexError
    from indexer.sqlite import sqlite3

    try:
        summary = build.index_store(
            store,
            db_path,
            full=full,
            progress=progress_bar(),
            on_wait=waiting(db_path),
            gardener=build.GARDENER_IN_RUN,
        )
    except NotAnIndexError as e:
        raise CommandError(str(e)) from None
    except sqlite3.DatabaseError as e:
        raise CommandError(f"could not write the index at {db_path}: {e}; the previous index is unchanged") from e
    except OSError as e:  # e.g. the folder of --db does not exist, so the lock file cannot be made
        raise CommandError(f"cannot open the index at {db_path}: {e.strerror or e}") from e
    if strict and summary.unlisted:  # --strict lists every problem on record, as a full run does
        from indexer.index.build import recorded_problems

        with contextlib.closing(connect(db_path, read_only=True)) as conn:
            summary.problems, summary.unlisted = recorded_problems(conn), 0
    report(store, summary, db_path)
    if summary.gardener_behind:
        settle_in_background(db_path)
    if strict and summary.errors:
        sys.exit(1)


def settle_in_background(db_path: str) -> None:
    """Leave the gardener's findings to a settle of their own, started now unless one is under way."""
    from indexer.index import gardener_settle

    child = gardener_settle.start(db_path)
    doing = f"settle in the background (pid {child.pid})" if child else "settle in the background"
    echo(
        f"the gardener's findings {doing}; the explorer says when they are in step, and `seamless gardener` "
        "waits for them",
        err=True,
    )


def check(store: Path) -> None:
    """Validate STORE without writing anything; exit 1 on any error problem."""
    from indexer.index.build import index_store

    summary = index_store(store, ":memory:", full=True, progress=progress_bar())
    report(store, summary)
    if summary.errors:
        sys.exit(1)


def progress_bar():
    """What an index run wraps its files to read in: a bar on a terminal when there are many, else None."""
    if not sys.stderr.isatty():
        return None

    def bar(files):
        if len(files) < PROGRESS_THRESHOLD:
            yield from files
            return
        import click  # here: only a run that reads thousands of files on a terminal draws a bar

        with click.progressbar(files, label="indexing", file=sys.stderr) as shown:
            yield from shown

    return bar


def waiting(db_path):
    """The message shown when another run holds the index's lock."""
    return lambda: echo(f"waiting for another seamless index run on {db_path} to finish...", err=True)


def report(store: Path, summary, db_path: str = DEFAULT_DB) -> None:
    """A run's problems on standard output, then how many it did not list and its summary line on standard error."""
    if summary.problems:  # one write: thousands of echo calls cost more than the rest of a no-op's reporting
        echo("\n".join(problem.format(str(store)) for problem in summary.problems))
    if summary.unlisted:  # said by the runs that changed those files: saying them on every run drowned the new ones
        db = "" if db_path == DEFAULT_DB else f" --db {db_path}"
        echo(
            f"{summary.unlisted:,} problems in files this run did not change are not listed: "
            f"`seamless problems{db}` lists them all",
            err=True,
        )
    echo(summary.line(), err=True)


def status(store: Path, db_path: str) -> None:
    """Compare STORE with its index without writing; exit 1 listing the files that differ."""
    from indexer.index import freshness
    from indexer.index.database import OtherStoreError, check_store
    from indexer.index.status import drift
    from indexer.sqlite import sqlite3

    conn = connect(db_path, read_only=True)
    try:
        check_store(conn, store, db_path)
        found = drift(store, conn)
        row = freshness.read(conn)
    except sqlite3.OperationalError as e:  # an index made by an older seamless lacks a table or column
        raise CommandError(
            f"the index at {db_path} was made by an older seamless ({e}): update it with `seamless index {store}`"
        ) from e
    except OtherStoreError as e:
        raise CommandError(str(e)) from e
    lines = [f"new: {p}" for p in found.new] + [f"changed: {p}" for p in found.changed]
    lines += [f"deleted: {p}" for p in found.deleted]
    if found.settings_changed:
        lines.append("changed: seamless.toml (the settings the index holds differ)")
    uncommitted = _uncommitted(store)
    lines += [f"uncommitted: {p}" for p in uncommitted]
    if lines:
        echo("\n".join(lines))
    counts = f"{len(found.new)} new, {len(found.changed)} changed, {len(found.deleted)} deleted"
    echo(
        ("in step" if found.in_step else f"not in step: {counts}")
        + (f"; {len(uncommitted)} store files not committed to git" if uncommitted else "")
        + f"; {freshness.run_text(row)}; {freshness.watcher_text(row)}",
        err=True,
    )
    if not found.in_step:
        sys.exit(1)


def _uncommitted(store: Path) -> list[str]:
    """The store files git holds differently from the last commit (none outside a work tree)."""
    from indexer import git

    try:
        return git.uncommitted(store)
    except git.GitError as e:
        raise CommandError(str(e)) from None
