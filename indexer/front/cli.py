"""The `seamless` command line (click). Each command lives in a module of the front end, imported only when the
command runs (click's "Complex Applications": lazily loading subcommands), so a command pays for its own imports and
no other's. `seamless --help` lists the commands with their summaries from COMMANDS, importing none of them. A new
command is a click command in its module and one line in COMMANDS. `main` is the console script and
`python -m indexer`."""

import atexit
import gc
import importlib

import click

# Each command's name: the click command that runs it (module.attribute), and its summary in `seamless --help`
COMMANDS = {
    "index": ("indexer.front.index_commands.index", "Build or update the index of a store."),
    "check": ("indexer.front.index_commands.check", "Validate a store without writing; exit 1 on any error."),
    "status": ("indexer.front.status_command.status", "Compare a store with its index; exit 1 if they differ."),
    "problems": ("indexer.front.problem_list.problems", "List every problem the index holds."),
    "briefing": ("indexer.front.read_commands.briefing", "What an agent on a project is told before it starts."),
    "recall": ("indexer.front.read_commands.recall", "Ask in plain words: the memories and notes that answer."),
    "history": ("indexer.front.read_commands.history", "A memory's supersession chain and its current truth."),
    "show": ("indexer.front.read_commands.show", "Print a memory's or a note's file, now or as it stood."),
    "gardener": ("indexer.front.gardener_commands.gardener", "Proposals to tidy the store, never acted on."),
    "needs-human": ("indexer.front.needs_human.needs_human", "What needs a human, whole (the explorer's home page)."),
    # the write path (docs/writing.md)
    "write": ("indexer.front.write_commands.write", "Write a memory: new, updated, or replacing another."),
    "append": ("indexer.front.write_commands.append", "Add text to the end of an active memory's body."),
    "archive": ("indexer.front.write_commands.archive", "Archive an active memory: invalid from now, no successor."),
    "delete": ("indexer.front.write_commands.delete", "Delete a memory's file: for what was never true."),
    "note": ("indexer.front.write_commands.note", "Write a note (research, a meeting summary, a design record)."),
    # the commands that run until stopped
    "serve": ("indexer.front.server_commands.serve", "Serve the explorer (Datasette, read-only) on an index."),
    "watch": ("indexer.front.server_commands.watch", "Index a store, then keep the index in step until stopped."),
    "mcp": ("indexer.front.server_commands.mcp", "Serve a store to agents as an MCP server over stdio."),
    # a fleet (docs/sync.md)
    "sync": ("indexer.front.fleet.sync", "Share a store with a fleet's other hosts through git."),
    "git-setup": ("indexer.front.fleet.git_setup", "Register the store's merge driver in this clone."),
    "merge-driver": ("indexer.front.merge_driver.merge_driver", "Merge a file changed on two sides (git runs it)."),
    # agents' harnesses (docs/agents.md)
    "hook": ("indexer.front.hook.hook", "Hooks for agents' harnesses: session-start."),
    "init": ("indexer.front.init.init", "Wire a project folder to a store for its agents."),
    "export": ("indexer.front.export.export", "Keep a project's briefing in a block of AGENTS.md or the like."),
    "import": ("indexer.front.imports.import_group", "Bring other tools' memories into a store."),
}


class LazyGroup(click.Group):
    """A click group whose commands are imported when asked for (`lazy_subcommands`: name -> (module.attribute,
    summary)). The summary is the command's `short_help`: listing the commands imports none of them."""

    def __init__(self, *args, lazy_subcommands: dict[str, tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = lazy_subcommands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.lazy_subcommands)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy_subcommands:
            return super().get_command(ctx, cmd_name)
        target, summary = self.lazy_subcommands[cmd_name]
        module, _, name = target.rpartition(".")
        command = getattr(importlib.import_module(module), name)
        command.short_help = summary
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.lazy_subcommands[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


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
