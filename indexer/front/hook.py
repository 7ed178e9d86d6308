"""`seamless hook session-start`: a harness's session-start hook, answered with the project's briefing (SPEC 11).

Claude Code runs it when a session starts, resumes, is cleared or compacted, sends the event as JSON on
standard input and adds the printed `additionalContext` to what the agent reads first. Whatever goes wrong,
it prints that JSON object and exits 0, with a text saying what happened: a hook must never break a session.
The whole process is timed (`bench/hook.py`): what it needs beyond click is imported only when it runs.
"""

import json
import os
import shlex
import sys
from pathlib import Path

import click

from indexer.front import options
from indexer.front.options import DEFAULT_DB

# Claude Code cuts hook output over 10,000 characters down to a short preview without saying so
MAX_CHARS = 9000
MIN_CHARS = 500  # room for the line that says what was left out, with its command
MAX_EVENT_BYTES = 1 << 20
PROJECTS_LISTED = 10
NAME_SHOWN, PATH_SHOWN = 40, 200


def max_chars_option(what: str):
    """`--max-chars`, the briefing's size as the hook and `seamless export` give it: at least MIN_CHARS."""
    return click.option(
        "--max-chars",
        default=MAX_CHARS,
        show_default=True,
        type=click.IntRange(min=MIN_CHARS),
        help=f"The most characters of {what}; what does not fit is counted in a last line.",
    )


@click.group()
def hook():
    """Hooks for agents' harnesses, run at set moments of a session (docs/agents.md)."""


@hook.command("session-start")
@click.option(
    "--store",
    type=click.Path(file_okay=False, path_type=Path),
    help="The store the index holds: checked, and named in the commands the text suggests.",
)
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The index to read.")
@click.option(
    "--project",
    help="The project to brief. Else SEAMLESS_PROJECT, else the folder name of the git root of the event's cwd "
    "when the store has that project, else the global memories only.",
)
@max_chars_option("text to give the agent")
@click.option("--as-of", "as_of", callback=options.as_of, metavar="T", help="Brief as at T (ISO 8601). Default: now.")
def session_start(store, db_path, project, max_chars, as_of):
    """Print the briefing as a SessionStart hook's JSON; the harness's event is read from standard input.

    Exits 0 whatever happens (no project mapped, no index, no or malformed input): the text says so.
    """
    event = read_event(sys.stdin)
    try:
        text = session_text(event, store, db_path, project, max_chars, as_of)
    except Exception as e:  # a hook must not break the session: the agent is told instead
        text = f"The Seamless memory store could not brief this session: {type(e).__name__}: {e}"
    output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text[:max_chars]}}
    click.echo(json.dumps(output, ensure_ascii=False))


def read_event(stream) -> dict:
    """The harness's event (session_id, cwd, source, hook_event_name...); {} when there is none or it is not a
    JSON object. A terminal is never waited on."""
    try:
        if stream is None or stream.isatty():
            return {}
        event = json.loads(stream.buffer.read(MAX_EVENT_BYTES) or b"null")
    except (ValueError, OSError, AttributeError):  # not JSON, not UTF-8, nothing to read, or no bytes under it
        return {}
    return event if isinstance(event, dict) else {}


def session_text(event: dict, store: Path | None, db_path: str, project: str | None, max_chars: int, as_of) -> str:
    """What the agent reads: the briefing of the session's project within `max_chars`, or why there is none."""
    from indexer.index.database import OtherStoreError, check_store, is_index
    from indexer.query import queries
    from indexer.query.briefing_text import briefing_within
    from indexer.sqlite import sqlite3

    db = Path(db_path).absolute()
    build = f"`seamless index {shlex.quote(str(store)) if store else 'STORE'} --db {shlex.quote(str(db))}`"
    if not db.is_file():
        return f"The Seamless memory store has no index at {db}, so there is no briefing: build it with {build}."
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        try:
            ours = is_index(conn)
        except sqlite3.DatabaseError:  # not SQLite at all
            ours = False
        if not ours:
            return f"{db} is not a Seamless index, so there is no briefing: build one with {build}."
        if store is not None:
            try:
                check_store(conn, store, db)
            except OtherStoreError as e:
                return f"The Seamless index cannot brief this session: {e}."
        project = project or os.environ.get("SEAMLESS_PROJECT", "").strip() or None
        preface = ""
        if project is None:
            project, preface = _project_of(conn, event)
        rows = queries.run(conn, "briefing", project=project or "global", as_of=as_of)
    finally:
        conn.close()
    show_all = ["seamless", "briefing", "--project", project or "global", "--db", str(db)]
    show_all += ["--as-of", as_of] if as_of else []
    return preface + briefing_within(rows, project, as_of, max_chars - len(preface), shlex.join(show_all))


def _project_of(conn, event: dict) -> tuple[str | None, str]:
    """The project named by the git root of the event's cwd (else of this process's cwd) when the store has it;
    else None, with the lines that say no project is mapped and how to map one."""
    from indexer.query.briefing_text import one_line
    from indexer.store import git

    given = event.get("cwd")
    cwd = given if isinstance(given, str) and given else os.getcwd()
    root = git.work_tree(cwd) if os.path.isdir(cwd) else None
    if root is not None and conn.execute("select 1 from memories where project = ? limit 1", (root.name,)).fetchone():
        return root.name, ""
    why = (
        f"the folder name of its git root, {one_line(root.name)[:NAME_SHOWN]!r}, is not a project of this store"
        if root is not None
        else "it is not in a git work tree"
    )
    projects = [r[0] for r in conn.execute("select distinct project from memories where project is not null")]
    # on one line and short, whatever a folder or a project is called: the briefing must keep its room
    listed = ", ".join(one_line(p)[:NAME_SHOWN] for p in sorted(projects)[:PROJECTS_LISTED])
    listed += ", ..." if len(projects) > PROJECTS_LISTED else ""
    return None, (
        f"No project of the Seamless memory store is mapped to {one_line(cwd)[:PATH_SHOWN]} ({why}), so this "
        f"briefing holds the global "
        f"memories only. Map one with `seamless init DIR --store STORE --project P`, or give this hook --project P "
        f"or SEAMLESS_PROJECT." + (f" The store's projects: {listed}." if projects else "") + "\n\n"
    )
