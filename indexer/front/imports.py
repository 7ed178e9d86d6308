"""`seamless import`: other tools' memories brought into a store through the write path (SPEC 11).

`import` is a Python keyword: the group is named by click, the module for what it holds.
"""

import sys
from pathlib import Path

import click

from indexer.edit import claude_code_import as imported
from indexer.edit.write_input import WriteRefused
from indexer.front.options import db, json_option_for, new_project_option


@click.group("import")
def import_group():
    """Bring other tools' memories into a store, through the write path."""


@import_group.command("claude-code")
@click.argument("folder", metavar="DIR", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--store", required=True, type=click.Path(file_okay=False, path_type=Path), help="The store to write to.")
@click.option(
    "--project", envvar="SEAMLESS_PROJECT", show_envvar=True, help="The project the memories belong to. Required."
)
@new_project_option
@click.option("--dry-run", is_flag=True, help="Say what would be written; write nothing.")
@json_option_for("Print one JSON array: each file's outcome.")
@db("The index to update.")
def claude_code(folder, store, project, new_project, dry_run, as_json, db_path):
    """Import a Claude Code auto-memory folder (MEMORY.md and its topic files) into PROJECT of STORE.

    user and feedback memories become protocols, project memories decisions, reference memories references;
    MEMORY.md becomes a note. Unchanged files write nothing; changed ones update their memory in place.
    A file that cannot be read is listed with the reason and the others imported (exit 1).
    """
    try:
        outcomes = imported.import_folder(folder, store, db_path, project, dry_run=dry_run, new_project=new_project)
    except WriteRefused as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(imported.as_json(outcomes))
    else:
        would = "would be " if dry_run else ""
        for o in outcomes:
            what = f"{o.name} ({o.kind})" if o.name else (o.path or "")
            line = f"{o.file}: {would if o.action not in ('skipped', 'warning') else ''}{o.action}"
            line += f" {what}" if what and o.action not in ("skipped", "warning") else ""
            line += f" {o.id}" if o.id and o.action not in ("skipped", "warning") else ""
            line += f": {o.reason}" if o.reason else ""
            click.echo(line)
    click.echo(("dry run, nothing written: " if dry_run else "") + imported.summary(outcomes), err=True)
    if any(o.action == "skipped" for o in outcomes):
        sys.exit(1)
