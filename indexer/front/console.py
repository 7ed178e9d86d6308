"""What the commands print, and their errors, the same whether click runs them or `indexer.front.main` does.

Without click: the commands agents run most are run without importing it (docs/development.md, "Start-up"), so
`echo` writes exactly what `click.echo` writes, and a `CommandError` is shown as click shows its errors
(`Error: ...` on standard error, exit 1; cli.py turns it into a `click.ClickException`).
"""

import codecs
import sys

from indexer.store import lazy_re

# click's pattern for the ANSI codes `click.echo` leaves out where the stream is no terminal (click/_compat.py)
ANSI = lazy_re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


class CommandError(Exception):
    """A command that cannot do what it was asked: `Error: MESSAGE` on standard error, exit 1."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """Print `message` (and a newline) as `click.echo` does: flushed at once, ANSI codes left out where the stream
    is no terminal."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no stream attached
        return
    if _ascii(stream):  # click writes through a stream of its own there: let it
        import click

        click.echo(message, err=err, nl=nl)
        return
    out = message + "\n" if nl else message
    if "\x1b" in out and not _isatty(stream):
        out = ANSI.sub("", out)
    if out:
        stream.write(out)
    stream.flush()


def show_error(error: CommandError) -> None:
    echo(f"Error: {error.message}", err=True)


def _ascii(stream) -> bool:
    """Whether click takes `stream` for misconfigured (its encoding ASCII, or none said)."""
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except Exception:  # as click: a stream that cannot say is no terminal
        return False


def echo_json(rows: list[dict], booleans: tuple[str, ...] = ()) -> None:
    """`rows` as one JSON array; the columns `booleans` as true and false."""
    import json

    for row in rows:
        for key in booleans:
            if key in row and row[key] is not None:
                row[key] = bool(row[key])
    echo(json.dumps(rows, indent=2, ensure_ascii=False))


def echo_line(line: str) -> None:
    """Print one line of store text (titles, names, descriptions, paths) with control characters escaped,
    as problem lines are: a store file cannot forge a line, nor send the terminal an escape sequence."""
    from indexer.store.printable import escaped

    echo(escaped(line))


def table(rows: list[dict], columns: list[str]) -> str:
    """Rows as aligned plain-text columns (None shown as '-')."""
    cells = [columns] + [["-" if r[c] is None else str(r[c]) for c in columns] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip() for line in cells)


def scope(project: str | None) -> str:
    return project or "global"
