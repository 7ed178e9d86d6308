"""`seamless init DIR` (SPEC 11): Claude Code's .mcp.json and SessionStart hook, Codex's AGENTS.md block, merged
into what is there; twice changes no byte; invalid JSON refused with nothing written; --undo takes it out."""

import json
import os
import shlex
import subprocess

import pytest
from click.testing import CliRunner

from indexer.front.cli import cli

OLD_MTIME = 1_700_000_000_000_000_000
THEIRS_MCP = {"mcpServers": {"github": {"command": "gh-mcp", "args": ["--stdio"]}}, "unknown": [1, 2.5, None]}
THEIRS_SETTINGS = {
    "permissions": {"allow": ["Bash(make test)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def init(folder, *options, ok=True):
    result = CliRunner().invoke(cli, ["init", str(folder), *map(str, options)])
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


def test_claude_code_gets_the_mcp_server_and_a_session_start_hook_that_runs_from_anywhere(briefed, project, tmp_path):
    output = wire(briefed, project)
    assert "created .mcp.json" in output and "created .claude/settings.json" in output
    assert f"to undo: seamless init {project} --harness claude-code --undo" in output
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["seamless"]
    assert server["type"] == "stdio" and os.path.isabs(server["command"])
    assert server["args"] == ["mcp", str(briefed.root), "--db", str(briefed.db_path), "--project", "seamless"]
    settings = json.loads((project / ".claude/settings.json").read_text())
    (group,) = settings["hooks"]["SessionStart"]
    assert group["matcher"] == "startup|resume|clear|compact"
    (hook,) = group["hooks"]
    assert hook["type"] == "command"
    # the command as Claude Code runs it: through a shell, from another folder, with a bare PATH
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    event = json.dumps(
        {"session_id": "s", "cwd": str(elsewhere), "source": "startup", "hook_event_name": "SessionStart"}
    )
    done = subprocess.run(
        hook["command"], shell=True, input=event, capture_output=True, text=True, cwd=elsewhere,
        env={"PATH": "/usr/bin:/bin"}, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("# Briefing: seamless\n") and "chroma-port" in text and "no-secrets" in text
    assert shlex.split(hook["command"])[1:] == [
        "hook", "session-start", "--store", str(briefed.root), "--db", str(briefed.db_path), "--project", "seamless",
    ]  # fmt: skip


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


@pytest.mark.parametrize(
    ("path", "text", "reason"),
    [
        (".claude/settings.json", '{"hooks": {,}}', "is not valid JSON"),
        (".claude/settings.json", '{"a": 1, "a": 2}', "the key 'a' is given twice"),
        (".claude/settings.json", "[]", "is not a JSON object but a list"),
        (".claude/settings.json", '{"hooks": {"SessionStart": {"matcher": "x"}}}', "hooks.SessionStart is not a list"),
        (".mcp.json", '{"mcpServers": []}', "mcpServers is not a JSON object"),
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
    result = CliRunner().invoke(cli, ["init", str(project), "--store", str(briefed.root)])
    assert result.exit_code == 2 and "--store and --project are required" in result.output
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
