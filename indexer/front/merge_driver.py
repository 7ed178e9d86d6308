"""`seamless merge-driver`: what git runs to merge a memory or note changed on two sides (docs/sync.md), once for
each such file of a merge."""

import sys
from pathlib import Path

import click

from indexer.edit.merge import run_driver
from indexer.git import GitError


@click.command("merge-driver")
@click.argument("base", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("path")
def merge_driver(base, ours, theirs, path):
    """Merge one memory or note changed on two sides, as git's merge driver (`%O %A %B %P`).

    Writes the merged file over OURS and exits 0; a file the store's rules cannot read is left to
    git's own line merge, and a conflict there exits 1 (git records it). `seamless git-setup` and
    `seamless sync` register it; you do not run it yourself.
    """
    try:
        sys.exit(run_driver(base, ours, theirs, path))
    except (GitError, OSError) as e:
        click.echo(f"seamless merge-driver: {path}: {e}", err=True)
        sys.exit(2)
