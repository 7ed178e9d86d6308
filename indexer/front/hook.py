"""`seamless hook`: hooks for agents' harnesses (SPEC 11). `hook session-start` is declared here for click; its body,
which `seamless` runs without click (`indexer.front.main`), is `indexer.front.session_start`."""

from pathlib import Path

import click

from indexer.front import options
from indexer.front.options import DEFAULT_DB
from indexer.front.session_start import MAX_CHARS, MIN_CHARS


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
@click.option(
    "--db", "db_path", envvar="SEAMLESS_DB", show_envvar=True, default=DEFAULT_DB, show_default=True,
    help="The index to read.",
)  # fmt: skip
@click.option(
    "--project",
    help="The project to brief. Else SEAMLESS_PROJECT, else the folder name of the git root of the event's cwd "
    "when the store has that project, else the global memories only.",
)
@max_chars_option("text to give the agent")
@click.option("--as-of", "as_of", callback=options.as_of, metavar="T", help="Brief as at T (ISO 8601). Default: now.")
def session_start(**given):
    """Print the briefing as a SessionStart hook's JSON; the harness's event is read from standard input.

    Exits 0 whatever happens (no project mapped, no index, no or malformed input): the text says so.
    """
    from indexer.front.cli import run_body  # here: cli imports this module to register the command

    run_body("hook session-start", given)
