"""What changed since the last run, without loading every file's bookkeeping.

Each folder's files (path, size, mtime, ctime) are hashed into one fingerprint, kept in
`index_folders` by the run that saw them. A later run compares fingerprints and loads the
`index_files` rows of changed folders only: one edit in a store of 100,000 files reads the
rows of one folder. A folder holding a file too recent to trust (build.RACY_NS) is stored
without a fingerprint, so the next run looks at it again.
"""

from array import array
from collections.abc import Iterable
from hashlib import blake2b

from indexer.sqlite import sqlite3
from indexer.store.walk import Folder

LOAD_ALL_OVER = 100  # changed folders beyond which one scan of index_files beats range queries


def fingerprints(walked: dict[str, Folder]) -> dict[str, str]:
    """Each folder's fingerprint: a hash of its files' paths, sizes, mtimes and ctimes, in the order the walk found them.

    ctime too: a chmod, or two files swapped by renames (same sizes and mtimes), changes only that.

    A folder that lists the same files in another order only gets looked into again.
    """
    found = {}
    for name, folder in walked.items():
        digest = blake2b(digest_size=16)
        digest.update("\n".join(folder.paths).encode())  # paths are text: the walk shows names that are not UTF-8
        digest.update(array("q", folder.stats).tobytes())
        digest.update(folder.error.encode())  # a folder that becomes listable again, or stops being, has changed
        found[name] = digest.hexdigest()
    return found


def changed_folders(conn: sqlite3.Connection, current: dict[str, str]) -> set[str]:
    """Folders whose fingerprint differs from the stored one (new, gone, edited or untrusted)."""
    stored = dict(conn.execute("select folder, walk from index_folders"))
    return {f for f in current.keys() | stored.keys() if current.get(f) is None or current.get(f) != stored.get(f)}


def known_files(conn: sqlite3.Connection, folders: set[str]) -> set[tuple]:
    """The (path, type, size, mtime_ns, ctime_ns) rows of `index_files` in `folders` (subfolders' rows may come
    too: compare them with the files of `covered(folders, ...)`)."""
    query = "select path, type, size, mtime_ns, ctime_ns from index_files"
    if len(folders) > LOAD_ALL_OVER:
        return set(conn.execute(query))
    # 'folder/' <= path < 'folder0' ('0' follows '/'): the folder and its subfolders, by the primary key
    return {
        row
        for folder in folders
        for row in conn.execute(f"{query} where path >= ? and path < ?", (f"{folder}/", f"{folder}0"))
    }


def known_digests(conn: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """The content hashes the index holds for `paths` (all of them at once when there are many)."""
    if len(paths) > 1000:
        return dict(conn.execute("select path, digest from index_files"))
    return dict(row for p in paths for row in conn.execute("select path, digest from index_files where path = ?", (p,)))


def covered(folders: set[str], walked) -> set[str]:
    """The walked folders whose rows `known_files(conn, folders)` returns: `folders` and their subfolders."""
    if len(folders) > LOAD_ALL_OVER:
        return set(walked)
    return {name for name in walked if name in folders or any(name.startswith(f"{f}/") for f in folders)}


def remember(conn: sqlite3.Connection, current: dict[str, str], untrusted: set[str]) -> None:
    """Store this run's fingerprints; folders in `untrusted` get none."""
    conn.execute("delete from index_folders")
    conn.executemany(
        "insert into index_folders (folder, walk) values (?, ?)",
        ((folder, None if folder in untrusted else walk) for folder, walk in current.items()),
    )


def distrust(conn: sqlite3.Connection, folders: Iterable[str]) -> None:
    """Forget the fingerprints of `folders` (changed without a walk), so the next run looks into them."""
    conn.executemany("insert or replace into index_folders (folder, walk) values (?, null)", ((f,) for f in folders))
