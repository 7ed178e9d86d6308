"""The store's git history in the index (SPEC section 10, docs/history.md): `revisions`, one row per store file a
commit changed, and `revision_texts`, the text of every revision of a file that has more than one (the memory page
diffs them without git).

Each run reads only the commits not read before: the head last read is kept in `index_meta`, and one
`git log RECORDED...HEAD` gives the new commits and those no longer in the history (after a reset or an amend);
a run whose head did not move reads none, and does without the history reader (revision_rows.py, which makes the rows).
"""

from indexer import git
from indexer.index import database
from indexer.index.database import IndexConnection

HEAD_KEY = "revisions_head"
WHERE_KEY = "revisions_store"  # the work tree's top and the store's place in it, for the recorded head


def update(db: IndexConnection, repo: git.Repo | None, max_bytes: int, full: bool = False) -> None:
    """Bring the revisions of the store `repo` holds up to date (all of them again when `full`); `repo`: where the
    store sits in its work tree, as the run's plan found it (None: in none, and the store has no revisions).

    A failure of git leaves the revisions as they were, to be read again by the next run; the files' index is
    never held up by the history.
    """
    if database.in_memory(db):  # `seamless check` keeps none
        return
    where = f"{repo.top}\0{repo.prefix}" if repo else None
    head = repo.head if repo else None
    recorded = dict(db.execute("select key, value from index_meta where key in (?, ?)", (HEAD_KEY, WHERE_KEY)))
    if not full and head == recorded.get(HEAD_KEY) and where == recorded.get(WHERE_KEY):
        return
    from indexer.index import revision_rows  # here: the history reader, for a run whose head moved (most did not)

    since = recorded.get(HEAD_KEY) if not full and recorded.get(WHERE_KEY) == where else None
    try:
        with db.atomic():
            database.set_meta(db, HEAD_KEY, head)  # in this transaction: a failure below takes them back too
            database.set_meta(db, WHERE_KEY, where)
            revision_rows.read(db, repo, since, max_bytes)
    except (git.GitError, OSError, ValueError):  # git failed, could not start, or said what we cannot read
        pass
