"""Memories that may say the same as a new one: its name's and description's words searched with FTS5 among the
active memories of its scope (how, and why common words are left out: docs/writing.md, "Similar memories").
"""

import re

from indexer.sqlite import sqlite3

SIMILAR_AT = 0.4
LIMIT = 3
MAX_WORDS = 12  # the rarest ones
COMMON_DOCS = 100
WORD = re.compile(r"[^\W_]{3,}")
COLUMNS = "{name description tags}"
PROBE = f"select count(*) from (select rowid from memories_fts where memories_fts match ? limit {COMMON_DOCS + 1})"
SQL = """
with matches as materialized (
    select rowid, bm25(memories_fts, 2.0, 4.0, 1.0, 0.0) as rank from memories_fts where memories_fts match :query
)
select m.id, m.name, m.description, m.project, matches.rank
from matches join memories m on m.rowid = matches.rowid
where m.status = 'active' and m.project is :project
order by matches.rank limit 50
"""


def words_of(name: str, description: str) -> list[str]:
    """The distinct words (3 letters or more) of a name and a description, lower-cased."""
    return list(dict.fromkeys(w.lower() for w in WORD.findall(f"{name.replace('-', ' ')} {description}")))


def distinctive(conn: sqlite3.Connection, words: list[str]) -> list[str]:
    """The MAX_WORDS rarest of `words` that are in at most COMMON_DOCS memories (names, descriptions, tags)."""
    counts = {w: conn.execute(PROBE, (f'{COLUMNS} : "{w}"',)).fetchone()[0] for w in words}
    return sorted((w for w in words if counts[w] <= COMMON_DOCS), key=lambda w: counts[w])[:MAX_WORDS]


def scored(conn: sqlite3.Connection, memory_id: str) -> list[dict]:
    """Every other active memory of the scope sharing a word with memory `memory_id`, with its `score`."""
    me = conn.execute("select name, description, project from memories where id = ?", (memory_id,)).fetchone()
    words = distinctive(conn, words_of(me[0], me[1])) if me else []
    if not words:
        return []
    query = f"{COLUMNS} : (" + " OR ".join(f'"{w}"' for w in words) + ")"
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
