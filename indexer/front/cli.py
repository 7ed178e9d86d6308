"""The `seamless` command line (click). Each command lives in a module of the front end, imported only when the
command runs (click's "Complex Applications": lazily loading subcommands), so a command pays for its own imports and
no other's; `seamless --help` imports them all, to list them. A new command is a click command in its module and one
line in COMMANDS. `main` is the console script and `python -m indexer`."""

import atexit
import gc
import importlib

import click

# Each command's name, and the click command that runs it (module.attribute)
COMMANDS = {
    "index": "indexer.front.index_commands.index",
    "check": "indexer.front.index_commands.check",
    "status": "indexer.front.index_commands.status",
    "problems": "indexer.front.problem_list.problems",
    "briefing": "indexer.front.read_commands.briefing",
    "recall": "indexer.front.read_commands.recall",
    "history": "indexer.front.read_commands.history",
    "show": "indexer.front.read_commands.show",
    "gardener": "indexer.front.gardener_commands.gardener",
    "needs-human": "indexer.front.needs_human.needs_human",  # what needs a human, whole (the explorer's home page)
    "write": "indexer.front.write_commands.write",  # the write path (docs/writing.md)
    "append": "indexer.front.write_commands.append",
    "archive": "indexer.front.write_commands.archive",
    "delete": "indexer.front.write_commands.delete",
    "note": "indexer.front.write_commands.note",
    "serve": "indexer.front.server_commands.serve",  # the commands that run until stopped
    "watch": "indexer.front.server_commands.watch",
    "mcp": "indexer.front.server_commands.mcp",
    "sync": "indexer.front.fleet.sync",  # a fleet (docs/sync.md)
    "git-setup": "indexer.front.fleet.git_setup",
    "merge-driver": "indexer.front.merge_driver.merge_driver",
    "hook": "indexer.front.hook.hook",  # agents' harnesses (docs/agents.md)
    "init": "indexer.front.init.init",
    "export": "indexer.front.export.export",
    "import": "indexer.front.imports.import_group",
}


class LazyGroup(click.Group):
    """A click group whose commands are imported when asked for (`lazy_subcommands`: name -> module.attribute)."""

    def __init__(self, *args, lazy_subcommands: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = lazy_subcommands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy_subcommands:
            return super().get_command(ctx, cmd_name)
        module, _, name = self.lazy_subcommands[cmd_name].rpartition(".")
        return getattr(importlib.import_module(module), name)


@click.group(cls=LazyGroup, lazy_subcommands=COMMANDS)
@click.version_option(package_name="seamless-explorer")
def cli():
    """Index and explore a Seamless memory store."""


def main() -> None:
    # The process ends once its command is done: the collections of Python's shutdown would walk every object it
    # holds (click's, the modules', a run's) to free what the process's end frees anyway. Frozen at exit, they are
    # left alone (every command 0.3-0.5x `python -c pass` faster: `python -m bench.startup`, docs/development.md).
    atexit.register(gc.freeze)
    cli()
