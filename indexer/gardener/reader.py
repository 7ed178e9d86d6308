"""The gardener's reading of many memories on two cores: half in a child process, half here.

A settle of the whole store (a new index, new reading rules) reads every active memory's name and description
(gardener/wording.py: all Python, some 60 µs each, so 5 s at 100,000 memories) before it can pair them. `read_all`
hands half of the memories to a child process, reads the other half itself, and takes the child's readings as
bytes (wording.dump), decoded when needed. Reading them while the files were parsed was tried and measured
slower: the parse, the FTS thread and the child then share two cores (docs/performance.md). What the child did
not read (it could not start, it failed) is read here: the result is the same either way.

The child is `python -m indexer.gardener.reader`, speaking frames on its standard input and output: a
4-byte length, then a marshal of a list, [(key, name, description), ...] in, [(key, signature, reading), ...] out
(a key is the memory's id).
Not a multiprocessing pool: forking copies a process that holds the FTS thread and an open transaction, and
spawning imports the caller's `__main__` again in the child (a script that indexes with no main guard would index
again; one read from standard input cannot be imported and breaks the pool with a traceback).
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

from indexer.gardener import wording

START_AT = 2_000  # memories to read before a child is worth starting (it costs about 0.1 s of the other core)
BATCH = 500  # memories handed over at once
HEADER = struct.Struct("<I")
Read = dict[str, tuple[str, bytes]]  # key -> the reading's signature, the reading (wording.dump)
Text = tuple[str, str, str]  # key (the memory's id), name, description


def read_all(texts: list[Text]) -> Read:
    """Readings of `texts` (as stored: wording.dump) when there are START_AT or more, half of them made by a child
    process meanwhile (all here when it fails); none when fewer: the caller reads them as it goes."""
    if len(texts) < START_AT:
        return {}
    half = len(texts) // 2
    with Reader() as reader:
        reader.hand(texts[:half])
        here = {key: _stored(name, description) for key, name, description in texts[half:]}
        read = reader.readings()
    here.update((key, _stored(name, description)) for key, name, description in texts[:half] if key not in read)
    return {**read, **here}


def _stored(name: str, description: str) -> tuple[str, bytes]:
    reading = wording.read(name, description)
    return reading.signature, wording.dump(reading)


class Reader:
    """A child process reading what it is handed (`hand`); `readings()` waits for it and gives what it read."""

    def __init__(self):
        self.read: Read = {}
        self.child: subprocess.Popen | None = None
        self.batches: queue.Queue[bytes | None] = queue.Queue()
        self.threads: list[threading.Thread] = []

    def hand(self, texts: list[Text]) -> None:
        """Have the child read `texts` (started on the first call; if it cannot start, nothing is read)."""
        if self.child is None and not self._start():
            return
        for start in range(0, len(texts), BATCH):
            self.batches.put(marshal.dumps(texts[start : start + BATCH]))

    def readings(self) -> Read:
        """Wait for the child to read what it was handed, and give every reading it made."""
        self._finish()
        return self.read

    def close(self) -> None:
        """Stop the child, if it still runs."""
        if self.child is not None and self.child.poll() is None:
            self.child.kill()
        self._finish()

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> bool:
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
            return False
        # the pipes are written and read on threads of their own: the main thread never waits on the child
        self.threads = [
            threading.Thread(target=self._feed, name="seamless-gardener-feed", daemon=True),
            threading.Thread(target=self._collect, name="seamless-gardener-collect", daemon=True),
        ]
        for thread in self.threads:
            thread.start()
        return True

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
        except OSError:  # the child is gone: what it did not read is read here
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
        out = [(key, *_stored(name, description)) for key, name, description in batch]
        data = marshal.dumps(out)
        sink.write(HEADER.pack(len(data)) + data)
        sink.flush()


if __name__ == "__main__":
    import gc

    gc.disable()  # readings hold no cycles (as in the index run)
    serve(sys.stdin.buffer, sys.stdout.buffer)
