"""One file's share of an index run: read, parse and validate it.

Runs in the indexing process itself: pickling every record back from worker processes costs more
than the parsing they take over (docs/performance.md).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from indexer.store.parse import ParsedFile, parse_bytes, read_store_bytes
from indexer.store.problem_cap import capped
from indexer.store.problems import Problem, error
from indexer.store.validate import memory_record, note_record
from indexer.store.walk import FolderFds, StoreFile, digest


@dataclass(slots=True)
class Prepared:
    """A file ready to be written: its record (None on error) and problems, or `unchanged`."""

    file: StoreFile
    digest: str
    unchanged: bool = False
    record: dict | None = None
    problems: Sequence[Problem] = ()


def prepare(
    root: str, sf: StoreFile, known_digest: str | None, max_bytes: int, folders: FolderFds | None = None
) -> Prepared | None:
    """Read, parse and validate one file; None if it vanished since the walk.

    A file whose content hash equals `known_digest` is only marked unchanged: its bytes are hashed, never
    parsed, however many problems they hold (the index has their verdict already).
    """
    if sf.name_not_utf8:
        return Prepared(sf, "", problems=[error(sf.path, 1, "not-utf8", "the file name is not UTF-8; rename the file")])
    try:
        data = read_store_bytes(root, sf.path, max_bytes, folders)
    except FileNotFoundError:
        return None
    if isinstance(data, ParsedFile):  # it could not be read: its one problem says why
        parsed = data
    elif known_digest is not None and digest(data) == known_digest:
        return Prepared(sf, known_digest, unchanged=True)
    else:
        parsed = parse_bytes(sf.path, data, max_bytes)
    if parsed.digest == known_digest:  # still unreadable, as the index holds it
        return Prepared(sf, parsed.digest, unchanged=True)
    record, problems = (memory_record if sf.type == "memory" else note_record)(parsed)
    return Prepared(sf, parsed.digest, record=record, problems=capped(problems))
