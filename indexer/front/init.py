"""`seamless init DIR`: wire a project folder to a store for agents' harnesses in one command (SPEC 11).

Claude Code: `.mcp.json` gets the `seamless` MCP server and `.claude/settings.json` a SessionStart hook that
runs `seamless hook session-start`; Codex: `AGENTS.md` gets the briefing block. A team commits those files, so
they name nothing of one machine: the `seamless` on PATH and the project. This machine's store and index go into
`.claude/settings.local.json`, Claude Code's personal file (its `env`, which Claude Code gives every hook and MCP
server as SEAMLESS_STORE and SEAMLESS_DB), kept out of git. Each file is merged into: every other key, server and
hook keeps its value. Every file is read and checked before any is written, so a file that is not valid JSON
refuses the whole command with nothing written. What is already in place is not written again (same bytes, same
mtime). The store's index is built when missing (else brought in step), and a project the store does not have is
refused unless `--new-project` says it is meant. `--undo` takes out exactly what init puts in.
"""

import contextlib
import difflib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from indexer import git
from indexer.edit import atomic
from indexer.edit.write_input import WriteRefused, scope_of
from indexer.front.briefing_block import BlockError, block_text, remove, splice
from indexer.front.options import DEFAULT_DB
from indexer.index import database
from indexer.index.build import index_store
from indexer.index.database import NotAnIndexError, OtherStoreError
from indexer.sqlite import sqlite3

HARNESSES = ("claude-code", "codex", "all")
MCP_FILE = ".mcp.json"
SETTINGS_FILE = ".claude/settings.json"
LOCAL_FILE = ".claude/settings.local.json"  # Claude Code's personal settings: not committed
AGENTS_FILE = "AGENTS.md"
SERVER = "seamless"
PROGRAM = "seamless"  # found on PATH: the shared files name no program of one machine
ENV = ("SEAMLESS_STORE", "SEAMLESS_DB")  # this machine's store and index, in LOCAL_FILE's env
# Claude Code's SessionStart sources: a new session, --resume/--continue, /clear, and a compaction (which
# drops what the session was told at its start)
MATCHER = "startup|resume|clear|compact"
PROJECTS_LISTED = 20


class Refused(Exception):
    """A file init will not merge into (not JSON, or not shaped as Claude Code reads it), or a store or project
    it will not wire; one line."""


@dataclass
class Change:
    """One file's new content (None: delete it) and what that does, in words."""

    path: Path
    old: bytes | None
    new: bytes | None
    what: str

    @property
    def action(self) -> str:
        if self.new == self.old:
            return "unchanged"
        return "created" if self.old is None else "deleted" if self.new is None else "updated"


@click.command()
@click.argument("folder", metavar="DIR", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--store",
    envvar="SEAMLESS_STORE",
    show_envvar=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The memory store, on this machine. Required.",
)
@click.option(
    "--project",
    help="The folder's project in the store (`global`: the global memories). Required, unless DIR's wiring names it.",
)
@click.option("--new-project", is_flag=True, help="The project is new: the store has no memory of it yet.")
@click.option(
    "--db", "db_path", envvar="SEAMLESS_DB", show_envvar=True, default=DEFAULT_DB, show_default=True,
    help="The store's index, on this machine (built when missing).",
)  # fmt: skip
@click.option(
    "--harness",
    type=click.Choice(HARNESSES),
    default="claude-code",
    show_default=True,
    help="claude-code: .mcp.json and a SessionStart hook; codex: the briefing block in AGENTS.md; all: both.",
)
@click.option("--undo", is_flag=True, help="Take out what init put in (the other keys, hooks and text stay).")
def init(folder, store, project, new_project, db_path, harness, undo):
    """Wire the project folder DIR to a store: the MCP server and the session-start briefing for its agents.

    The files a team commits (.mcp.json, .claude/settings.json, AGENTS.md) get only the project; this machine's
    store and index go into .claude/settings.local.json. A teammate who pulls them runs `seamless init DIR --store
    STORE` once. Merges into the files that are there, keeping every other key and hook; running it again
    changes nothing.
    """
    folder = folder.resolve()
    claude, codex = harness in ("claude-code", "all"), harness in ("codex", "all")
    if undo:
        _write_all(folder, _undo_changes(folder, claude, codex))
        return
    project = project or _wired_project(folder)
    if store is None or project is None:
        raise click.UsageError(
            "--store is required (or SEAMLESS_STORE), and --project unless DIR's .mcp.json names one (unless --undo)"
        )
    try:
        scope_of(project)
    except WriteRefused as e:
        raise click.BadParameter(e.message, param_hint="--project") from None
    store, db = store.resolve(), Path(db_path).resolve()
    try:
        changes = []
        if claude:
            changes.append(_mcp_change(folder / MCP_FILE, project))
            changes.append(_settings_change(folder / SETTINGS_FILE, _hook_command(project)))
            changes.append(
                _settings_change(folder / LOCAL_FILE, None, {"SEAMLESS_STORE": str(store), "SEAMLESS_DB": str(db)})
            )
        for change in changes:
            _writable(change)
        indexed = _indexed(store, db)
        _known_project(store, db, project, new_project)
        if codex:
            changes.append(_agents_change(folder / AGENTS_FILE, (store, db, project)))
            _writable(changes[-1])
        if claude:
            changes += _excluded(folder)
    except Refused as e:
        raise click.ClickException(f"{e}; nothing was written in {folder}") from None
    if indexed:
        click.echo(indexed)
    _write_all(folder, changes)
    click.echo("to undo: " + shlex.join(["seamless", "init", str(folder), "--harness", harness, "--undo"]))
    shared = [f for f in (MCP_FILE, SETTINGS_FILE, AGENTS_FILE) if any(c.path == folder / f and c.new for c in changes)]
    if any(c.path in {folder / f for f in shared} and c.action != "unchanged" for c in changes):
        click.echo(
            f"to share with the team: commit {', '.join(shared)} (they hold no path of this machine); each "
            f"teammate then runs `{shlex.join(['seamless', 'init', '.', '--store', 'STORE'])}` in their clone"
        )
    if claude:
        warning = _on_path()
        if warning:
            click.echo(warning, err=True)
    if codex:  # its MCP servers are in the user's ~/.codex/config.toml, outside DIR
        argv = [seamless_program(), "mcp", str(store), "--db", str(db), "--project", project]
        click.echo("for Codex's MCP tools too: " + shlex.join(["codex", "mcp", "add", SERVER, "--", *argv]))


