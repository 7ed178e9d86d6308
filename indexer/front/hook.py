"""`seamless hook`: hooks for agents' harnesses (SPEC 11). `hook session-start` answers a harness's session start
(Claude Code: a new session, a resume, /clear, a compaction) with the project's briefing as the JSON the harness
reads; whatever goes wrong, it prints that JSON and exits 0, saying what happened: a hook must never break a session.
"""

import json
import os
import shlex
import sys
from pathlib import Path

import click

from indexer import git
from indexer.front import options
from indexer.index.catch_up import catch_up
from indexer.index.database import OtherStoreError, check_store, is_index, store_of
from indexer.query import projects, queries
from indexer.query.briefing_text import briefing_within, one_line
from indexer.sqlite import sqlite3

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
    envvar="SEAMLESS_STORE",
    show_envvar=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The store the index holds: checked, brought in step, and named in the commands the text suggests. "
    "Else the store the index was built from.",
)
@options.db("The index to read.", envvar=True)
@click.option(
    "--project",
    help="The project to brief. Else SEAMLESS_PROJECT, else the folder name of the git root of the event's cwd "
    "when the store has that project, else the global memories only.",
)
@max_chars_option("text to give the agent")
@click.option("--as-of", "as_of", callback=options.as_of, metavar="T", help="Brief as at T (ISO 8601). Default: now.")
@click.pass_context
def session_start(ctx: click.Context, store, db_path, project, max_chars, as_of):
    """Print the briefing as a SessionStart hook's JSON; the harness's event is read from standard input.

    Exits 0 whatever happens (no project mapped, no index, no or malformed input): the text says so.
    """
    event = read_event(sys.stdin)
    db_given = ctx.get_parameter_source("db_path") is not click.core.ParameterSource.DEFAULT
    try:
        if store is None and not db_given and not Path(db_path).is_file():
            text = not_set_up(event)
        else:
            text = session_text(event, store, db_path, project, max_chars, as_of)
    except Exception as e:  # a hook must not break the session: the agent is told instead
        text = f"The Seamless memory store could not brief this session: {type(e).__name__}: {e}"
    output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text[:max_chars]}}
    click.echo(json.dumps(output, ensure_ascii=False))


def not_set_up(event: dict) -> str:
    """The text for a machine where this folder's wiring has no store yet: a teammate's fresh clone."""
    init = shlex.join(["seamless", "init", _wired_folder(event), "--store", "STORE"])
    return (
        "The Seamless memory store is not set up on this machine (no SEAMLESS_STORE, no index), so there is no "
        f"briefing. Give this folder this machine's clone of the store: `{init}`."
    )


def _wired_folder(event: dict) -> str:
    """The folder `seamless init` wired, as a command the text suggests names it: the git root of the event's cwd
    (of this process's when it has none), else that folder."""
    given = event.get("cwd")
    cwd = given if isinstance(given, str) and given else os.getcwd()
    root = git.work_tree(cwd) if os.path.isdir(cwd) else None
    return str(root or cwd)


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
        preface = _in_step(conn, store, db, event)
        project = project or os.environ.get("SEAMLESS_PROJECT", "").strip() or None
        if project is None:
            project, mapped = _project_of(conn, event)
            preface += mapped
        elif project != "global" and not projects.has(conn, project):
            preface += _unknown_project(conn, project)
        rows = queries.run(conn, "briefing", project=project or "global", as_of=as_of)
    finally:
        conn.close()
    show_all = ["seamless", "briefing", "--project", project or "global", "--db", str(db)]
    show_all += ["--as-of", as_of] if as_of else []
    return preface + briefing_within(rows, project, as_of, max_chars - len(preface), shlex.join(show_all))


def _in_step(conn, store: Path | None, db: Path, event: dict) -> str:
    """Bring the index in step with its store first when that can be done quickly (`catch_up`); the lines that say
    what could not be done (a store gone, an index left behind), or nothing."""

    recorded = store_of(conn)
    root = Path(store).absolute() if store else Path(recorded) if recorded else None
    if root is None:
        return ""
    command = shlex.join(["seamless", "index", str(root), "--db", str(db)])
    try:
        found = catch_up(conn, root, db)
    except Exception as e:  # a hook must not break the session: the agent is told instead
        return (
            f"Whether the index is in step with the store at {root} could not be checked ({type(e).__name__}: {e}).\n\n"
        )
    if found.state == "gone":
        init = shlex.join(["seamless", "init", _wired_folder(event), "--store", "NEW_PLACE"])
        last = conn.execute("select max(started) from index_runs").fetchone()[0]
        return (
            f"The Seamless memory store at {root} is gone (moved or deleted): this briefing comes from its index as "
            f"it stood at {last}, and nothing written now can reach the store. Point this folder at the store's new "
            f"place: `{init}`.\n\n"
        )
    if found.state == "behind":
        shown = ", ".join(found.paths[:3]) + (", ..." if len(found.paths) > 3 else "")
        changed = f" ({len(found.paths)} paths: {shown})" if found.paths else ""
        return (
            f"The Seamless index at {db} is behind its store: {found.why}{changed}, so this briefing may miss "
            f"memories or show them as they were. Bring it in step: `{command}`.\n\n"
        )
    if found.unchecked_since:  # a large store without a watcher: edits in place are not looked for
        watch = shlex.join(["seamless", "watch", str(root), "--db", str(db)])
        return (
            f"(Edits made in place since {found.unchecked_since}, when the index last looked at every file, are "
            f"not checked on a store this large: `{watch}` follows them.)\n\n"
        )
    return ""


def _project_of(conn, event: dict) -> tuple[str | None, str]:
    """The project named by the git root of the event's cwd (else of this process's cwd) when the store has it;
    else None, with the lines that say no project is mapped and how to map one."""
    given = event.get("cwd")
    cwd = given if isinstance(given, str) and given else os.getcwd()
    root = git.work_tree(cwd) if os.path.isdir(cwd) else None
    if root is not None and projects.has(conn, root.name):
        return root.name, ""
    why = (
        f"the folder name of its git root, {one_line(root.name)[:NAME_SHOWN]!r}, is not a project of this store"
        if root is not None
        else "it is not in a git work tree"
    )
    return None, (
        f"No project of the Seamless memory store is mapped to {one_line(cwd)[:PATH_SHOWN]} ({why}), so this "
        f"briefing holds the global "
        f"memories only. Map one with `seamless init DIR --store STORE --project P`, or give this hook --project P "
        f"or SEAMLESS_PROJECT." + _projects_listed(conn) + "\n\n"
    )


def _unknown_project(conn, project: str) -> str:
    """The lines for a project the store has no memory of: new (`seamless init --new-project`), or misspelt."""

    return (
        f"The Seamless memory store has no memory of project {one_line(project)[:NAME_SHOWN]!r} yet, so this "
        f"briefing holds the global memories only. If the name is misspelt, mend it with `seamless init DIR "
        f"--project P`." + _projects_listed(conn) + "\n\n"
    )


def _projects_listed(conn) -> str:
    """` The store's projects: a, b, c.`, on one line and short whatever they are called (the briefing must keep
    its room); empty for a store with none."""

    names = projects.every(conn)
    if not names:
        return ""
    listed = ", ".join(one_line(p)[:NAME_SHOWN] for p in names[:PROJECTS_LISTED])
    return f" The store's projects: {listed}" + (", ..." if len(names) > PROJECTS_LISTED else "") + "."
