"""`seamless export`: a project's briefing kept between two marker lines in a file such as AGENTS.md (SPEC 11)."""

import shlex
import sys
from pathlib import Path

import click

from indexer.edit.write_input import WriteRefused, scope_of
from indexer.front.briefing_block import BlockError, UnknownProject, export_briefing
from indexer.front.hook import MAX_CHARS, max_chars_option
from indexer.front.options import DEFAULT_DB, db, store_argument
from indexer.index.database import NotAnIndexError, OtherStoreError
from indexer.sqlite import sqlite3


@click.command()
@store_argument
@click.option("--project", required=True, help="The project to brief; `global` for the global memories only.")
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The file to keep the block in (created when missing; the block appended when it has none).",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the block is missing or stale (for CI).")
@max_chars_option("briefing in the block")
@db("The index, brought in step with STORE first.")
def export(store, project, target, check, max_chars, db_path):
    """Keep PROJECT's briefing in a block of FILE (AGENTS.md, CLAUDE.md), for agents that read such a file.

    The block lies between the lines `<!-- seamless:begin -->` and `<!-- seamless:end -->`. Every byte
    outside it stays as it is; an unchanged briefing leaves FILE untouched.
    """
    try:
        scope_of(project)
        done = export_briefing(store, db_path, project, target, max_chars, check)
    except BlockError as e:
        raise click.ClickException(f"{target}: {e}; nothing was written") from None
    except UnknownProject as e:
        raise click.ClickException(f"{e}; nothing was written to {target}") from None
    except (WriteRefused, OtherStoreError, NotAnIndexError) as e:
        raise click.ClickException(str(e)) from None
    except sqlite3.DatabaseError as e:
        raise click.ClickException(f"cannot read the index at {db_path}: {e}") from None
    except OSError as e:
        raise click.ClickException(f"{getattr(e, 'filename', None) or target}: {e.strerror or e}") from None
    if done.action == "stale":
        again = ["seamless", "export", str(store), "--project", project, "--to", str(target)]
        again += ["--db", db_path] if db_path != DEFAULT_DB else []
        again += ["--max-chars", str(max_chars)] if max_chars != MAX_CHARS else []
        click.echo(
            f"{target}: the seamless block is stale or missing; `{shlex.join(again)}` brings it up to date", err=True
        )
        sys.exit(1)
    what = "is current" if done.action == "current" else done.action
    click.echo(f"{target}: {what} (the briefing of {project}, {done.memories} memories)")