def _write_all(folder: Path, changes: list[Change]) -> None:
    for change in changes:
        _apply(change)
        shown = change.path.relative_to(folder) if change.path.is_relative_to(folder) else change.path
        click.echo(f"{change.action} {shown}" + ("" if change.action == "unchanged" else f": {change.what}"))


def _undo_changes(folder: Path, claude: bool, codex: bool) -> list[Change]:
    try:
        changes = []
        if claude:
            changes.append(_mcp_change(folder / MCP_FILE, None))
            changes.append(_settings_change(folder / SETTINGS_FILE, None))
            changes.append(_settings_change(folder / LOCAL_FILE, None, {}))
        if codex:
            changes.append(_agents_change(folder / AGENTS_FILE, None))
        for change in changes:
            _writable(change)
    except Refused as e:
        raise click.ClickException(f"{e}; nothing was written in {folder}") from None
    return changes


def seamless_program() -> str:
    """The absolute path of the `seamless` being run (else the one beside this Python, else on PATH)."""
    argv0 = Path(sys.argv[0])
    if argv0.name == "seamless" and argv0.is_file():
        return str(argv0.absolute())
    beside = Path(sys.executable).with_name("seamless")
    if beside.is_file():
        return str(beside)
    return shutil.which("seamless") or "seamless"


def _on_path() -> str | None:
    """A warning when the `seamless` on PATH, which the wiring runs, is missing or another than this one."""
    found, this = shutil.which(PROGRAM), seamless_program()
    if found is None:
        return (
            f"warning: `{PROGRAM}` is not on PATH, and Claude Code runs it from there: put it there, e.g. "
            f"`{shlex.join(['ln', '-s', this, str(Path.home() / '.local/bin' / PROGRAM)])}`"
        )
    if Path(found).resolve() != Path(this).resolve():
        return f"note: Claude Code will run the `{PROGRAM}` on PATH, {found}, not this one ({this})"
    return None


def _hook_command(project: str | None) -> str | None:
    return shlex.join([PROGRAM, "hook", "session-start", "--project", project]) if project else None


def _is_ours(hook) -> bool:
    """Whether a Claude Code hook entry runs `seamless hook session-start` (whichever store, db or project)."""
    argv = _argv(hook.get("command") if isinstance(hook, dict) else None)
    return len(argv) >= 3 and Path(argv[0]).name == PROGRAM and argv[1:3] == ["hook", "session-start"]


def _argv(command) -> list[str]:
    if not isinstance(command, str):
        return []
    try:
        return shlex.split(command)
    except ValueError:
        return []


def _project_in(argv: list[str]) -> str | None:
    """The value of `--project` in a command's arguments."""
    return next((argv[n + 1] for n in range(len(argv) - 1) if argv[n] == "--project"), None)


