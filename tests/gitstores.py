"""Stores in real git repositories for the tests of SPEC section 10, with git's own configuration kept out:
each test's git reads only the configuration file it writes (no user's, no system's)."""

import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from indexer.front.cli import cli

NAME, EMAIL = "Ada Lovelace", "ada@example.com"
AUTHOR = f"{NAME} <{EMAIL}>"
IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL")


def git(cwd, *args, check: bool = True, env: dict | None = None) -> str:
    """`git -C cwd ARGS`, its standard output (`env` added to the environment)."""
    done = subprocess.run(
        ["git", "-C", str(cwd), *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env} if env else None,
    )
    if check and done.returncode:
        raise AssertionError(f"git {' '.join(map(str, args))}: {done.stderr}")
    return done.stdout


def isolate(monkeypatch, folder: Path, identity: bool = True) -> None:
    """Git configured by a file of the test's own (with an identity, or none at any level)."""
    config = folder / "gitconfig"
    config.write_text(f"[user]\n\tname = {NAME}\n\temail = {EMAIL}\n" if identity else "")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for variable in (*IDENTITY, "SEAMLESS_SESSION", "SEAMLESS_MODEL", "SEAMLESS_PROJECT"):
        monkeypatch.delenv(variable, raising=False)


def init(folder: Path) -> None:
    git(folder, "init", "-q", "-b", "main")


def seamless(store, *args, ok: bool = True):
    """`seamless ARGS --db <the store's index>` through click's runner; exit 0 expected unless `ok` is False."""
    result = CliRunner().invoke(cli, [*map(str, args), "--db", str(store.db_path)])
    assert "Traceback" not in result.output
    if ok:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1, result.output
    return result


def write(store, name: str, description: str = "A fact worth keeping", *extra, project: str = "seamless"):
    """`seamless write` of a gotcha in `project`; its --json output."""
    import json

    result = seamless(
        store, "write", store.root, "--project", project, "--new-project", "--kind", "gotcha", "--name", name,
        "--description", description, *extra, "--json",
    )  # fmt: skip
    return json.loads(result.stdout)


def last_commit(cwd) -> dict:
    """HEAD's message, author and the files it changed (name-status lines)."""
    return {
        "message": git(cwd, "log", "-1", "--format=%B").rstrip("\n"),
        "author": git(cwd, "log", "-1", "--format=%an <%ae>").strip(),
        "files": git(cwd, "show", "--name-status", "--format=", "HEAD").splitlines(),
    }
