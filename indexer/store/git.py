"""Running the `git` command on a store: the one place that starts git (SPEC section 10).

The store's history and the fleet's sync are git's work; this module only runs it in a known
environment (no prompt, no pager, C locale for messages we parse) and turns a failure into one line.
"""

import os
import shutil
import subprocess
from pathlib import Path

# no terminal prompts (a host must never hang on a password), no pager, messages in English for parsing
ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


class GitError(Exception):
    """A git command failed; the message is one line saying which command and why."""


def available() -> bool:
    """True when the `git` command is on PATH."""
    return shutil.which("git") is not None


def run(
    cwd: str | Path, *args: str, input: str | bytes | None = None, check: bool = True, text: bool = True
) -> subprocess.CompletedProcess:
    """`git -C cwd ARGS...`, its output captured; GitError on a non-zero exit when `check`."""
    env = {**os.environ, **ENVIRONMENT}
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args], input=input, capture_output=True, text=text, env=env, check=False
        )
    except FileNotFoundError:
        raise GitError("git is not installed: install it (Debian: apt-get install git)") from None
    if check and done.returncode != 0:
        stderr = done.stderr if text else done.stderr.decode("utf-8", "replace")
        reason = next((line.strip() for line in stderr.splitlines() if line.strip()), f"exit {done.returncode}")
        raise GitError(f"git {args[0] if args else ''} failed: {reason}")
    return done


def work_tree(root: str | Path) -> Path | None:
    """The top folder of the git work tree that holds `root`, or None (not in one, or no git)."""
    if not available() or not Path(root).is_dir():
        return None
    done = run(root, "rev-parse", "--show-toplevel", check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None
