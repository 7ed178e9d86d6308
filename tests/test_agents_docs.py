"""docs/agents.md shows what the commands print today: its `console` blocks are run and their output compared,
and every `seamless` command on the page names options its command has."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click

from indexer.front.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "agents.md"
SHOWN_FOLDER = "/home/me/seamless"  # the folder the page's commands run in, as the page writes it


def console_blocks() -> list[list[tuple[str, str]]]:
    """Each ```console block as (command, expected output) pairs: `$ ` lines, `\\` continuing them."""
    blocks = []
    for block in re.findall(r"^```console\n(.*?)^```", PAGE.read_text(), re.DOTALL | re.MULTILINE):
        pairs: list[tuple[str, str]] = []
        lines = block.splitlines(keepends=True)
        while lines:
            line = lines.pop(0)
            assert line.startswith("$ "), f"output before any command in a console block: {line!r}"
            command = line[2:]
            while command.rstrip("\n").endswith("\\"):
                command += lines.pop(0)
            output = ""
            while lines and not lines[0].startswith("$ "):
                output += lines.pop(0)
            pairs.append((command, output))
        blocks.append(pairs)
    return blocks


def test_the_pages_console_blocks_print_what_is_shown(tmp_path):
    """The page's commands run where a virtualenv's `seamless` is on this shell's PATH, as the page's folder shows
    it (`.venv/bin`), but not on a fresh login shell's: the user's home has no profile that puts it there."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / ".venv/bin").mkdir(parents=True)
    (tmp_path / ".venv/bin/seamless").symlink_to(Path(sys.executable).with_name("seamless"))
    (tmp_path / "home").mkdir()
    env = {
        **os.environ,
        "PATH": f"{tmp_path / '.venv/bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path / "home"),
        "SHELL": "/bin/bash",
    }
    for variable in ("SEAMLESS_PROJECT", "SEAMLESS_STORE", "SEAMLESS_DB", "XDG_DATA_HOME"):  # the page gives its own
        env.pop(variable, None)
    blocks = console_blocks()
    assert len(blocks) >= 2
    for block in blocks:
        for command, expected in block:
            done = subprocess.run(
                ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, (command, done.stderr)
            shown = done.stdout.replace(str(tmp_path.resolve()), SHOWN_FOLDER).replace(str(tmp_path), SHOWN_FOLDER)
            assert shown == expected, f"docs/agents.md shows another output for: {command}"
    # what the agent reads within the default limit is what `seamless briefing` prints, as the page says
    hook = subprocess.run(
        ["bash", "-c", "seamless hook session-start --db seamless.db --project seamless --as-of 2026-12-02 </dev/null"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    text = __import__("json").loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    briefing = next(out for block in blocks for command, out in block if command.startswith("seamless briefing"))
    assert text == briefing


def page_commands() -> list[list[str]]:
    """Every `seamless ...` command of the page's bash blocks and console commands, as arguments (up to a pipe or a
    redirection)."""
    lines = []
    for block in re.findall(r"^```bash\n(.*?)^```", PAGE.read_text(), re.DOTALL | re.MULTILINE):
        lines += re.sub(r"\\\n\s*", " ", block).splitlines()
    lines += [re.sub(r"\\\n\s*", " ", command) for block in console_blocks() for command, _ in block]
    commands = []
    for line in lines:
        for part in re.split(r"\|\|?|&&|<|>", line):
            words = shlex.split(part, comments=True)
            if words[:1] == ["seamless"]:
                commands.append(words[1:])
    return commands


def test_every_seamless_command_on_the_page_names_options_its_command_has():
    commands = page_commands()
    assert len(commands) >= 8
    for words in commands:
        command, path = cli, ["seamless"]
        while isinstance(command, click.Group) and words and not words[0].startswith("-"):
            name, words = words[0], words[1:]
            with click.Context(command) as ctx:
                command = command.get_command(ctx, name)
            assert command is not None, f"docs/agents.md: `{' '.join(path)}` has no command {name!r}"
            path.append(name)
        known = {opt for param in command.params for opt in param.opts + param.secondary_opts}
        unknown = [w for w in words if w.startswith("--") and w not in known]
        assert not unknown, f"docs/agents.md: `{' '.join(path)}` has no option {unknown}"
