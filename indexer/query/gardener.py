"""The gardener's proposals as the CLI and MCP give them (SPEC sections 4 and 12): the `gardener` canned query's
rows with `ids` as a list and the suggested command completed with the index it should update; how current its
findings are, as one sentence (the CLI's and the explorer's); and its hints for a memory just written."""

import functools
import json
import shlex
import socket

from indexer.query import queries
from indexer.sql import canned, expand

DEFAULT_DB = "seamless.db"  # the CLI's --db default: a command for it needs no --db


def proposals(conn_or_db, as_of: str | None = None, db_path: str | None = None) -> list[dict]:
    """Every proposal at `as_of` (None: now), in the gardener's order; a command gains `--db db_path` unless
    that is the default index."""
    rows = queries.run(conn_or_db, "gardener", as_of=as_of)
    for row in rows:
        row["ids"] = json.loads(row["ids"]) if row["ids"] else []
        if row["command"] and db_path and db_path != DEFAULT_DB:
            row["command"] += " --db " + shlex.quote(str(db_path))
    return rows


def state(conn) -> dict:
    """How current the gardener's findings are (gardener.sql's gardener_state): settled (when, or None), changed_since
    (memories changed since; every active one when they are to be read again), unread, settling, settle_error."""
    return queries.rows(conn, canned.GARDENER_STATE, {"as_of": ""})[0]


def state_line(row: dict, running: bool | None = None) -> str:
    """`state`'s row as one sentence. `running`: whether a settle holds the index's settle lock on this host now
    (gardener_settle.running), None when not known."""
    n, settled = row["changed_since"], row["settled"]
    memories = f"{n:,} memor{'y' if n == 1 else 'ies'}"
    if not n:
        text = (
            f"The gardener's findings are in step with the index (settled {settled})"
            if settled
            else ("The gardener has found nothing to read")
        )
    elif settled is None or row["unread"]:
        text = f"The gardener has not read this index with its rules yet: {memories} to read"
        text += "; no finding is listed until it has" if settled is None else f"; the findings listed are of {settled}"
    else:
        text = f"The gardener's findings were settled at {settled}; {memories} changed since, which they may not show"
    if row.get("settling"):
        who = json.loads(row["settling"])
        if running:
            text += f"; a settle is under way (pid {who['pid']}, since {who['started']})"
        elif running is None or who["host"] != socket.gethostname():  # (its lock cannot be seen from here)
            text += f"; a settle started at {who['started']} (pid {who['pid']} on {who['host']})"
        elif n:
            text += f"; the settle started at {who['started']} (pid {who['pid']}) stopped before it finished"
    if row.get("settle_error") and n:
        text += f"; the last settle failed at {row['settle_error']}"
    return text + "."


@functools.cache
def _hints_sql() -> str:
    return expand("""
select PROPOSAL_OF(f.rank) as proposal, f.ids, f.evidence, f.other is not null as pair
from gardener_words as w
join gardener_findings as f on f.signature = w.signature or f.other = w.signature
where w.id = :id
order by f.rank, f.rowid
""")


def hints(conn, memory_id: str) -> list[dict]:
    """What the gardener now says of memory `memory_id`, as hints for whoever just wrote it (never a refusal):
    a contradiction or a likely duplicate of another active memory of its scope, a vague description. Each
    hint has `hint` (the proposal's kind), `ids` (the memories it involves, newest last) and `message`."""
    found = []
    for row in queries.rows(conn, _hints_sql(), {"id": memory_id}):
        ids = json.loads(row["ids"])
        others = [i for i in ids if i != memory_id]
        named = {
            r["id"]: r["name"]
            for r in queries.rows(
                conn, f"select id, name from memories where id in ({','.join('?' * len(others[:3]))})", others[:3]
            )
        }
        first = f"{named.get(others[0], '?')} ({others[0]})" if others else ""
        if row["proposal"] == "vague-description":
            message = f"vague description: {row['evidence']}; say what a future agent needs to act on it"
        elif row["proposal"] == "contradiction":
            message = (
                f"disagrees with {first}: {row['evidence']}; if this memory is right, write it again with "
                f"--supersedes {others[0]}"
            )
        elif row["pair"]:
            message = (
                f"may say the same as {first}: {row['evidence']}; supersede it (--supersedes {others[0]}) rather "
                "than keep both"
            )
        else:
            message = (
                f"{len(others)} other active memor{'y has' if len(others) == 1 else 'ies have'} the same description, "
                f"among them {first}: keep one"
            )
        found.append({"hint": row["proposal"], "ids": ids, "message": message})
    return found
