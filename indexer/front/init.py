"""`seamless init DIR`: wire a project folder to a store for agents' harnesses in one command (SPEC 11).

Claude Code: `.mcp.json` gets the `seamless` MCP server and `.claude/settings.json` a SessionStart hook that
runs `seamless hook session-start`; Codex: `AGENTS.md` gets the briefing block. Each file is merged into:
every other key, server and hook keeps its value. Every file is read and checked before any is written, so a
file that is not valid JSON refuses the whole command with nothing written. What is already in place is not
written again (same bytes, same mtime). `--undo` takes out exactly what init puts in.

The commands written hold absolute paths (the `seamless` program, the store, the index): Claude Code runs
them from wherever a session starts, with whatever PATH it has.
"""

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from indexer.front.options import DEFAULT_DB

HARNESSES = ("claude-code", "codex", "all")
MCP_FILE = ".mcp.json"
SETTINGS_FILE = ".claude/settings.json"
AGENTS_FILE = "AGENTS.md"
SERVER = "seamless"
# Claude Code's SessionStart sources: a new session, --resume/--continue, /clear, and a compaction (which
# drops what the session was told at its start)
MATCHER = "startup|resume|clear|compact"


class Refused(Exception):
    """A file init will not merge into (not JSON, or not shaped as Claude Code reads it); one line."""


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
    "--store", type=click.Path(exists=True, file_okay=False, path_type=Path), help="The memory store. Required."
)
@click.option("--project", help="The folder's project in the store (`global`: the global memories). Required.")
@click.option("--db", "db_path", default=DEFAULT_DB, show_default=True, help="The store's index.")
@click.option(
    "--harness",
    type=click.Choice(HARNESSES),
    default="claude-code",
    show_default=True,
    help="claude-code: .mcp.json and a SessionStart hook; codex: the briefing block in AGENTS.md; all: both.",
)
@click.option("--undo", is_flag=True, help="Take out what init put in (the other keys, hooks and text stay).")
def init(folder, store, project, db_path, harness, undo):
    """Wire the project folder DIR to a store: the MCP server and the session-start briefing for its agents.

    Merges into the files that are there, keeping every other key and hook; running it again changes nothing.
    """
    from indexer.edit.store_write import WriteRefused, scope_of

    folder = folder.resolve()
    claude, codex = harness in ("claude-code", "all"), harness in ("codex", "all")
    if not undo:
        if store is None or project is None:
            raise click.UsageError("--store and --project are required (unless --undo)")
        try:
            scope_of(project)
        except WriteRefused as e:
            raise click.BadParameter(e.message, param_hint="--project") from None
    try:
        changes = []
        if claude:
            server = None if undo else _server(store.resolve(), Path(db_path).resolve(), project)
            changes.append(_mcp_change(folder / MCP_FILE, server))
            changes.append(_settings_change(folder / SETTINGS_FILE, None if undo else _hook_command(server)))
        if codex:
            changes.append(_agents_change(folder / AGENTS_FILE, None if undo else (store, db_path, project)))
        for change in changes:
            _writable(change)
    except Refused as e:
        raise click.ClickException(f"{e}; nothing was written in {folder}") from None
    for change in changes:
        _apply(change)
        shown = change.path.relative_to(folder)
        click.echo(f"{change.action} {shown}" + ("" if change.action == "unchanged" else f": {change.what}"))
    if undo:
        return
    click.echo("to undo: " + shlex.join(["seamless", "init", str(folder), "--harness", harness, "--undo"]))
    if codex:  # its MCP servers are in the user's ~/.codex/config.toml, outside DIR
        argv = _server(store.resolve(), Path(db_path).resolve(), project)["argv"]
        click.echo("for Codex's MCP tools too: " + shlex.join(["codex", "mcp", "add", SERVER, "--", *argv]))


def seamless_program() -> str:
    """The absolute path of the `seamless` being run (else the one beside this Python, else on PATH)."""
    import shutil  # here, not at the top: every command imports this module, the hook's whole process is timed

    argv0 = Path(sys.argv[0])
    if argv0.name == "seamless" and argv0.is_file():
        return str(argv0.absolute())
    beside = Path(sys.executable).with_name("seamless")
    if beside.is_file():
        return str(beside)
    return shutil.which("seamless") or "seamless"


def _server(store: Path, db: Path, project: str) -> dict:
    argv = [seamless_program(), "mcp", str(store), "--db", str(db), "--project", project]
    hook = [argv[0], "hook", "session-start", "--store", str(store), "--db", str(db), "--project", project]
    return {"argv": argv, "hook": hook}


def _hook_command(server: dict | None) -> str | None:
    return shlex.join(server["hook"]) if server else None


def _is_ours(hook) -> bool:
    """Whether a Claude Code hook entry runs `seamless hook session-start` (whichever store, db or project)."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    try:
        argv = shlex.split(hook["command"])
    except ValueError:
        return False
    return len(argv) >= 3 and Path(argv[0]).name == "seamless" and argv[1:3] == ["hook", "session-start"]


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


def _mcp_change(path: Path, server: dict | None) -> Change:
    old = _read(path)
    config = _json(path, old)
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise Refused(f"{path}: mcpServers is not a JSON object")
    if server is None:
        servers.pop(SERVER, None)
        what = f"mcpServers.{SERVER} taken out"
    else:
        entry = {"type": "stdio", "command": server["argv"][0], "args": server["argv"][1:]}
        what = f"mcpServers.{SERVER} runs `{shlex.join(server['argv'])}`"
        if servers.get(SERVER) not in (None, entry):
            what += f" (it was {json.dumps(servers[SERVER], ensure_ascii=False)})"
        servers[SERVER] = entry
    if not servers:
        del config["mcpServers"]
    return Change(path, old, _dumped(config, old), what)


def _settings_change(path: Path, command: str | None) -> Change:
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
    what = f"a SessionStart hook ({MATCHER}) runs `{command}`" if command else "the SessionStart hook taken out"
    return Change(path, old, _dumped(settings, old), what)


def _agents_change(path: Path, export: tuple | None) -> Change:
    from indexer.front.briefing_block import BlockError, block_text, remove, splice
    from indexer.index.database import NotAnIndexError, OtherStoreError
    from indexer.sqlite import sqlite3

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
    from indexer.edit import atomic

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
