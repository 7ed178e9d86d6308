"""Write the generated parts of the docs: the rules table (from indexer.store.problems.RULES) and the CLI reference;
and the options of the commands `seamless` runs without click (indexer/front/declared.py), from their click commands.

Run `python -m docs.generate` (or `make docs`) from the repository root after adding a problem code or a
command, or changing a command's options; tests/test_docs.py fails while the committed pages differ (and
tests/test_main.py while declared.py does). Each part sits between a `<!-- generated: NAME -->` line and a
`<!-- end generated: NAME -->` line; the rest of the page is written by hand and left as it is.
"""

import json
import pathlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

import click
from click.testing import CliRunner

from indexer.front import options
from indexer.front.cli import cli
from indexer.front.main import BODIES
from indexer.store.problems import RULES

DOCS = Path(__file__).resolve().parent
DECLARED = DOCS.parent / "indexer" / "front" / "declared.py"
HELP_WIDTH = 100  # --help wraps at the terminal's width: fix it so the pages do not depend on who ran this


def rules_table() -> str:
    """The rules table of docs/store.md: one row per problem code, in the registry's order."""
    rows = [f"| {rule.severity} | `{rule.code}` | {rule.meaning} |" for rule in RULES]
    return "\n".join(["| severity | code | when |", "| --- | --- | --- |", *rows])


def _help(args: list[str]) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="seamless", terminal_width=HELP_WIDTH)
    if result.exit_code != 0:
        raise RuntimeError(f"seamless {' '.join(args)} --help failed: {result.output}")
    return result.output.rstrip()


def cli_reference() -> str:
    """The `--help` of `seamless` and of each of its commands (and a group's commands), in the order `seamless
    --help` lists them."""
    parts = [f"### seamless\n\n```\n{_help([])}\n```"]
    parts += [f"### seamless {' '.join(path)}\n\n```\n{_help(path)}\n```" for path in _commands(cli, [])]
    return "\n\n".join(parts)


def _commands(group: click.Group, above: list[str]) -> list[list[str]]:
    """Every command under `group` as its path of names, a group before its own commands."""
    with click.Context(group) as ctx:
        names = group.list_commands(ctx)
    found = []
    for name in names:
        command = group.get_command(ctx, name)
        found.append([*above, name])
        if isinstance(command, click.Group):
            found += _commands(command, [*above, name])
    return found


def declared() -> str:
    """indexer/front/declared.py: the parameters of each command of `main.BODIES` as its click command declares
    them, in the terms `indexer.front.main` reads them in."""
    lines = [
        '"""The options of the commands `seamless` runs without click (indexer.front.main), as their click commands',
        "declare them. Written by `python -m docs.generate` (`make docs`) from those commands; tests/test_main.py",
        'fails while it differs from them. Do not edit by hand."""',
        "",
        "COMMANDS: dict[str, list[dict]] = {",
    ]
    for name in BODIES:
        command = _command(name.split())
        lines.append(f"    {json.dumps(name)}: [")
        lines += [f"        {_literal(_declared(param))}," for param in command.params]
        lines.append("    ],")
    return "\n".join([*lines, "}", ""])


def _command(path: list[str]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        with click.Context(command) as ctx:
            found = command.get_command(ctx, name)
        assert found is not None, f"no command seamless {' '.join(path)}"
        command = found
    return command


def _declared(param: click.Parameter) -> dict:
    """One parameter: its name, its flags (none for an argument) and its type as `main` knows them ("click": one
    only click reads; given, the command line goes to click), whether it is required or repeatable, its default
    and environment variable."""
    if param.nargs != 1 or not param.expose_value or param.is_eager:
        raise ValueError(f"{param.name}: indexer.front.main reads no such parameter; run its command with click")
    entry: dict = {"name": param.name}
    if isinstance(param, click.Option):
        if param.secondary_opts or param.count or param.prompt:
            raise ValueError(f"{param.name}: indexer.front.main reads no such option; run its command with click")
        entry["flags"] = list(param.opts)
    extras: dict = {}
    entry["type"] = _kind(param, extras)
    entry |= extras
    if param.required:
        entry["required"] = True
    if param.multiple:
        entry["multiple"] = True
    with click.Context(click.Command("seamless")) as ctx:
        default = param.get_default(ctx, call=False)
    if callable(default):
        raise ValueError(f"{param.name}: a default worked out when the command runs")
    if isinstance(default, str | int) and entry["type"] != "flag":  # not None, nor click's mark for no default
        entry["default"] = default
    if param.envvar:
        if not isinstance(param.envvar, str):
            raise ValueError(f"{param.name}: one environment variable at most")
        entry["envvar"] = param.envvar
    return entry


def _kind(param: click.Parameter, entry: dict) -> str:
    kind = param.type
    if isinstance(param, click.Option) and param.is_flag:
        with click.Context(click.Command("seamless")) as ctx:
            off = param.get_default(ctx, call=False) is False
        return "flag" if param.is_bool_flag and off and not param.callback else "click"
    if param.callback is options.as_of and isinstance(kind, click.types.StringParamType):
        return "time"
    if param.callback is not None:
        return "click"
    if isinstance(kind, click.types.StringParamType):
        return "text"
    if isinstance(kind, click.types.IntParamType) and not isinstance(kind, click.types.FloatParamType):
        if isinstance(kind, click.IntRange):
            if kind.min_open or kind.max_open or kind.clamp:
                return "click"
            entry.update({k: v for k, v in (("min", kind.min), ("max", kind.max)) if v is not None})
        return "int"
    if (
        isinstance(kind, click.Path)
        and (kind.dir_okay, kind.file_okay, kind.readable, kind.writable, kind.executable, kind.resolve_path)
        == (True, False, True, False, False, False)
        and kind.type is pathlib.Path
    ):
        if kind.exists:
            entry["exists"] = True
        return "folder"
    return "click"


def _literal(value) -> str:
    """`value` (texts, numbers, booleans, lists and dicts of them) as Python source, formatted as ruff formats it."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(_literal, value)) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


# page -> {part name -> what writes it}
PARTS: dict[str, dict[str, Callable[[], str]]] = {
    "store.md": {"rules": rules_table},
    "cli.md": {"cli-reference": cli_reference},
}


def fill(text: str, name: str, content: str) -> str:
    """`text` with the part `name` between its marker lines replaced by `content`."""
    pattern = re.compile(
        rf"(<!-- generated: {re.escape(name)} -->\n).*?(<!-- end generated: {re.escape(name)} -->)", re.DOTALL
    )
    if not pattern.search(text):
        raise ValueError(f"no '<!-- generated: {name} -->' ... '<!-- end generated: {name} -->' markers")
    return pattern.sub(lambda m: f"{m.group(1)}{content}\n{m.group(2)}", text, count=1)


def generated(page: str) -> str:
    """What docs/`page` should hold: its text with every generated part written afresh."""
    text = (DOCS / page).read_text()
    for name, write in PARTS[page].items():
        text = fill(text, name, write())
    return text


def main() -> int:
    if DECLARED.read_text() != declared():
        DECLARED.write_text(declared())
        print(f"wrote {DECLARED.relative_to(DOCS.parent)}")
    for page in PARTS:
        text = generated(page)
        if (DOCS / page).read_text() != text:
            (DOCS / page).write_text(text)
            print(f"wrote docs/{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
