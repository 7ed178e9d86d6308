"""Write the generated parts of the docs: the rules table (from indexer.store.problems.RULES) and the CLI reference.

Run `python -m docs.generate` (or `make docs`) from the repository root after adding a problem code or a
command, or changing a command's options; tests/test_docs.py fails while the committed pages differ. Each part sits
between a `<!-- generated: NAME -->` line and a `<!-- end generated: NAME -->` line; the rest of the page is written
by hand and left as it is.
"""

import re
import sys
from collections.abc import Callable
from pathlib import Path

import click
from click.testing import CliRunner

from indexer.front.cli import cli
from indexer.store.problems import RULES

DOCS = Path(__file__).resolve().parent
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
    for page in PARTS:
        text = generated(page)
        if (DOCS / page).read_text() != text:
            (DOCS / page).write_text(text)
            print(f"wrote docs/{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
