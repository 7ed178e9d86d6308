"""Write the generated parts of the docs: the rules table (from indexer.store.problems.RULES) and the CLI reference.

Run `python -m docs.generate` (or `make docs`) from the repository root after adding a problem code or a
command, or changing a command's options; tests/test_docs.py fails while the committed pages differ.
Each part sits between a `<!-- generated: NAME -->` line and a `<!-- end generated: NAME -->` line; the
rest of the page is written by hand and left as it is.
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
    """The `--help` of `seamless` and of each of its commands, in the order `seamless --help` lists them."""
    with click.Context(cli) as ctx:
        names = cli.list_commands(ctx)
    parts = [f"### seamless\n\n```\n{_help([])}\n```"]
    parts += [f"### seamless {name}\n\n```\n{_help([name])}\n```" for name in names]
    return "\n\n".join(parts)


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