def _wired_project(folder: Path) -> str | None:
    """The project DIR's wiring names already (its `seamless` MCP server, else its hook): a teammate's clone."""
    with contextlib.suppress(Refused, AttributeError, TypeError):
        server = _json(folder / MCP_FILE, _read(folder / MCP_FILE)).get("mcpServers", {}).get(SERVER, {})
        if found := _project_in([server.get("command"), *server.get("args", [])]):
            return found
    with contextlib.suppress(Refused, AttributeError, TypeError):
        groups = _json(folder / SETTINGS_FILE, _read(folder / SETTINGS_FILE)).get("hooks", {}).get("SessionStart", [])
        for hook in (h for g in groups for h in g.get("hooks", []) if _is_ours(h)):
            if found := _project_in(_argv(hook["command"])):
                return found
    return None


# The store: its index, and its projects


def _indexed(store: Path, db: Path) -> str | None:
    """Build the store's index when missing, else bring it in step (refusing an index of another store); the line
    that says what was done, None when the index was in step."""
    built = not db.is_file()
    try:
        if not built:
            with contextlib.closing(sqlite3.connect(db)) as conn:
                if not database.is_index(conn):
                    raise Refused(f"{db} is not a Seamless index: give another --db")
                database.check_store(conn, store, db)
        summary = index_store(store, db)
    except database.OtherStoreError as e:
        raise Refused(str(e)) from None
    except (sqlite3.DatabaseError, OSError) as e:
        raise Refused(f"cannot index the store at {store} into {db}: {e}") from None
    if built:
        return f"indexed {store} into {db}: {summary.memories} memories, {summary.notes} notes"
    if summary.files_changed or summary.files_deleted:
        return f"brought the index at {db} in step: {summary.files_changed} files changed, {summary.files_deleted} gone"
    return None


def _known_project(store: Path, db: Path, project: str, new_project: bool) -> None:
    """Refuse a project the store has no memory or note of, unless `new_project` says it is meant; the refusal
    names the closest project first, then the store's projects."""
    if project == "global" or new_project:
        return
    with contextlib.closing(sqlite3.connect(db)) as conn:
        projects = sorted(
            row[0]
            for row in conn.execute(
                "select project from memories where project is not null union "
                "select project from notes where project is not null"
            )
        )
    if project in projects:
        return
    close = difflib.get_close_matches(project, projects, n=1, cutoff=0.6)
    listed = ", ".join(projects[:PROJECTS_LISTED]) + (", ..." if len(projects) > PROJECTS_LISTED else "")
    raise Refused(
        f"the store at {store} has no project {project!r}"
        + (f": did you mean {close[0]!r}?" if close else "")
        + (f" Its projects: {listed}." if projects else " It has no project yet.")
        + f" Give one of them as --project, or add --new-project to begin {project!r}"
    )


def _excluded(folder: Path) -> list[Change]:
    """In a git work tree, the change that keeps LOCAL_FILE out of git (a line of the clone's own
    `.git/info/exclude`, never committed) when no rule ignores it yet; none otherwise."""
    top = git.work_tree(folder)
    if top is None:
        return []
    local = folder / LOCAL_FILE
    relative = os.path.relpath(local, folder)
    if git.run(folder, "check-ignore", "-q", "--no-index", "--", relative, check=False).returncode == 0:
        return []
    path = git.git_path(folder, "info/exclude")
    old = _read(path)
    line = "/" + local.relative_to(top).as_posix()  # anchored at the top of the work tree
    text = (old or b"").decode("utf-8", "replace")
    new = (text + ("" if not text or text.endswith("\n") else "\n") + line + "\n").encode("utf-8")
    return [Change(path, old, new, f"ignores {line} (this machine's paths: never committed)")]


# Reading and writing the files


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise Refused(f"cannot read {path}: {e.strerror or e}") from None


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise ValueError(f"the key {twice!r} is given twice")
    return dict(pairs)


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")


