"""The gardener's proposals as the CLI and MCP give them (SPEC sections 4 and 12): the `gardener` canned query's rows
with `ids` as a list and the suggested commands completed with the index they should update; how current the findings
are, as one sentence (the CLI's and the explorer's); and the hints for a memory just written."""

import contextlib
import functools
import json
import shlex

from indexer.sql import canned, expand
from indexer.sqlite import sqlite3

DEFAULT_DB = "seamless.db"  # the CLI's --db default: a command for it needs no --db


def _rows(conn_or_db, sql: str, params) -> list[dict]:
    """`sql`'s rows as dicts, read on a connection or from an index's path."""
    conn = conn_or_db if isinstance(conn_or_db, sqlite3.Connection) else sqlite3.connect(str(conn_or_db))
    with contextlib.closing(conn) if conn is not conn_or_db else contextlib.nullcontext():
        cursor = conn.execute(sql, params)
        return [dict(zip([d[0] for d in cursor.description], row, strict=True)) for row in cursor]


def proposals(conn_or_db, as_of: str | None = None, db_path: str | None = None) -> list[dict]:
    """Every proposal at `as_of` (None: now), in the gardener's order; its commands (the act, the dismissal) gain
    `--db db_path` unless that is the default index."""
    rows = _rows(conn_or_db, canned.QUERIES["gardener"], {"as_of": as_of or ""})
    for row in rows:
        row["ids"] = json.loads(row["ids"]) if row["ids"] else []
        for key in ("command", "dismiss"):
            if row[key] and db_path and db_path != DEFAULT_DB:
                row[key] += " --db " + shlex.quote(str(db_path))
    return rows


def state(conn) -> dict:
    """How current the findings are (gardener.sql's gardener_state): settled (when, or None), changed_since (memories
    changed since; every active one when they are to be read again), unread, settle_error."""
    return _rows(conn, canned.GARDENER_STATE, {"as_of": ""})[0]


def state_line(row: dict, running: bool = False) -> str:
    """`state`'s row as one sentence; `running`: whether a settle holds the index's settle lock on this host now."""
    n, settled = row["changed_since"], row["settled"]
    memories = f"{n:,} memor{'y' if n == 1 else 'ies'}"
    if not n and settled:
        text = f"The gardener's findings are in step with the index (settled {settled})"
    elif not n:
        text = "The gardener has found nothing to read"
    elif settled is None or row["unread"]:
        text = f"The gardener has not read this index with its rules yet: {memories} to read"
        text += "; no finding is listed until it has" if settled is None else f"; the findings listed are of {settled}"
    else:
        text = f"The gardener's findings were settled at {settled}; {memories} changed since, which they may not show"
    if running:
        text += "; a settle is under way"
    if row.get("settle_error") and n:
        text += f"; the last settle failed at {row['settle_error']}"
    return text + "."


@functools.cache
def _hints_sql() -> str:
    return expand(HINTS)


HINTS = """
select PROPOSAL_OF(f.rank) as proposal, f.ids, f.evidence, f.other is not null as pair
from gardener_words as w
join gardener_findings as f on f.signature = w.signature or f.other = w.signature
where w.id = :id
order by f.rank, f.rowid
"""


def hints(conn, memory_id: str) -> list[dict]:
    """What the gardener now says of memory `memory_id`, as hints for whoever just wrote it (never a refusal): a
    contradiction or a likely duplicate of another active memory of its scope, a vague description. Each hint has
    `hint` (the proposal's kind), `ids` (the memories it involves, newest last) and `message`."""
    found = []
    for row in _rows(conn, _hints_sql(), {"id": memory_id}):
        ids = json.loads(row["ids"])
        other = next((i for i in ids if i != memory_id), None)
        name = conn.execute("select name from memories where id = ?", (other,)).fetchone() if other else None
        first = f"{name[0] if name else '?'} ({other})"
        message = {
            "vague-description": f"vague description: {row['evidence']}; say what a future agent needs to act on it",
            "contradiction": f"disagrees with {first}: {row['evidence']}; if this memory is right, write it again "
            f"with --supersedes {other}",
            "duplicate": f"may say the same as {first}: {row['evidence']}; supersede it (--supersedes {other}) rather "
            "than keep both"
            if row["pair"]
            else f"{len(ids) - 1} other active memor{'y has' if len(ids) == 2 else 'ies have'} the same description, "
            f"among them {first}: keep one",
        }[row["proposal"]]
        found.append({"hint": row["proposal"], "ids": ids, "message": message})
    return found
