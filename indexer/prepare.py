"""One file's share of an index run: read, parse and validate it. Runs in worker processes."""

import ctypes
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

from .parse import read_store_file
from .problems import Problem, error
from .validate import memory_record, note_record
from .walk import StoreFile

PARALLEL_THRESHOLD = 2000  # below this, starting worker processes costs more than it saves
CHUNK = 256


@dataclass
class Prepared:
    """A file ready to be written: its record (None on error) and problems, or `unchanged`."""

    file: StoreFile
    digest: str
    unchanged: bool = False
    record: dict | None = None
    problems: list[Problem] = field(default_factory=list)


def prepare(root: str, sf: StoreFile, known_digest: str | None, max_bytes: int) -> Prepared | None:
    """Read, parse and validate one file; None if it vanished since the walk.

    A file whose content hash equals `known_digest` is only marked unchanged.
    """
    if sf.name_not_utf8:
        return Prepared(sf, "", problems=[error(sf.path, 1, "not-utf8", "the file name is not UTF-8; rename the file")])
    try:
        parsed = read_store_file(root, sf.path, max_bytes)
    except FileNotFoundError:
        return None
    if parsed.digest == known_digest:
        return Prepared(sf, parsed.digest, unchanged=True)
    record, problems = (memory_record if sf.type == "memory" else note_record)(parsed)
    return Prepared(sf, parsed.digest, record=record, problems=problems)


def _prepare_job(job: tuple) -> Prepared | None:
    return prepare(*job)


def _die_with_parent() -> None:
    """In a freshly forked worker: be killed with the parent, so a killed run leaves no process behind.

    Runs right after fork, before the worker can block on anything it inherited.
    """
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != _parent:  # the parent died before prctl took effect
        os._exit(0)


_parent = 0
_registered = False


def prepare_all(root: str, jobs: list[tuple[StoreFile, str | None]], max_bytes: int):
    """Yield `prepare` for each (file, known digest), in order, on every core for large batches."""
    args = [(root, sf, digest, max_bytes) for sf, digest in jobs]
    workers = min(os.cpu_count() or 1, 8)
    if len(args) < PARALLEL_THRESHOLD or workers < 2:
        yield from map(_prepare_job, args)
        return
    global _parent, _registered
    _parent = os.getpid()
    if not _registered:
        os.register_at_fork(after_in_child=_die_with_parent)
        _registered = True
    with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
        yield from pool.map(_prepare_job, args, chunksize=CHUNK)
