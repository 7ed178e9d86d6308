"""`seamless status`: what differs between the store and its index, found without writing, as an incremental run's
plan finds it; a file whose stat changed but not its content (a `touch`) is in step."""

from dataclasses import dataclass
from pathlib import Path

from indexer.index import dismissed, plan
from indexer.store.walk import FolderFds, walk_folders


@dataclass(slots=True)
class Drift:
    """The files the index does not show as they are: store-relative paths, sorted."""

    new: list[str]
    changed: list[str]
    deleted: list[str]
    settings_changed: bool
    dismissals_changed: bool = False  # gardener/dismissed.jsonl, since the index read it

    @property
    def in_step(self) -> bool:
        return not (self.new or self.changed or self.deleted or self.settings_changed or self.dismissals_changed)


def drift(root: Path, conn) -> Drift:
    """Compare the store at `root` with the index open (read-only) on `conn`."""
    walked = walk_folders(root)
    folders = plan.changed_folders(conn, plan.fingerprints(walked))
    known = {row[0]: row for row in plan.known_files(conn, folders)}
    files = plan.store_files(walked, plan.covered(folders, walked))
    settings, _, settings_changed, _ = plan.read_settings(conn, root)
    stat_differs = sorted(p for p in files.keys() & known.keys() if files[p].row[1:] != known[p][1:5])
    digests = plan.known_digests(conn, stat_differs)
    max_bytes = settings["index.max_file_bytes"]
    with FolderFds(str(root)) as opened:
        changed = [p for p in stat_differs if _content_digest(opened, p, max_bytes) != digests.get(p)]
    new, deleted = sorted(files.keys() - known.keys()), sorted(known.keys() - files.keys())
    return Drift(new, changed, deleted, settings_changed, dismissed.changed(conn, root))


def _content_digest(folders: FolderFds, path: str, max_bytes: int) -> str | None:
    """The hash the indexer would store for the file's content now (None if it is gone); no symlink followed."""
    from indexer.store.parse import digest  # here: the parser's YAML, for a file whose size or times changed

    try:
        return digest(folders.read(path, max_bytes + 1))
    except FileNotFoundError:
        return None
    except OSError:
        return ""  # what the index holds for a file it could not read (parse.read_store_file)
