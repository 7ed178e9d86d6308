"""`seamless init DIR` (SPEC 11): Claude Code's .mcp.json and SessionStart hook, Codex's AGENTS.md block, merged
into what is there; twice changes no byte; invalid JSON refused with nothing written; --undo takes it out."""

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitstores import git, isolate

from indexer.front.cli import cli
from indexer.front.init import NO_PROGRAM

OLD_MTIME = 1_700_000_000_000_000_000
NO_SEAMLESS = {"SEAMLESS_STORE": None, "SEAMLESS_DB": None, "SEAMLESS_PROJECT": None}
THEIRS_MCP = {"mcpServers": {"github": {"command": "gh-mcp", "args": ["--stdio"]}}, "unknown": [1, 2.5, None]}
THEIRS_SETTINGS = {
    "permissions": {"allow": ["Bash(make test)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


LOGIN_PATH = "/usr/local/bin:/usr/bin:/bin"  # a fresh login shell's PATH here: no virtualenv's bin on it
THIS = str(Path(sys.executable).with_name("seamless"))  # this install's program
RUN = "${SEAMLESS_BIN:-seamless}"
HOOK = NO_PROGRAM + f'"{RUN}" hook session-start --project seamless'


@pytest.fixture(autouse=True)
def fresh_user(tmp_path, monkeypatch):
    """init run as a user whose home holds nothing yet (no profile, no index) and whose PATH lacks this install's
    `seamless`, as in a shell where its virtualenv is not active."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", LOGIN_PATH)
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return home


def init(folder, *options, ok=True):
    result = CliRunner().invoke(cli, ["init", str(folder), *map(str, options)], env=NO_SEAMLESS)
    assert result.exit_code == (0 if ok else 1), result.output
    assert "Traceback" not in result.output
    return result.output


def wire(store, folder, *options, project="seamless", ok=True):
    return init(folder, "--store", store.root, "--project", project, "--db", store.db_path, *options, ok=ok)


def files(folder) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def claude_code_env(folder, path=LOGIN_PATH) -> dict[str, str]:
    """The environment Claude Code gives a hook or an MCP server it starts in `folder`: its own, as a fresh login
    shell has it (`path`, without this install's bin; the user's home), and the `env` of the folder's settings
    files."""
    env = {"PATH": path, "HOME": os.environ["HOME"]}
    for name in (".claude/settings.json", ".claude/settings.local.json"):
        if (folder / name).is_file():
            env.update(json.loads((folder / name).read_text()).get("env", {}))
    return env


def expanded(text: str, env: dict[str, str]) -> str:
    """`text` as Claude Code expands a .mcp.json command or argument: `${VAR}` and `${VAR:-default}`."""
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}", lambda m: env.get(m[1]) or (m[2] if m[2] is not None else m[0]), text)


def mcp_params(folder, **extra):
    """`.mcp.json`'s `seamless` server as Claude Code starts it in `folder`."""
    from mcp.client.stdio import StdioServerParameters

    server = json.loads((folder / ".mcp.json").read_text())["mcpServers"]["seamless"]
    env = claude_code_env(folder, **extra)
    command, *args = (expanded(part, env) for part in [server["command"], *server["args"]])
    return StdioServerParameters(command=command, args=args, env=env, cwd=folder)


def run_hook(folder, command: str, cwd, **extra) -> str:
    """The hook's text, run as Claude Code runs it: through a shell, from wherever the session starts."""
    event = json.dumps({"session_id": "s", "cwd": str(cwd), "source": "startup", "hook_event_name": "SessionStart"})
    done = subprocess.run(
        command, shell=True, input=event, capture_output=True, text=True, cwd=cwd, env=claude_code_env(folder, **extra),
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_claude_code_gets_the_mcp_server_and_a_session_start_hook_with_no_path_of_this_machine(briefed, project):
    output = wire(briefed, project)
    assert "created .mcp.json" in output and "created .claude/settings.json" in output
    assert "created .claude/settings.local.json" in output
    assert f"to undo: seamless init {project} --harness claude-code --undo" in output
    # the files a team commits name the program (SEAMLESS_BIN, else the one on PATH) and the project, nothing of
    # this machine
    for shared in (".mcp.json", ".claude/settings.json"):
        text = (project / shared).read_text()
        assert str(briefed.root) not in text and str(briefed.db_path) not in text, text
        assert set(re.findall(r"[\w.]*/[\w./]*", text)) <= {"/dev/null", ".claude/settings.local.json."}, text
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["seamless"]
    assert server == {"type": "stdio", "command": RUN, "args": ["mcp", "--project", "seamless"]}
    (group,) = json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"]
    assert group["matcher"] == "startup|resume|clear|compact"
    assert group["hooks"] == [{"type": "command", "command": HOOK}]
    # this machine's store, index and program (no `seamless` on a login shell's PATH): in the personal file, as the
    # environment of what Claude Code starts
    local = json.loads((project / ".claude/settings.local.json").read_text())
    assert local == {
        "env": {"SEAMLESS_STORE": str(briefed.root), "SEAMLESS_DB": str(briefed.db_path), "SEAMLESS_BIN": THIS}
    }
    assert (
        f"the hook and the MCP server run {THIS}, named as SEAMLESS_BIN in .claude/settings.local.json: in a fresh "
        "login shell a bare `seamless` is not found (not on PATH)\n"
    ) in output
    elsewhere = project / "src"
    elsewhere.mkdir()
    text = run_hook(project, group["hooks"][0]["command"], cwd=elsewhere)
    assert text.startswith("# Briefing: seamless\n") and "chroma-port" in text and "no-secrets" in text


async def test_the_mcp_server_of_mcp_json_serves_this_machines_store(briefed, project):
    """`.mcp.json`'s server started as Claude Code starts it, through the official MCP client."""
    pytest.importorskip("mcp")
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    wire(briefed, project)
    async with stdio_client(mcp_params(project)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("recall", {"query": "chroma"})
        assert not result.is_error and "chroma-port" in result.content[0].text
        result = await session.call_tool("memory_write", {"kind": "gotcha", "name": "a-b", "description": "A b"})
        assert not result.is_error, result.content[0].text
    assert (briefed.root / "memories/seamless/a-b.md").is_file()  # the session's project, in this machine's store


def hook_of(folder) -> str:
    return json.loads((folder / ".claude/settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]


def on_login_path(home, program: str, monkeypatch) -> str:
    """`program` (a link, or a script of another install) as `seamless` in ~/bin, which the user's profile puts
    first on a login shell's PATH, as this shell's; that PATH."""
    (home / "bin").mkdir()
    if program == THIS:
        (home / "bin/seamless").symlink_to(THIS)
    else:
        (home / "bin/seamless").write_text(program)
        (home / "bin/seamless").chmod(0o755)
    (home / ".profile").write_text('PATH="$HOME/bin:$PATH"\n')
    path = f"{home / 'bin'}:{LOGIN_PATH}"
    monkeypatch.setenv("PATH", path)
    return path


def test_where_a_bare_seamless_is_this_install_the_personal_file_names_no_program(
    briefed, project, fresh_user, monkeypatch
):
    path = on_login_path(fresh_user, THIS, monkeypatch)
    output = wire(briefed, project)
    local = json.loads((project / ".claude/settings.local.json").read_text())
    assert set(local["env"]) == {"SEAMLESS_STORE", "SEAMLESS_DB"} and "named as SEAMLESS_BIN" not in output
    assert run_hook(project, hook_of(project), cwd=project, path=path).startswith("# Briefing: seamless\n")


async def test_where_a_bare_seamless_is_another_install_the_wiring_runs_this_one(
    briefed, project, fresh_user, monkeypatch
):
    """Another `seamless` first on the login PATH (an older install): the hook and the MCP server run this one."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    other = fresh_user / "bin/seamless"
    path = on_login_path(fresh_user, "#!/bin/sh\necho 'an older seamless' >&2; exit 3\n", monkeypatch)
    output = wire(briefed, project)
    assert json.loads((project / ".claude/settings.local.json").read_text())["env"]["SEAMLESS_BIN"] == THIS
    assert f"in a fresh login shell a bare `seamless` is {other}, another install" in output
    assert run_hook(project, hook_of(project), cwd=project, path=path).startswith("# Briefing: seamless\n")
    async with stdio_client(mcp_params(project, path=path)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert "chroma-port" in (await session.call_tool("recall", {"query": "chroma"})).content[0].text


def test_the_index_goes_where_the_personal_file_says_never_into_the_current_folder(
    store, project, tmp_path, fresh_user, monkeypatch
):
    store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    here = tmp_path / "somewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    output = init(project, "--store", store.root, "--project", "seamless")
    db = fresh_user / ".local/share/seamless" / f"store-{hashlib.sha256(str(store.root).encode()).hexdigest()[:8]}.db"
    assert output.startswith(f"indexed {store.root} into {db}: 1 memories, 0 notes\n")
    assert list(here.iterdir()) == [] and db.is_file()
    assert json.loads((project / ".claude/settings.local.json").read_text())["env"]["SEAMLESS_DB"] == str(db)
    # run again, with neither --store nor --db: the personal file names both
    output = init(project)
    assert output.startswith(f"the index at {db} is in step with {store.root}\n") and "unchanged .mcp.json" in output
    assert list(here.iterdir()) == []
    assert "chroma-port" in run_hook(project, hook_of(project), cwd=project)


async def test_codex_is_told_the_command_that_adds_the_server_and_it_runs_from_a_fresh_shell(briefed, project):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    output = wire(briefed, project, "--harness", "codex")
    (line,) = [line for line in output.splitlines() if "codex mcp add" in line]
    assert line.startswith(
        "Codex reads MCP servers from ~/.codex/config.toml (every project's) or a trusted project's .codex/config.toml "
        "(which a team commits), and init writes neither: for Codex's MCP tools run codex mcp add seamless -- "
    )
    argv = shlex.split(line.split(" run ", 1)[1])
    assert argv[:5] == ["codex", "mcp", "add", "seamless", "--"] and argv[5] == THIS
    params = StdioServerParameters(command=argv[5], args=argv[6:], env={"PATH": LOGIN_PATH, "HOME": os.environ["HOME"]})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert "# Briefing: seamless" in (await session.call_tool("briefing", {"project": "seamless"})).content[0].text


def test_an_install_with_no_seamless_program_says_why_it_cannot_arrange_it_and_what_to_do(briefed, project, tmp_path):
    """Run as `python -m indexer` from a Python that has no `seamless` beside it (a virtualenv's packages, without
    its scripts): the wiring names the `seamless` on PATH, and init says that none is there, and what to do."""
    venv = Path(sys.prefix)
    bare = tmp_path / "bare"
    (bare / "bin").mkdir(parents=True)
    (bare / "pyvenv.cfg").write_bytes((venv / "pyvenv.cfg").read_bytes())
    (bare / "lib").symlink_to(venv / "lib")
    (bare / "bin/python").symlink_to(Path(sys.executable))
    argv = [str(bare / "bin/python"), "-m", "indexer", "init", str(project), "--store", str(briefed.root)]
    done = subprocess.run(
        [*argv, "--project", "seamless", "--db", str(briefed.db_path)],
        capture_output=True, text=True, env={**os.environ, "PYTHONSAFEPATH": "1"}, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "SEAMLESS_BIN" not in (project / ".claude/settings.local.json").read_text()
    assert (
        "warning: this seamless runs as `python -m indexer`, with no `seamless` program of its own, so the hook and "
        "the MCP server run the `seamless` on PATH, not found (not on PATH): install it with pip"
    ) in done.stderr
    # a session started so is told in one line what to do, not the shell's bare "not found"; so is one whose
    # program has gone since (its virtualenv removed)
    for env, program in (({}, "seamless"), ({"SEAMLESS_BIN": str(bare / "bin/seamless")}, bare / "bin/seamless")):
        hook = subprocess.run(
            hook_of(project), shell=True, input="{}", capture_output=True, text=True, cwd=project, timeout=60,
            env={**claude_code_env(project), "CLAUDE_PROJECT_DIR": str(project), **env},
        )  # fmt: skip
        assert (hook.returncode, hook.stderr) == (0, "")
        assert hook.stdout == (
            f"There is no briefing from the Seamless memory store: {program} is not found on this machine. Run "
            f"'seamless init {project} --store STORE' with an installed seamless (its full path where it is not on "
            "PATH): init names it in .claude/settings.local.json.\n"
        )


def test_a_misspelt_project_is_refused_naming_the_closest_and_the_stores_projects(briefed, project):
    output = wire(briefed, project, project="seamles", ok=False)
    assert output.strip() == (
        f"Error: the store at {briefed.root} has no project 'seamles': did you mean 'seamless'? Its projects: "
        f"console, seamless. Give one of them as --project, or add --new-project to begin 'seamles'; nothing was "
        f"written in {project}"
    )
    assert files(project) == {}
    assert "created .mcp.json" in wire(briefed, project, "--new-project", project="tidepool")
    assert "global" in wire(briefed, project, project="global")


def test_a_store_never_indexed_is_indexed_so_the_first_session_is_briefed(store, project, tmp_path):
    store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    assert not store.db_path.exists()
    output = wire(store, project)
    assert output.startswith(f"indexed {store.root} into {store.db_path}: 1 memories, 0 notes\n")
    command = json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    text = run_hook(project, command["command"], cwd=project)
    assert text.startswith("# Briefing: seamless\n") and "chroma-port" in text


def test_a_team_shares_the_wiring_and_each_teammate_runs_one_command(briefed, tmp_path, monkeypatch):
    """Alice wires her clone and commits; Bob clones it, has his own copy of the store elsewhere, runs init once
    (the project comes from the wiring) and his sessions are briefed from his store; nothing shows in git."""
    isolate(monkeypatch, tmp_path)
    alice = tmp_path / "alice" / "tidepool"
    alice.mkdir(parents=True)
    git(alice, "init", "-q", "-b", "main")
    (alice / "README.md").write_text("# Tidepool\n")
    wire(briefed, alice)
    assert git(alice, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        "?? .claude/settings.json", "?? .mcp.json", "?? README.md",
    ]  # fmt: skip
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "Wire agents to the memory store")
    bob = tmp_path / "bob" / "tidepool"
    git(tmp_path, "clone", "-q", alice, bob)
    bob_store = type(briefed)(tmp_path / "bob" / "memory-store")
    bob_store.memory("chroma-port", kind="decision", description="Chroma listens on 8000 (Bob's copy)")
    output = init(bob, "--store", bob_store.root, "--db", bob_store.db_path)  # no --project: the wiring has it
    assert "unchanged .mcp.json" in output and "unchanged .claude/settings.json" in output
    assert git(bob, "status", "--porcelain", "--untracked-files=all") == ""
    command = json.loads((bob / ".claude/settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    assert "(Bob's copy)" in run_hook(bob, command["command"], cwd=bob)
    # a clone whose machine has no store yet is told the one command
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", alice, carol)
    text = run_hook(carol, command["command"], cwd=carol, path=f"{Path(THIS).parent}:{LOGIN_PATH}")  # on her PATH
    assert text == (
        "The Seamless memory store is not set up on this machine (no SEAMLESS_STORE, no index), so there is no "
        f"briefing. Give this folder this machine's clone of the store: `seamless init {carol} --store STORE`."
    )


def test_wiring_with_this_machines_paths_in_shared_files_is_moved_out_of_them(briefed, project):
    """What init wrote before: the venv's program, the store and the index in .mcp.json and .claude/settings.json."""
    program, store, db = "/home/me/.venv/bin/seamless", str(briefed.root), str(briefed.db_path)
    old = [program, "mcp", store, "--db", db, "--project", "seamless"]
    (project / ".claude").mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"seamless": {"command": old[0], "args": old[1:]}}}))
    hook = shlex.join([old[0], "hook", "session-start", "--store", str(briefed.root), "--db", str(briefed.db_path)])
    group = {"matcher": "startup", "hooks": [{"type": "command", "command": hook}]}
    (project / ".claude/settings.json").write_text(json.dumps({"hooks": {"SessionStart": [group]}}))
    output = wire(briefed, project)
    assert "updated .mcp.json" in output and '(it was {"command": "/home/me/.venv/bin/seamless"' in output
    for shared in (".mcp.json", ".claude/settings.json"):
        assert "/home/me" not in (project / shared).read_text()
    (group,) = json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"]
    assert group == {"matcher": "startup", "hooks": [{"type": "command", "command": HOOK}]}


def test_it_merges_keeping_every_other_key_and_hook_and_twice_changes_no_byte(briefed, project):
    (project / ".claude").mkdir()
    (project / ".mcp.json").write_text(json.dumps(THEIRS_MCP))
    (project / ".claude/settings.json").write_text(json.dumps(THEIRS_SETTINGS, indent=4))
    output = wire(briefed, project, "--harness", "all")
    assert "updated .mcp.json" in output and "updated .claude/settings.json" in output and "created AGENTS.md" in output
    mcp = json.loads((project / ".mcp.json").read_text())
    assert mcp["unknown"] == THEIRS_MCP["unknown"] and mcp["mcpServers"]["github"] == THEIRS_MCP["mcpServers"]["github"]
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["permissions"] == THEIRS_SETTINGS["permissions"]
    assert settings["hooks"]["Stop"] == THEIRS_SETTINGS["hooks"]["Stop"]
    assert settings["hooks"]["SessionStart"][0] == THEIRS_SETTINGS["hooks"]["SessionStart"][0]
    assert len(settings["hooks"]["SessionStart"]) == 2
    assert "# Briefing: seamless" in (project / "AGENTS.md").read_text()
    for path in project.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(OLD_MTIME, OLD_MTIME))
    before = files(project)
    output = wire(briefed, project, "--harness", "all")
    assert files(project) == before
    assert "unchanged .mcp.json" in output and "unchanged .claude/settings.json" in output
    assert "unchanged AGENTS.md" in output


def test_another_project_replaces_the_hook_in_place_rather_than_adding_a_second(briefed, project):
    wire(briefed, project)
    output = wire(briefed, project, project="console")
    assert "updated .claude/settings.json" in output and "(it was {" in output  # the old server is shown, not lost
    settings = json.loads((project / ".claude/settings.json").read_text())
    (group,) = settings["hooks"]["SessionStart"]
    (hook,) = group["hooks"]
    assert hook["command"].endswith("--project console")


def test_the_hook_init_wrote_before_it_said_what_to_do_without_a_program_is_replaced_in_place(briefed, project):
    (project / ".claude").mkdir()
    hook = {"type": "command", "command": f'"{RUN}" hook session-start --project seamless'}
    (project / ".claude/settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    assert "updated .claude/settings.json" in wire(briefed, project)
    assert json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": HOOK}]}
    ]


@pytest.mark.parametrize(
    ("path", "text", "reason"),
    [
        (".claude/settings.json", '{"hooks": {,}}', "is not valid JSON"),
        (".claude/settings.json", '{"a": 1, "a": 2}', "the key 'a' is given twice"),
        (".claude/settings.json", "[]", "is not a JSON object but a list"),
        (".claude/settings.json", '{"hooks": {"SessionStart": {"matcher": "x"}}}', "hooks.SessionStart is not a list"),
        (".mcp.json", '{"mcpServers": []}', "mcpServers is not a JSON object"),
        (".claude/settings.local.json", '{"env": ["SEAMLESS_STORE"]}', "env is not a JSON object"),
        (".claude/settings.local.json", "{'env': 1}", "is not valid JSON"),
        (".mcp.json", "", "is not valid JSON"),
        ("AGENTS.md", "<!-- seamless:begin -->\n", "a begin marker on line 1"),
    ],
)
def test_a_file_it_cannot_merge_into_refuses_everything_in_one_line(briefed, project, path, text, reason):
    (project / ".claude").mkdir()
    (project / ".mcp.json").write_text(json.dumps(THEIRS_MCP))
    (project / path).write_text(text)
    before = files(project)
    output = wire(briefed, project, "--harness", "all", ok=False)
    assert reason in output and "nothing was written" in output and len(output.strip().splitlines()) == 1
    assert files(project) == before


def test_undo_takes_out_only_what_init_put_in(briefed, project):
    (project / ".mcp.json").write_text(json.dumps(THEIRS_MCP))
    (project / "AGENTS.md").write_text("# Agents\n\nRun make test.\n")
    wire(briefed, project, "--harness", "all")
    output = init(project, "--harness", "all", "--undo")
    assert "updated .mcp.json: mcpServers.seamless taken out" in output
    assert "deleted .claude/settings.json" in output and not (project / ".claude").exists()
    assert json.loads((project / ".mcp.json").read_text()) == THEIRS_MCP
    assert (project / "AGENTS.md").read_text() == "# Agents\n\nRun make test.\n"
    before = files(project)
    assert "unchanged" in init(project, "--harness", "all", "--undo") and files(project) == before


def test_store_and_project_are_required_and_checked(briefed, project):
    result = CliRunner().invoke(cli, ["init", str(project), "--store", str(briefed.root)], env={"SEAMLESS_STORE": None})
    assert result.exit_code == 2 and "--project unless DIR's .mcp.json names one" in result.output
    result = CliRunner().invoke(cli, ["init", str(project), "--store", str(briefed.root), "--project", "a/b"])
    assert result.exit_code == 2 and "not a safe folder name" in result.output
    assert files(project) == {}


def test_a_claude_folder_that_is_a_file_refuses_before_anything_is_written(briefed, project):
    (project / ".claude").write_text("not a folder")
    output = wire(briefed, project, ok=False)
    assert "cannot read" in output and "nothing was written" in output
    assert files(project) == {".claude": ((project / ".claude").read_bytes(), (project / ".claude").stat().st_mtime_ns)}


def test_codex_with_an_index_of_another_store_refuses_before_anything_is_written(briefed, project, tmp_path):
    other = type(briefed)(tmp_path / "other")
    other.index()
    output = init(
        project, "--store", other.root, "--project", "seamless", "--db", briefed.db_path, "--harness", "all", ok=False
    )
    assert f"holds the store at {briefed.root.resolve()}" in output and "nothing was written" in output
    assert files(project) == {}
