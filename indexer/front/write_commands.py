"""The commands that write the store: write, append, archive, delete, note (docs/writing.md). Each body takes the
options its click command declares (cli.py) and calls one function of indexer.edit.store_write; it is run by click
or, without it, by `indexer.front.main` (a write's start-up is most of its time on a small store).
"""

import sys

from indexer.front.console import CommandError, echo, echo_line, scope


def from_stdin(value):
    """`-` means standard input, read as bytes (the library refuses what is not UTF-8)."""
    if value != "-":
        return value
    return sys.stdin.buffer.read()


def written(call, as_json: bool) -> None:
    """Run one write, print its result (one JSON object with --json), or turn its refusal into a CommandError."""
    from indexer.edit.store_write import WriteRefused

    try:
        result = call()
    except WriteRefused as e:
        raise CommandError(str(e)) from None
    if result.committed.warning:  # the write stands; its commit did not happen
        echo(result.committed.warning, err=True)
    if as_json:
        import json

        echo(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
        return
    what = result.name if result.title is None else result.title
    echo(f"{result.action} {result.id} {result.path} ({what}, {scope(result.project)}, {result.status})")
    if result.action == "unchanged":
        echo("the store already holds this (a retried write?): nothing was written")
    elif result.superseded:
        echo(f"superseded {result.superseded}: it stays on disk, invalid from now, pointing to {result.id}")
    if result.similar:
        echo("similar active memories (use --supersedes ID to replace one instead of adding another):")
        for row in result.similar:
            echo(f"  {row['id']} {row['name']}: {row['description']}")
    for hint in result.hints:
        echo_line(f"hint: {hint['message']}")


def write(store, project, kind, name, description, tags, supersedes, session, model, body, as_json, db_path) -> None:
    """Write a memory to STORE: new, updated in place (same name), or replacing another (--supersedes)."""
    from indexer.edit.store_write import write_memory

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
        ),
        as_json,
    )


def append(store, memory, project, text, as_json, db_path) -> None:
    """Add text to the end of the body of active memory X."""
    from indexer.edit.store_write import append_memory

    written(lambda: append_memory(store, db_path, memory, from_stdin(text), project=project), as_json)


def archive(store, memory, project, as_json, db_path) -> None:
    """Archive active memory X."""
    from indexer.edit.store_write import archive_memory

    written(lambda: archive_memory(store, db_path, memory, project=project), as_json)


def delete(store, memory, project, as_json, db_path) -> None:
    """Delete memory X's file."""
    from indexer.edit.store_write import delete_memory

    written(lambda: delete_memory(store, db_path, memory, project=project), as_json)


def note(store, project, title, tags, body, as_json, db_path) -> None:
    """Write a note under STORE/notes/<project>/."""
    from indexer.edit.store_write import write_note

    written(
        lambda: write_note(
            store, db_path, project=project, title=title, tags=list(tags) or None, body=from_stdin(body)
        ),
        as_json,
    )
