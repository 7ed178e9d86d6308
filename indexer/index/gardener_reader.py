"""The gardener's reading of a big store in a second process, while a full index run parses the files.

A full run reads every active memory's name and description (store/wording.py: all Python, about 50 µs each, so
4 s at 100,000 memories) before the settle step can pair them. The run's main thread parses files meanwhile, and
the second core works only in bursts (the FTS thread): a child process reads the descriptions the run hands it as
it parses them, and the settle step takes its readings as it takes those an earlier run stored
(gardener_pairs.Readings). Only what the index holds no reading of is handed over, and a child is started only
once START_AT of those wait: a full run over an unchanged store, or a small one, starts none. What the child did
not read (it could not start, it failed) the settle step reads itself: the findings are the same either way.

The child is `python -m indexer.index.gardener_reader`, speaking frames on its standard input and output: a
4-byte length, then a marshal of a list, [(key, name, description), ...] in, [(key, signature, reading), ...] out.
"""

import marshal
import os
import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from indexer.store import wording

START_AT = 2_000  # unread memories before a child is worth starting (its start costs about 0.1 s of the other core)
BATCH = 500  # memories handed over at once
HEADER = struct.Struct("<I")
Read = dict[bytes, tuple[str, bytes]]  # key -> the reading's signature, the reading (wording.dump)


class Reader:
    """Hands the memories an index run parses to a child process to read (`offer`); `readings()` gives what it read.

    `known`: the keys (wording.key) of the readings the index holds already, which are not read again."""

    def __init__(self, known: set[bytes]):
        self.known = known
        self.pending: list[tuple[bytes, str, str]] = []
        self.read: Read = {}
        self.child: subprocess.Popen | None = None
        self.failed = False
        self.batches: queue.Queue[bytes | None] = queue.Queue()
        self.threads: list[threading.Thread] = []

    def offer(self, name: str, description: str) -> None:
        """A memory the run found active: to be read unless its reading is known."""
        key = wording.key(name, description)
        if key in self.known:
            return
        self.known.add(key)
        self.pending.append((key, name or "", description or ""))
        if self.child is None and not self.failed and len(self.pending) >= START_AT:
            self._start()
        if self.child is not None and len(self.pending) >= BATCH:
            self._hand_over()

    def readings(self) -> Read:
        """Wait for the child to read what it was handed, and give every reading it made."""
        if self.child is not None:
            self._hand_over()
            self._finish()
        return self.read

    def close(self) -> None:
        """Stop the child, if it still runs (the run failed, or is done with it)."""
        if self.child is not None and self.child.poll() is None:
            self.child.kill()
        self._finish()

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        package_root = str(Path(__file__).resolve().parents[2])  # where `indexer` is, however this process found it
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        try:
            self.child = subprocess.Popen(
                [sys.executable or "python3", "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        except OSError:
            self.failed = True
            return
        # pipes are written and read on threads of their own: the main thread never waits on the child
        self.threads = [
            threading.Thread(target=self._feed, name="seamless-gardener-feed", daemon=True),
            threading.Thread(target=self._collect, name="seamless-gardener-collect", daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _hand_over(self) -> None:
        if self.pending:
            self.batches.put(marshal.dumps(self.pending))
            self.pending = []

    def _finish(self) -> None:
        if self.threads:
            self.batches.put(None)
            for thread in self.threads:
                thread.join()
            self.threads = []
        if self.child is not None:
            self.child.wait()

    def _feed(self) -> None:
        assert self.child is not None and self.child.stdin is not None
        pipe = self.child.stdin
        try:
            while (data := self.batches.get()) is not None:
                pipe.write(HEADER.pack(len(data)) + data)
                pipe.flush()
        except OSError:  # the child is gone: what it did not read is read by the settle step
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    def _collect(self) -> None:
        assert self.child is not None and self.child.stdout is not None
        try:
            for batch in _frames(self.child.stdout):
                self.read.update((key, (signature, reading)) for key, signature, reading in batch)
        except (OSError, ValueError, EOFError, TypeError):  # a child that failed: what it sent before counts
            pass


def read_all(texts: list[tuple[bytes, str, str]]) -> tuple[Read, dict[bytes, wording.Wording]]:
    """Readings of `texts` ((key, name, description) each): when there are START_AT or more (a settle that finds
    most of the store unread: new rules, an older index), half of them made by a child process meanwhile (as
    stored readings), the others here (as readings)."""
    if len(texts) < START_AT:
        return {}, {wording_key: wording.read(name, description) for wording_key, name, description in texts}
    half = len(texts) // 2
    with Reader(set()) as reader:
        for _key, name, description in texts[:half]:
            reader.offer(name, description)
        reader._hand_over()
        here = {wording_key: wording.read(name, description) for wording_key, name, description in texts[half:]}
        return reader.readings(), here


def _frames(pipe: IO[bytes]):
    """Each frame's list, until the end of `pipe`."""
    while header := pipe.read(HEADER.size):
        if len(header) < HEADER.size:
            return
        (size,) = HEADER.unpack(header)
        data = pipe.read(size)
        if len(data) < size:
            return
        yield marshal.loads(data)


def serve(source: IO[bytes], sink: IO[bytes]) -> None:
    """The child: read each batch of memories from `source`, write their readings to `sink`."""
    for batch in _frames(source):
        out = []
        for key, name, description in batch:
            reading = wording.read(name, description)
            out.append((key, reading.signature, wording.dump(reading)))
        data = marshal.dumps(out)
        sink.write(HEADER.pack(len(data)) + data)
        sink.flush()


if __name__ == "__main__":
    import gc

    gc.disable()  # readings hold no cycles (as in the index run)
    try:
        os.nice(10)  # the run's own threads first: this one takes what the second core has left
    except OSError:
        pass
    serve(sys.stdin.buffer, sys.stdout.buffer)
