"""Registering the store's merge driver in a clone (SPEC section 10): `.gitattributes` at the store's root names
it for memories and notes (committed, so every clone has it), and the clone's `.git/config` holds its command; the
same file has git's own union merge keep both sides' lines of the gardener's dismissals.
`seamless git-setup`, `seamless sync` and a clone's first `seamless write` do it."""

import shlex
import sys
from pathlib import Path

from indexer import git
from indexer.store.dismissals import FILE as DISMISSALS

DRIVER = "seamless"  # merge=seamless in .gitattributes, merge.seamless.* in the clone's configuration
CONFIG_KEY = f"merge.{DRIVER}.driver"
ATTRIBUTES = (
    "# seamless: memories and notes merge field by field (seamless git-setup; docs/sync.md)",
    f"memories/**/*.md merge={DRIVER}",
    f"notes/**/*.md merge={DRIVER}",
    "# seamless: the gardener's dismissals keep every host's lines (git's union merge; SPEC 12)",
    f"{DISMISSALS} merge=union",
)
SETUP_MESSAGE = "seamless git-setup: merge memories and notes field by field"


def driver_command() -> str:
    """The command git runs to merge a memory or note: this interpreter by its absolute path, so it works
    whatever PATH the git that merges has (a cron job, an editor, a plain `git pull` outside the venv)."""
    python = sys.executable or "python3"
    return f"{shlex.quote(python)} -m indexer merge-driver %O %A %B %P"


def configure(top: Path, configured: str | None) -> str | None:
    """Put this interpreter's driver command in the clone's configuration unless `configured` (the value there
    now) is it; what was done, or None."""
    command = driver_command()
    if configured == command:
        return None
    git.run(top, "config", f"merge.{DRIVER}.name", "seamless: memories and notes merged field by field")
    git.run(top, "config", CONFIG_KEY, command)
    return f"{CONFIG_KEY} = {command} (in {git.git_path(top, 'config')})"


def write_attributes(store: Path) -> list[str]:
    """Add the lines the store's `.gitattributes` lacks; the lines added (none when all were there)."""
    attributes = store / ".gitattributes"
    text = attributes.read_text("utf-8") if attributes.exists() else ""
    if missing := [line for line in ATTRIBUTES if line not in text.splitlines()]:
        text = text + ("\n" if text and not text.endswith("\n") else "") + "\n".join(missing) + "\n"
        attributes.write_text(text, "utf-8")
    return missing
