"""Memories that may say the same as a new one: the cheap first defence against one fact restated N times.

The new memory's name and description, word by word (any word may match), are searched with FTS5 over
the name, description and tags of the active memories of its scope. bm25 scores depend on the size of
the store, so each is divided by the new memory's own score for the same query: 1.0 reads like the new
memory itself, and SIMILAR_AT is the share that counts as similar (docs/writing.md says how it was measured).
"""

import re

from .sqlite import sqlite3

SIMILAR_AT = 0.3
LIMIT = 3
WORD = re.compile(r"[^\W_]{3,}")
SQL = """
select m.id, m.name, m.description, m.project, bm25(memories_fts, 2.0, 4.0, 1.0, 0.0) as rank
from memories_fts join memories m on m.rowid = memories_fts.rowid
where memories_fts match :query and m.status = 'active' and m.project is :project
order by rank limit 50
"""


def query_of(name: str, description: str) -> str | None:
    """An FTS5 query matching any word (3 letters or more) of `name` and `description`, each quoted."""
    words = dict.fromkeys(w.lower() for w in WORD.findall(f"{name.replace('-', ' ')} {description}"))
    if not words:
        return None
    return "{name description tags} : (" + " OR ".join(f'"{w}"' for w in words) + ")"


def scored(conn: sqlite3.Connection, memory_id: str) -> list[dict]:
    """Every other active memory of the scope sharing a word with memory `memory_id`, with its `score`."""
    me = conn.execute("select name, description, project from memories where id = ?", (memory_id,)).fetchone()
    query = me and query_of(me[0], me[1])
    if not query:
        return []
    rows = [
        dict(zip(("id", "name", "description", "project", "rank"), r))
        for r in conn.execute(SQL, {"query": query, "project": me[2]})
    ]
    own = next((r["rank"] for r in rows if r["id"] == memory_id), None)
    if not own:
        return []
    return [
        {**{k: r[k] for k in ("id", "name", "description", "project")}, "score": round(r["rank"] / own, 3)}
        for r in rows
        if r["id"] != memory_id
    ]


def similar_memories(conn: sqlite3.Connection, memory_id: str) -> list[dict]:
    """Up to LIMIT active memories of the same scope most like memory `memory_id`, most similar first."""
    return [r for r in scored(conn, memory_id) if r["score"] >= SIMILAR_AT][:LIMIT]