def _json(path: Path, data: bytes | None) -> dict:
    """The JSON object in `data` ({} for no file); Refused when it is not one."""
    if data is None:
        return {}
    try:
        value = json.loads(data, object_pairs_hook=_no_duplicates, parse_constant=_not_json)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError, and ours
        raise Refused(f"{path} is not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise Refused(f"{path} is not a JSON object but a {type(value).__name__}")
    return value


def _dumped(value: dict, old: bytes | None) -> bytes | None:
    """`value` as the file's bytes: `old` when it says the same (however it is laid out), None when nothing is
    left of it (the file goes)."""
    if old is not None and json.loads(old) == value:
        return old
    if not value:
        return None
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _mcp_change(path: Path, project: str | None) -> Change:
    """`.mcp.json` with the `seamless` server running `seamless mcp --project P` (None: without it); the store and
    the index come from the environment (SEAMLESS_STORE, SEAMLESS_DB), as this machine's LOCAL_FILE sets them."""
    old = _read(path)
    config = _json(path, old)
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise Refused(f"{path}: mcpServers is not a JSON object")
    if project is None:
        servers.pop(SERVER, None)
        what = f"mcpServers.{SERVER} taken out"
    else:
        argv = [PROGRAM, "mcp", "--project", project]
        entry = {"type": "stdio", "command": argv[0], "args": argv[1:]}
        what = f"mcpServers.{SERVER} runs `{shlex.join(argv)}`"
        if servers.get(SERVER) not in (None, entry):
            what += f" (it was {json.dumps(servers[SERVER], ensure_ascii=False)})"
        servers[SERVER] = entry
    if not servers:
        del config["mcpServers"]
    return Change(path, old, _dumped(config, old), what)


def _settings_change(path: Path, command: str | None, env: dict[str, str] | None = None) -> Change:
    """Claude Code's settings file at `path` with one SessionStart hook of ours running `command` (None: none), and,
    unless `env` is None, ENV's variables in its `env` exactly as `env` gives them (none left out: taken out)."""
    old = _read(path)
    settings = _json(path, old)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Refused(f"{path}: hooks is not a JSON object")
    groups = hooks.setdefault("SessionStart", [])
    if not isinstance(groups, list) or not all(
        isinstance(g, dict) and isinstance(g.get("hooks", []), list) for g in groups
    ):
        raise Refused(f"{path}: hooks.SessionStart is not a list of {{matcher, hooks: [...]}} objects")
    ours = [(g, h) for g in groups for h in g.get("hooks", []) if _is_ours(h)]
    said = [f"the SessionStart hook `{h['command']}` taken out" for _, h in ours[bool(command) :]]
    if command is not None and ours:  # the first runs the command; another copy would brief the agent twice
        ours.pop(0)[1]["command"] = command
    elif command is not None:
        groups.append({"matcher": MATCHER, "hooks": [{"type": "command", "command": command}]})
    for group, hook in ours:
        group["hooks"].remove(hook)
    emptied = [id(group) for group, _ in ours if not group["hooks"]]  # a group left without hooks was ours alone
    groups[:] = [g for g in groups if id(g) not in emptied]
    if not groups:
        del hooks["SessionStart"]
    if not hooks:
        del settings["hooks"]
    if command:
        said.insert(0, f"a SessionStart hook ({MATCHER}) runs `{command}`")
    if env is not None:
        variables = settings.setdefault("env", {})
        if not isinstance(variables, dict):
            raise Refused(f"{path}: env is not a JSON object")
        for key in ENV:
            variables.pop(key, None)
        variables.update(env)
        if not variables:
            del settings["env"]
        said.append(
            "env " + ", ".join(f"{k}={v}" for k, v in env.items()) + " (this machine's paths)"
            if env
            else f"env {', '.join(ENV)} taken out"
        )
    return Change(path, old, _dumped(settings, old), "; ".join(said) or "nothing of seamless")


def _agents_change(path: Path, export: tuple | None) -> Change:

    old = _read(path)
    try:
        if export is None:
            new = remove(old) if old is not None else None
            return Change(path, old, new or None, "the seamless block taken out")
        splice(old, "")  # malformed markers are refused before the index is touched
        text, _ = block_text(*export)  # as `seamless export` writes it, the index brought in step first
        return Change(path, old, splice(old, text), f"the briefing of {export[2]} between the seamless markers")
    except BlockError as e:
        raise Refused(f"{path}: {e}") from None
    except (OtherStoreError, NotAnIndexError) as e:
        raise Refused(str(e)) from None
    except (sqlite3.DatabaseError, OSError) as e:
        raise Refused(f"cannot bring the index at {export[1] if export else ''} in step: {e}") from None


def _writable(change: Change) -> None:
    """Refuse a change the file system would refuse halfway: a read-only file, or a folder it cannot write in."""
    if change.new == change.old:
        return
    folder = next(p for p in change.path.parents if p.exists())  # `.claude` may be made
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise Refused(f"cannot write in {folder}")
    if change.old is not None and not os.access(change.path, os.W_OK):
        raise Refused(f"cannot write {change.path}: it is read-only")


def _apply(change: Change) -> None:

    if change.new == change.old:
        return
    try:
        if change.new is None:
            atomic.remove(change.path)
            if change.path.parent.name == ".claude" and not any(change.path.parent.iterdir()):
                change.path.parent.rmdir()  # init made it
        elif change.old is None:
            atomic.create(change.path, change.new)
        else:
            atomic.replace(change.path, change.new)
    except OSError as e:
        raise click.ClickException(f"cannot write {change.path}: {e.strerror or e}") from None
