"""The rows of `revisions` and `revision_texts` for the commits an index run reads (revisions.py decides when).

A row's `id` is the id of the file at that commit, so a memory's revisions follow it through renames; it is taken
from the index's row where that holds the very bytes (its digest is git's blob id), else from git. A merge adds rows
only for the files it wrote itself. `generation` orders the commits alike on every clone: parents first.
"""

import json
import time
from collections.abc import Iterable

from indexer import git
from indexer.git import history
from indexer.index.database import IndexConnection
from indexer.store.rules import ULID_TEXT, frontmatter_id

PATHSPECS = ["memories", "notes"]
TRAILER = "Seamless-Concurrent-Edit"
TABLES = ("revisions", "revision_commits", "revision_texts", "concurrent_edits")


def read(db: IndexConnection, repo: git.Repo | None, since: str | None, max_bytes: int) -> None:
    """Read the commits from `since` (a head read before) to `repo`'s head: add the new ones, take out those no longer
    in the history. With no `since`, or one that is gone (a rewritten history, collected), all of them again."""
    head = repo.head if repo else None
    commits = None
    if repo is not None and head is not None and since:
        try:
            commits = history.log(repo.root, [f"{since}...{head}"], PATHSPECS, TRAILER)
        except git.GitError:  # the recorded head is gone: read it all again
            commits = None
    if commits is None:
        for table in TABLES:
            db.execute(f"delete from {table}")
        if repo is not None and head is not None:
            commits = history.log(repo.root, [head], PATHSPECS, TRAILER)
    if repo is not None and commits:
        _forget(db, [c.commit for c in commits if c.side == "<"])
        _read(db, repo, [c for c in commits if c.side != "<"], max_bytes)


def _forget(db: IndexConnection, dropped: list[str]) -> None:
    """Take out the rows of commits no longer in the history."""
    if not dropped:
        return
    listed = json.dumps(dropped)
    for table in ("revisions", "revision_commits", "concurrent_edits"):
        db.execute(f'delete from {table} where "commit" in (select value from json_each(?))', (listed,))
    db.execute("delete from revision_texts where blob not in (select blob from revisions where blob is not null)")


def _read(db: IndexConnection, repo: git.Repo, commits: list[history.Commit], max_bytes: int) -> None:
    """Add the rows of `commits` (parents before children), their ids read from the files they changed."""
    generations: dict[str, int] = {}
    rows = []
    edits = []
    for commit in commits:
        generations[commit.commit] = generation = 1 + max(
            (_generation(db, generations, p) for p in commit.parents), default=0
        )
        committed_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(commit.committed_at))
        edits += [(commit.commit, committed_at, _trailer_id(value)) for value in commit.trailer_values]
        merge = len(commit.parents) > 1
        for file in commit.changes:
            found = _row(repo, file, merge)
            if found is not None:
                change, path, old_path, blob, read_from = found
                rows.append([commit.commit, committed_at, commit.author, commit.subject, path, read_from, change,
                             old_path, blob, generation])  # fmt: skip
    ids = _known_ids(db, rows)
    # the rest from git, in the order the commits name them (not sorted: git reads a pack's deltas far faster so)
    ids.update(_ids(repo.root, dict.fromkeys(row[5] for row in rows if row[5] not in ids), max_bytes))
    for row in rows:
        row[5] = ids.get(row[5])
    db.executemany('insert or replace into revision_commits ("commit", generation) values (?, ?)', generations.items())
    db.executemany(
        'insert or replace into revisions ("commit", committed_at, author, message, path, id, change, old_path, '
        "blob, generation) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.executemany('insert or ignore into concurrent_edits ("commit", committed_at, id) values (?, ?, ?)', edits)
    _keep_texts(db, repo.root, {row[5] for row in rows if row[5]}, max_bytes)


def _generation(db: IndexConnection, generations: dict[str, int], commit: str) -> int:
    if commit in generations:
        return generations[commit]
    found = db.execute('select generation from revision_commits where "commit" = ?', (commit,)).fetchone()
    return found[0] if found else 0  # a shallow clone's edge


def _row(repo: git.Repo, file: history.FileChange, merge: bool) -> tuple | None:
    """(change, path, old_path, blob, the object to read the id from) for one changed file, None when it is no
    store file on either side."""
    path, old_path = repo.store_path(file.path), repo.store_path(file.old_path) if file.old_path else None
    path = path if path is not None and _indexed(path) and file.mode != "120000" else None
    old_path = old_path if old_path is not None and _indexed(old_path) else None
    status = file.status[0]
    if merge:  # one letter per parent: what the merge itself wrote
        change = "deleted" if file.blob is None else "added" if set(file.status) == {"A"} else "modified"
    elif status == "R":
        change = "renamed" if path and old_path else "added" if path else "deleted"
    else:
        change = {"A": "added", "C": "added", "D": "deleted"}.get(status, "modified")
    if change == "deleted":
        where = path or old_path
        return ("deleted", where, None, None, file.old_blob) if where else None
    if path is None:
        return None
    return change, path, old_path if change == "renamed" else None, file.blob, file.blob


KNOWN_IDS = """SELECT json_extract(j.value, '$[0]') AS blob, coalesce(m.id, n.id) AS id
FROM json_each(?) AS j
JOIN index_files AS f ON f.path = json_extract(j.value, '$[1]') AND f.digest = json_extract(j.value, '$[0]')
LEFT JOIN memories AS m ON m.path = f.path
LEFT JOIN notes AS n ON n.path = f.path
WHERE m.path IS NOT NULL OR n.path IS NOT NULL"""


def _known_ids(db: IndexConnection, rows: list[list]) -> dict[str, str | None]:
    """The ids of the files the index holds as they were committed: blob -> the id of the index's row."""
    pairs = [(row[5], row[4]) for row in rows if row[5] and row[6] != "deleted"]
    return dict(db.execute(KNOWN_IDS, (json.dumps(pairs),))) if pairs else {}


def _indexed(path: str) -> bool:
    """A file the walk would index; not one whose name is not UTF-8 (the walk reports those, unread)."""
    return git.is_store_path(path) and "\ufffd" not in path


def _ids(root, blobs: Iterable[str | None], max_bytes: int):
    """Each blob with the id its frontmatter names (or None)."""
    for blob, data in history.read_objects(root, [b for b in blobs if b], limit=max_bytes):
        yield blob, frontmatter_id(data) if data is not None else None


TEXTS_WANTED = """SELECT DISTINCT r.blob FROM revisions AS r
WHERE r.id IN (SELECT value FROM json_each(?)) AND r.blob IS NOT NULL
    AND (SELECT count(*) FROM revisions AS other WHERE other.id = r.id) > 1
    AND NOT EXISTS (SELECT 1 FROM revision_texts AS t WHERE t.blob = r.blob)"""


def _keep_texts(db: IndexConnection, root, ids: set[str], max_bytes: int) -> None:
    """Store the texts of every revision of `ids` that now have more than one revision."""
    if not ids:
        return
    wanted = [row[0] for row in db.execute(TEXTS_WANTED, (json.dumps(sorted(ids)),))]
    db.executemany(
        "insert or replace into revision_texts (blob, text) values (?, ?)",
        (
            (blob, data.decode("utf-8", "replace") if data is not None else None)
            for blob, data in history.read_objects(root, wanted, limit=max_bytes)
        ),
    )


def _trailer_id(value: str) -> str:
    """A trailer's memory id as the index spells ids (upper case); a note's path, which sync names where the note
    has no id, as it is."""
    value = value.strip()
    return value.upper() if ULID_TEXT.match(value.upper()) else value
