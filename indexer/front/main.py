"""The `seamless` command's entry point (the console script, and `python -m indexer`).

The commands agents run many times a session (index, check, status, recall, briefing, history, show, the
session-start hook and the writes: write, append, archive, delete, note) run here without importing click, whose import alone costs about what starting Python does
(docs/performance.md, "Start-up"). Their options are the ones their click commands declare, written out by
`python -m docs.generate` in `declared.py`. A command line is read here only when it is understood whole, as click
would read it; anything else (`--help`, an unknown, repeated or malformed option, a missing one, a value click
would refuse) goes to click, which then answers it, its errors and help text included. Either way the command's
body is the same function (BODIES), and its errors read the same (`console.CommandError`).
"""

import atexit
import errno
import gc
import os
import stat
import sys
from pathlib import Path

# Each command run without click, and its body ("module:function"), which its click command calls too
BODIES = {
    "index": "indexer.front.index_commands:index",
    "check": "indexer.front.index_commands:check",
    "status": "indexer.front.index_commands:status",
    "recall": "indexer.front.read_commands:recall",
    "briefing": "indexer.front.read_commands:briefing",
    "history": "indexer.front.read_commands:history",
    "show": "indexer.front.read_commands:show",
    "hook session-start": "indexer.front.session_start:session_start",
    "write": "indexer.front.write_commands:write",
    "append": "indexer.front.write_commands:append",
    "archive": "indexer.front.write_commands:archive",
    "delete": "indexer.front.write_commands:delete",
    "note": "indexer.front.write_commands:note",
}
# the bodies also told which options took their default (neither the command line nor the environment gave them)
TOLD_DEFAULTED = {"hook session-start"}


def main() -> None:
    # Once the command is done, the process ends: Python's collections at shutdown would walk every object it holds
    # (every module's functions and classes, a run's caches) to free what refcounting frees anyway, 5-9% of a small
    # store's rebuild in CPU (docs/performance.md, "Small stores"). Frozen at exit, they are out of the collector's
    # way; what refcounting frees, and every other exit handler, still run.
    atexit.register(gc.freeze)
    code = run(sys.argv[1:])
    if code is None:
        from indexer.front.cli import cli

        cli()
    sys.exit(code)


def run(argv: list[str]) -> int | None:
    """Run the command line `argv` (without the program's name) without click: its exit code, or None when it is
    click's to read."""
    parsed = parse(argv)
    if parsed is None:
        return None
    command, values, defaulted = parsed
    from indexer.front.console import CommandError, echo, show_error

    try:
        run_body(command, values, defaulted)
    except CommandError as e:  # as click shows a ClickException
        show_error(e)
        return e.exit_code
    except (EOFError, KeyboardInterrupt):  # as click: a blank line after the terminal's ^C, then a word
        echo(err=True)
        echo("Aborted!", err=True)
        return 1
    except OSError as e:
        if e.errno != errno.EPIPE:
            raise
        # as click: a reader that went away (`| head`) ends the command quietly, exit 1
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def run_body(command: str, values: dict, defaulted=frozenset()) -> None:
    """Call `command`'s body with the values of its options (as click passes them to its command)."""
    import importlib

    module, _, name = BODIES[command].partition(":")
    body = getattr(importlib.import_module(module), name)
    if command in TOLD_DEFAULTED:
        values = {**values, "defaulted": frozenset(defaulted)}
    body(**values)


class _Click(Exception):
    """A command line, or a value, that click must read."""


def parse(argv: list[str], environ=os.environ) -> tuple[str, dict, set[str]] | None:
    """The command `argv` names, the values of its options as click would pass them, and the options that took
    their default; None when any part of it is not understood here."""
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in environ):
        return None  # click's shell completion
    command = " ".join(argv[:2]) if argv[:1] == ["hook"] else " ".join(argv[:1])
    from indexer.front.declared import COMMANDS

    declared = COMMANDS.get(command)
    if declared is None:
        return None
    try:
        given, positional = _split(declared, argv[len(command.split()) :])
        return command, *_values(declared, given, positional, environ)
    except _Click:
        return None


def _split(declared: list[dict], args: list[str]) -> tuple[dict[str, list[str | bool]], list[str]]:
    """The options given (each's values by name) and the arguments, read as click reads them."""
    by_flag = {flag: param for param in declared for flag in param.get("flags", ())}
    given: dict[str, list[str | bool]] = {}
    positional: list[str] = []
    rest = iter(args)
    for token in rest:
        if token == "--":
            positional += rest
            break
        if token[:1] != "-" or token == "-":
            positional.append(token)
            continue
        flag, equals, value = token.partition("=")
        param = by_flag.get(flag)
        if param is None or (param["name"] in given and not param.get("multiple")):
            raise _Click  # not an option of this command (--help among them), or one given twice
        if param["type"] == "flag":
            if equals:
                raise _Click
            given.setdefault(param["name"], []).append(True)
            continue
        if not equals:
            following = next(rest, None)
            # a value that looks like an option: click would take it as the value; a person rarely meant that
            if following is None or (following[:1] == "-" and following != "-"):
                raise _Click
            value = following
        given.setdefault(param["name"], []).append(value)
    return given, positional


def _values(declared: list[dict], given: dict, positional: list[str], environ) -> tuple[dict, set[str]]:
    arguments = [param for param in declared if "flags" not in param]
    if len(positional) > len(arguments):
        raise _Click
    for param, value in zip(arguments, positional):
        given[param["name"]] = [value]
    values, defaulted = {}, set()
    for param in declared:
        name, multiple = param["name"], param.get("multiple", False)
        texts = given.get(name)
        if texts is None and environ.get(param.get("envvar") or "", ""):
            if multiple or param["type"] == "flag":
                raise _Click  # click splits or reads the value its own way
            texts = [environ[param["envvar"]]]
        if texts is None:
            if param.get("required"):
                raise _Click
            default = param.get("default", False if param["type"] == "flag" else None)
            if default is not None and param["type"] not in ("text", "int", "flag"):
                raise _Click  # a default click would convert
            values[name] = tuple(default or ()) if multiple else default
            defaulted.add(name)
            continue
        converted = [_value(param, text) for text in texts]
        values[name] = tuple(converted) if multiple else converted[-1]
    return values, defaulted


def _value(param: dict, text):
    """One value as click's type for it converts it (only where it certainly would), else _Click."""
    kind = param["type"]
    if kind in ("text", "flag"):
        return text
    if kind == "int":
        if not (text.isascii() and text.isdigit()):
            raise _Click
        number = int(text)
        if number < param.get("min", number) or number > param.get("max", number):
            raise _Click
        return number
    if kind == "folder":  # click.Path(file_okay=False): a folder that can be read, or nothing yet unless `exists`
        try:
            found = os.stat(text)
        except OSError:
            if param.get("exists") or not text:
                raise _Click from None
            return Path(text)
        if not stat.S_ISDIR(found.st_mode) or not os.access(text, os.R_OK):
            raise _Click
        return Path(text)
    if kind == "time":  # the --as-of callback, indexer.front.options.as_of
        from indexer.store.timestamps import normalize

        try:
            return normalize(text)
        except ValueError:
            raise _Click from None
    raise _Click  # a type only click reads
