"""Reading the files a run's plan names: each one read, parsed and validated, and handed to the writer, in the
indexing process itself (pickling the records back from worker processes cost more than the parsing they took over).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from indexer.index.database import IndexConnection
from indexer.index.plan import Plan, folders_as_before, folders_changed
from indexer.store.parse import ParsedFile, digest, parse_bytes, read_store_bytes
from indexer.store.problem_cap import capped
from indexer.store.problems import Problem, error
from indexer.store.validate import memory_record, note_record
from indexer.store.walk import FolderFds, StoreFile


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
    """Read, parse and validate one file; None if it vanished since the walk. A file whose content hash equals
    `known_digest` is only marked unchanged, never parsed (the index has its verdict already)."""
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


class Reading:
    """Reads the files a plan names into the writer, noting what it found along the way."""

    def __init__(self, root: str, plan: Plan, writer, folders: FolderFds | None = None):
        self.root, self.plan, self.writer = root, plan, writer
        self.folders = folders  # the store's folders, opened without following a symlink
        self.unchanged: list[StoreFile] = []  # read, same content: only their stat is updated
        self.vanished: list[StoreFile] = []  # gone between the plan and the read
        self.deleted: list[str] = list(plan.deleted)  # the plan's deletions and the vanished files

    def read(self, sf: StoreFile, digest: str | None) -> None:
        prepared = prepare(self.root, sf, digest, self.plan.max_bytes, self.folders)
        if prepared is None:  # vanished between the walk and the read
            self.vanished.append(sf)
            self.deleted.append(sf.path)
            self.writer.forget(sf.path)
        elif prepared.unchanged:
            self.unchanged.append(sf)
        else:
            self.writer.add(prepared)

    def read_stale(self, progress) -> None:
        """Read every file the plan found changed (the conflict losers come after)."""
        files = [sf for sf in self.plan.stale if sf.path not in self.plan.losers]
        for sf in progress(files) if progress else files:
            self.read(sf, self.plan.digests.get(sf.path))

    def read_losers(self) -> None:
        """A file that lost a duplicate contest may win it now: read again whatever its hash if anything changed
        (the stale losers first, by their hashes: one edited itself changes the contests as much as any other)."""
        plan = self.plan
        gone = {sf.path for sf in self.vanished}
        losers = [plan.files[path] for path in sorted(plan.losers) if path in plan.files and path not in gone]
        stale_paths = {sf.path for sf in plan.stale}
        for sf in losers:
            if sf.path in stale_paths:
                self.read(sf, plan.digests.get(sf.path))
        if self.writer.changed or self.deleted:
            for sf in losers:
                if sf.path not in stale_paths or sf in self.unchanged:
                    if sf in self.unchanged:
                        self.unchanged.remove(sf)
                    self.read(sf, None)

    def changed(self, db: IndexConnection) -> bool:
        """Whether the index's content changes: files, settings, or the folders that could not be listed."""
        plan = self.plan
        if plan.full or self.writer.changed or self.deleted or plan.settings_changed:
            return True
        return folders_changed(db, plan)

    def as_before(self, db: IndexConnection) -> set[str]:
        """The paths read whose problems stay as the index holds them: the files found unchanged, and the
        folders that could not be listed if they are the same as last time (before they are written)."""
        return {sf.path for sf in self.unchanged} | folders_as_before(db, self.plan)
