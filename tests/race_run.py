"""Run the real `seamless` command line with the store changed between the walk and the reads.

    python tests/race_run.py ACTION PATH [TARGET] -- index STORE --db DB

Right after the indexer's own walk has listed the files (and before any is read), ACTION is
applied to STORE/PATH, as another process changing the store at that moment would:

    vanish     delete the file
    modify     rewrite it with TARGET as its new text
    grow       make it larger than index.max_file_bytes
    symlink    replace it by a symlink to TARGET
    fifo       replace it by a named pipe
    directory  replace it by a folder
    folder-symlink  replace the folder holding it by a symlink to the folder TARGET
"""

import os
import sys
from pathlib import Path

import indexer.index.plan
from indexer.front.cli import cli


def change(path: Path, action: str, target: str | None) -> None:
    if action == "vanish":
        path.unlink()
    elif action == "modify":
        path.write_text(target, "utf-8")
    elif action == "grow":
        path.write_bytes(b"x" * 5_000_000)
    elif action == "folder-symlink":
        path.parent.rename(path.parent.with_name(path.parent.name + "-moved"))
        path.parent.symlink_to(target)
    else:
        path.unlink()
        if action == "symlink":
            path.symlink_to(target)
        elif action == "fifo":
            os.mkfifo(path)
        elif action == "directory":
            path.mkdir()


def main(argv: list[str]) -> None:
    split = argv.index("--")
    action, rel, *rest = argv[:split]
    args = argv[split + 1 :]
    store = Path(args[1])
    walk = indexer.index.plan.walk_folders

    def walk_then_change(root):
        files = walk(root)
        change(store / rel, action, rest[0] if rest else None)
        return files

    indexer.index.plan.walk_folders = walk_then_change
    cli(args, prog_name="seamless")


if __name__ == "__main__":
    main(sys.argv[1:])
