"""`seamless init DIR`: wire a project folder to a store for agents' harnesses in one command (SPEC 11; what goes in
which file: docs/agents.md). Each file is merged into, every other key kept; every file is read and checked before
any is written; what is in place already is not written again (same bytes, same mtime).
"""

import contextlib
import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from indexer import git
from indexer.edit import atomic
from indexer.edit.write_input import WriteRefused, scope_of
from indexer.front.briefing_block import BlockError, block_text, remove, splice
from indexer.front.options import new_project_option
from indexer.index import database
from indexer.index.build import index_store
from indexer.index.database import NotAnIndexError, OtherStoreError
from indexer.query import projects
from indexer.sqlite import sqlite3

HARNESSES = ("claude-code", "codex", "all")
MCP_FILE = ".mcp.json"
SETTINGS_FILE = ".claude/settings.json"
LOCAL_FILE = ".claude/settings.local.json"  # Claude Code's personal settings: not committed
AGENTS_FILE = "AGENTS.md"
SERVER = "seamless"
PROGRAM = "seamless"
PROGRAM_VARIABLE = "SEAMLESS_BIN"  # this machine's program, in LOCAL_FILE's env where a bare `seamless` is not it
# What the shared files run: the program LOCAL_FILE names, else the `seamless` on PATH. Claude Code expands
# `${VAR:-default}` in .mcp.json's command; the shell a hook runs in expands it in the hook's command.
RUN = f"${{{PROGRAM_VARIABLE}:-{PROGRAM}}}"
# Where the hook finds no program (a clone not wired on this machine, a virtualenv since removed) it says so in one
# line the agent reads, exit 0 as the hook's own failures (SPEC 11), not the shell's bare "not found"
NO_PROGRAM = (
    f'command -v "{RUN}" >/dev/null || {{ printf \'%s\\n\' "There is no briefing from the Seamless memory store: '
    f"{RUN} is not found on this machine. Run 'seamless init ${{CLAUDE_PROJECT_DIR:-.}} --store STORE' with an "
    'installed seamless (its full path where it is not on PATH): init names it in .claude/settings.local.json."; '
    "exit 0; }; "
)
ENV = ("SEAMLESS_STORE", "SEAMLESS_DB", PROGRAM_VARIABLE)  # this machine's store, index and program (LOCAL_FILE)
LOGIN_TIMEOUT = 10  # seconds a fresh login shell may take to say which `seamless` it finds
# Claude Code's SessionStart sources: a new session, --resume/--continue, /clear, and a compaction (which
# drops what the session was told at its start)
MATCHER = "startup|resume|clear|compact"


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
    help="The memory store, on this machine. Required, unless DIR's .claude/settings.local.json names it.",
)
@click.option(
    "--project",
    help="The folder's project in the store (`global`: the global memories). Required, unless DIR's wiring names it.",
)
@new_project_option
@click.option(
    "--db", "db_path", envvar="SEAMLESS_DB", show_envvar=True,
    help="The store's index, on this machine (built when missing). Default: the one DIR's "
    ".claude/settings.local.json names for the store, else ~/.local/share/seamless/STORENAME-HASH.db.",
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
    store, index and, where a bare `seamless` would not run this one, program go into .claude/settings.local.json.
    A teammate who pulls them runs `seamless init DIR --store STORE` once. Merges into the files that are there,
    keeping every other key and hook; running it again changes nothing.
    """
    folder = folder.resolve()
    claude, codex = harness in ("claude-code", "all"), harness in ("codex", "all")
    if undo:
        _write_all(folder, _undo_changes(folder, claude, codex))
        return
    mine = _personal_env(folder)
    project = project or _wired_project(folder)
    store = store or (Path(mine["SEAMLESS_STORE"]) if Path(mine.get("SEAMLESS_STORE", "")).is_dir() else None)
    if store is None or project is None:
        raise click.UsageError(
            "--store is required (or SEAMLESS_STORE) unless DIR's .claude/settings.local.json names one, and "
            "--project unless DIR's .mcp.json names one (unless --undo)"
        )
    try:
        scope_of(project)
    except WriteRefused as e:
        raise click.BadParameter(e.message, param_hint="--project") from None
    store = store.resolve()
    db = _index_path(store, db_path, mine)
    program = Program.find()
    try:
        changes = []
        if claude:
            env = {"SEAMLESS_STORE": str(store), "SEAMLESS_DB": str(db)}
            if program.pinned and program.path:
                env[PROGRAM_VARIABLE] = program.path
            changes.append(_mcp_change(folder / MCP_FILE, project))
            hook = NO_PROGRAM + f'"{RUN}" ' + shlex.join(["hook", "session-start", "--project", project])
            changes.append(_settings_change(folder / SETTINGS_FILE, hook))
            changes.append(_settings_change(folder / LOCAL_FILE, None, env))
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
    click.echo(indexed)
    _write_all(folder, changes)
    if claude and program.said:
        click.echo(program.said, err=program.path is None)
    click.echo("to undo: " + shlex.join(["seamless", "init", str(folder), "--harness", harness, "--undo"]))
    shared = [f for f in (MCP_FILE, SETTINGS_FILE, AGENTS_FILE) if any(c.path == folder / f and c.new for c in changes)]
    if any(c.path in {folder / f for f in shared} and c.action != "unchanged" for c in changes):
        click.echo(
            f"to share with the team: commit {', '.join(shared)} (they hold no path of this machine); each "
            f"teammate then runs `{shlex.join(['seamless', 'init', '.', '--store', 'STORE'])}` in their clone"
        )
    for warning in program.warnings():
        click.echo(warning, err=True)
    if codex:
        click.echo(_codex_line(program, store, db, project), err=program.path is None)


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


@dataclass
class Program:
    """This install's `seamless` (None: it has no such program) and whether the wiring must name it (`pinned`):
    a bare `seamless`, which the shared files run unless LOCAL_FILE names another, would not run it from this
    shell or from a fresh login shell; `said` says why, or why init cannot arrange it."""

    path: str | None
    pinned: bool
    said: str | None

    @classmethod
    def find(cls) -> "Program":
        this = this_program()
        if this is None:
            return cls(
                None,
                False,
                f"warning: this seamless runs as `{Path(sys.executable).name} -m indexer`, with no `{PROGRAM}` "
                f"program of its own, so the hook and the MCP server run the `{PROGRAM}` on PATH, "
                + _found_words(shutil.which(PROGRAM), None)
                + f": install it with pip (`{shlex.join([sys.executable, '-m', 'pip', 'install', '.'])}` in the "
                "checkout) and run init again with its `seamless`",
            )
        found = [("this shell", shutil.which(PROGRAM)), ("a fresh login shell", _login_shell_finds(PROGRAM))]
        other = [(where, path) for where, path in found if path is None or not _same_file(path, this)]
        if not other:
            return cls(this, False, None)
        where, path = other[-1]
        return cls(
            this,
            True,
            f"the hook and the MCP server run {this}, named as {PROGRAM_VARIABLE} in {LOCAL_FILE}: in {where} "
            f"a bare `{PROGRAM}` is " + _found_words(path, this),
        )

    def warnings(self) -> list[str]:
        """What would stop the wiring running that init cannot mend."""
        if self.path is not None and importlib.util.find_spec("mcp") is None:
            pip = shlex.join([sys.executable, "-m", "pip", "install", "seamless-explorer[mcp]"])
            return [f"warning: this install has no MCP SDK, so the MCP server will not start: `{pip}` adds it"]
        return []


def this_program() -> str | None:
    """The absolute path of this install's `seamless`: the one being run, else the one beside this Python."""
    argv0 = Path(sys.argv[0])
    if argv0.name == PROGRAM and argv0.is_file():
        return str(argv0.absolute())
    beside = Path(sys.executable).with_name(PROGRAM)
    return str(beside) if beside.is_file() else None


def _found_words(path: str | None, this: str | None) -> str:
    if path is None:
        return "not found (not on PATH)"
    return f"{path}, another install" if this else path


def _same_file(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _login_shell_finds(program: str) -> str | None:
    """The `program` a fresh login shell of this user finds on its PATH (None: none, or the shell did not say).
    The shell starts from nothing but the user's name, home and shell, as a new terminal or session does."""
    shell = os.environ.get("SHELL") or "/bin/sh"
    env = {k: os.environ[k] for k in ("HOME", "USER", "LOGNAME", "SHELL", "LANG") if k in os.environ}
    try:
        done = subprocess.run(
            [shell, "-l", "-c", f"command -v {program}"],
            env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=LOGIN_TIMEOUT, cwd="/",
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    # a profile may print lines of its own: the answer is the last
    lines = [line for line in done.stdout.splitlines() if line.startswith("/")]
    return lines[-1] if done.returncode == 0 and lines else None


def _codex_line(program: Program, store: Path, db: Path, project: str) -> str:
    """What to run for Codex's MCP tools: Codex keeps its servers outside DIR, in files init does not write."""
    where = (
        "Codex reads MCP servers from ~/.codex/config.toml (every project's) or a trusted project's "
        ".codex/config.toml (which a team commits), and init writes neither"
    )
    if program.path is None:
        return f"warning: {where}, and there is no `{PROGRAM}` program of this install to name there (above)"
    argv = [program.path, "mcp", str(store), "--db", str(db), "--project", project]
    return f"{where}: for Codex's MCP tools run " + shlex.join(["codex", "mcp", "add", SERVER, "--", *argv])


def _is_ours(hook) -> bool:
    """Whether a Claude Code hook entry runs `seamless hook session-start` (whichever store, db or project, with
    NO_PROGRAM's line before it or not)."""
    argv = _argv(hook.get("command") if isinstance(hook, dict) else None)
    return any(
        (word == RUN or Path(word).name == PROGRAM) and argv[n + 1 : n + 3] == ["hook", "session-start"]
        for n, word in enumerate(argv)
    )


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


def _personal_env(folder: Path) -> dict[str, str]:
    """The `env` of DIR's LOCAL_FILE, as init wrote it there on this machine ({} when there is none to read; one
    that cannot be read is refused later, when init reads it to merge into)."""
    with contextlib.suppress(Refused, AttributeError):
        env = _json(folder / LOCAL_FILE, _read(folder / LOCAL_FILE)).get("env", {})
        return {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}
    return {}


def _index_path(store: Path, given: str | None, mine: dict[str, str]) -> Path:
    """Where the store's index is: `--db` (or SEAMLESS_DB), else the one DIR's LOCAL_FILE names for this store,
    else a file of this user's own for it (never the current folder, which may be any project's)."""
    if given:
        return Path(given).expanduser().resolve()
    if mine.get("SEAMLESS_DB") and mine.get("SEAMLESS_STORE") and _same_file(mine["SEAMLESS_STORE"], str(store)):
        return Path(mine["SEAMLESS_DB"])
    return default_index(store)


def default_index(store: Path) -> Path:
    """A store's index when nothing names one: `$XDG_DATA_HOME/seamless/NAME-HASH.db` (~/.local/share by default),
    NAME the store's folder name and HASH of its whole path, so two stores of one name keep two indexes."""
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local/share")
    digest = hashlib.sha256(str(store).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return data / "seamless" / f"{store.name or 'store'}-{digest}.db"


def _indexed(store: Path, db: Path) -> str:
    """Build the store's index when missing, else bring it in step (refusing an index of another store); the line
    that says where it is and what was done."""
    built = not db.is_file()
    try:
        if not built:
            with contextlib.closing(sqlite3.connect(db)) as conn:
                if not database.is_index(conn):
                    raise Refused(f"{db} is not a Seamless index: give another --db")
                database.check_store(conn, store, db)
        else:
            db.parent.mkdir(parents=True, exist_ok=True)
        summary = index_store(store, db)
    except database.OtherStoreError as e:
        raise Refused(str(e)) from None
    except (sqlite3.DatabaseError, OSError) as e:
        raise Refused(f"cannot index the store at {store} into {db}: {e}") from None
    if built:
        return f"indexed {store} into {db}: {summary.memories} memories, {summary.notes} notes"
    if summary.files_changed or summary.files_deleted:
        return f"brought the index at {db} in step: {summary.files_changed} files changed, {summary.files_deleted} gone"
    return f"the index at {db} is in step with {store}"


def _known_project(store: Path, db: Path, project: str, new_project: bool) -> None:
    """Refuse a project the store has no memory or note of, unless `new_project` says it is meant; the refusal
    names the closest project first, then the store's projects."""
    if new_project:
        return
    with contextlib.closing(sqlite3.connect(db)) as conn:
        said = projects.unknown(conn, project)
    if said:
        raise Refused(
            f"the store at {store} {said} Give one of them as --project, or add --new-project to begin {project!r}"
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
        argv = [RUN, "mcp", "--project", project]
        entry = {"type": "stdio", "command": argv[0], "args": argv[1:]}
        what = f"mcpServers.{SERVER} runs `{RUN} {shlex.join(argv[1:])}`"
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
        said.insert(0, f"a SessionStart hook ({MATCHER}) runs `{command.removeprefix(NO_PROGRAM)}`")
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
