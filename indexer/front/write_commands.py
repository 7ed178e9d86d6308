"""The commands that write the store: write, append, archive, delete, note (docs/writing.md). Each calls one
function of indexer.edit.store_write."""

import json
import sys
from pathlib import Path

import click

from indexer.edit.store_write import append_memory, archive_memory, delete_memory, write_memory, write_note
from indexer.edit.write_input import WriteRefused
from indexer.front.console import echo_line, scope
from indexer.front.options import db, json_option, new_project_option


def from_stdin(value):
    """`-` means standard input, read as bytes (the library refuses what is not UTF-8)."""
    if value != "-":
        return value
    return sys.stdin.buffer.read()


def written(call, as_json: bool) -> None:
    """Run one write and print its result (one JSON object with --json); a refusal is the command's error."""
    try:
        result = call()
    except WriteRefused as e:
        raise click.ClickException(str(e)) from None
    if result.committed.warning:  # the write stands; its commit did not happen
        click.echo(result.committed.warning, err=True)
    if as_json:
        click.echo(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
        return
    what = result.name if result.title is None else result.title
    done = "wrote" if result.action == "superseded" else result.action  # the memory written, not the one replaced
    echo_line(f"{done} {result.id} {result.path} ({what}, {scope(result.project)}, {result.status})")
    old = f"{result.superseded} {result.superseded_path} ({result.superseded_name})"
    if result.action == "unchanged":
        click.echo(
            "the store already holds this (a retried write?): nothing was written"
            + (f"; it superseded {result.superseded} already" if result.superseded else "")
        )
    elif result.superseded:
        echo_line(f"superseded {old}: it stays on disk, invalid from now, superseded by {result.id}")
    if result.committed.setup:  # a clone's first write: what it did besides its own commit
        click.echo(result.committed.setup.said())
    if result.similar:
        click.echo("similar active memories (use --supersedes ID to replace one instead of adding another):")
        for row in result.similar:
            click.echo(f"  {row['id']} {row['name']}: {row['description']}")
    for hint in result.hints:
        echo_line(f"hint: {hint['message']}")


write_db_option = db("The index to update (created when missing).")


def store_argument(function):
    """STORE, created when missing."""
    return click.argument("store", type=click.Path(file_okay=False, path_type=Path))(function)


def project_option(help_text: str):
    return click.option("--project", envvar="SEAMLESS_PROJECT", show_envvar=True, help=help_text)


@click.command()
@store_argument
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
@new_project_option
@json_option
@write_db_option
def write(
    store, project, kind, name, description, tags, supersedes, session, model, body, new_project, as_json, db_path
):
    """Write a memory to STORE: new, updated in place (same name), or replacing another (--supersedes)."""
    written(
        lambda: write_memory(
            store,
            db_path,
            project=project,
            kind=kind,
            name=name,
            description=description,
            tags=list(tags) if tags else None,
            supersedes=supersedes,
            session_id=session,
            model=model,
            body=from_stdin(body),
            new_project=new_project,
        ),
        as_json,
    )


@click.command()
@store_argument
@click.argument("memory", metavar="X")
@project_option("The project to look the name X up in (then global).")
@click.option("--text", required=True, help="The text to add to the end of the body; `-` reads standard input.")
@json_option
@write_db_option
def append(store, memory, project, text, as_json, db_path):
    """Add text to the end of the body of active memory X (an id or a name); `updated` becomes now."""
    written(lambda: append_memory(store, db_path, memory, from_stdin(text), project=project), as_json)


@click.command()
@store_argument
@click.argument("memory", metavar="X")
@project_option("The project to look the name X up in (then global).")
@json_option
@write_db_option
def archive(store, memory, project, as_json, db_path):
    """Archive active memory X: invalid from now, with no successor; it stays on disk."""
    written(lambda: archive_memory(store, db_path, memory, project=project), as_json)


@click.command()
@store_argument
@click.argument("memory", metavar="X")
@project_option("The project to look the name X up in (then global).")
@json_option
@write_db_option
def delete(store, memory, project, as_json, db_path):
    """Delete memory X's file: for what was never true. Refused if a memory was replaced by X."""
    written(lambda: delete_memory(store, db_path, memory, project=project), as_json)


@click.command()
@store_argument
@project_option("The note's project; `global` for a global note. Required (fail closed).")
@click.option("--title", required=True, help="The note's title (also its file name).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat for several).")
@click.option("--body", metavar="TEXT", help="The note's markdown; `-` reads standard input.")
@new_project_option
@json_option
@write_db_option
def note(store, project, title, tags, body, new_project, as_json, db_path):
    """Write a note (research, a meeting summary, a design record) under STORE/notes/<project>/."""
    written(
        lambda: write_note(
            store,
            db_path,
            project=project,
            title=title,
            tags=list(tags) or None,
            body=from_stdin(body),
            new_project=new_project,
        ),
        as_json,
    )
