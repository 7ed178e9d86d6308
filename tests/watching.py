"""A real `seamless watch` process for the tests, and waiting on conditions with deadlines (never fixed sleeps)."""

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from stores import seamless_command

from indexer.index import freshness
from indexer.sqlite import sqlite3


def wait_until(condition, timeout: float = 15.0, interval: float = 0.02, what: str = ""):
    """Call `condition()` until it returns something true (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout} s: {what or condition}")
        time.sleep(interval)


def read_freshness(db_path) -> dict:
    with sqlite3.connect(db_path) as conn:
        return freshness.read(conn)


class Watching:
    """`seamless watch STORE --db DB` in a child process, its stderr in a file; started by `with`."""

    def __init__(self, root: Path, db_path: Path, *args, command: list | None = None):
        self.command = command or seamless_command("watch", root, "--db", db_path, *args)
        self.db_path = db_path

    def __enter__(self) -> "Watching":
        # O_APPEND: the watcher shares this file's offset; reading it (seek 0) must not make its next line overwrite the first
        self.log = tempfile.TemporaryFile(mode="a+")
        self.process = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT, text=True)
        self.wait_for("watching ", timeout=30)
        return self

    def __exit__(self, *exc) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def wait_for(self, text: str, timeout: float = 15.0, after: int = 0) -> str:
        """Wait until `text` appears in the output (after its first `after` characters); the output."""

        def said():
            if self.process.poll() is not None and text not in self.output()[after:]:
                raise AssertionError(f"the watcher exited ({self.process.returncode}):\n{self.output()}")
            return text in self.output()[after:]

        wait_until(said, timeout, what=f"{text!r} in the watcher's output:\n{self.output()}")
        return self.output()

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int:
        """Send `signum`; the exit status, once it has exited (it must, within `timeout`)."""
        os.kill(self.process.pid, signum)
        return self.process.wait(timeout)

    def batches(self) -> int:
        with sqlite3.connect(self.db_path) as conn:
            row = conn.execute("select batches from index_watch where pid = ?", (self.process.pid,)).fetchone()
        return row[0] if row else 0
