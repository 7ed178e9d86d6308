"""Answers from the index: run the canned queries (their SQL is `indexer.sql.canned`) and read the rows."""

import json
from itertools import repeat
from pathlib import Path

from indexer.query import recall_terms
from indexer.sql import canned
from indexer.sql.canned import PARAMS, QUERIES, RECALL_DEFAULT
from indexer.sqlite import sqlite3

# The index is read through a memory map, here and in the explorer (plugins/read_only.py): a recall reads FTS5 pages
# scattered over the file, a read() each. The indexer never shrinks the file, so no mapped page is cut off.
MMAP_BYTES = 1 << 30


def connect(conn_or_db) -> tuple[sqlite3.Connection, bool]:
    """A connection for a path (read through a memory map) or an sqlite3 connection, with recall's SQL function
    (recall_terms) on it; True if we opened it."""
    if isinstance(conn_or_db, sqlite3.Connection):
        recall_terms.ensure(conn_or_db)
        return conn_or_db, False
    conn = sqlite3.connect(Path(conn_or_db))
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    recall_terms.register(conn)
    return conn, True


def rows(conn_or_db, sql: str, params=()) -> list[dict]:
    """Run `sql` and return its rows as dicts."""
    conn, opened = connect(conn_or_db)
    try:
        cursor = conn.execute(sql, params)
        names = tuple(d[0] for d in cursor.description)
        return list(map(dict, map(zip, repeat(names), cursor.fetchall())))  # no Python loop per row
    finally:
        if opened:
            conn.close()


def execute(conn_or_db, sql: str, params: dict) -> list[dict]:
    """Run `sql` with named `params`, None sent as '' (like a missing Datasette parameter)."""
    return rows(conn_or_db, sql, {k: "" if v is None else v for k, v in params.items()})


def run(conn_or_db, name: str, **params) -> list[dict]:
    """Run the canned query `name` (a key of QUERIES); parameters not given count as ''."""
    if name not in QUERIES:
        raise KeyError(f"no query {name!r}; one of {', '.join(QUERIES)}")
    if unknown := set(params) - set(PARAMS[name]):
        raise TypeError(f"query {name!r} takes {', '.join(PARAMS[name])}, not {', '.join(sorted(unknown))}")
    return execute(conn_or_db, QUERIES[name], {key: params.get(key) for key in PARAMS[name]})


def recall(
    conn_or_db,
    q: str,
    project: str | None = None,
    limit: int = RECALL_DEFAULT,
    as_of: str | None = None,
    every: bool = False,
) -> list[dict]:
    """The best `limit` (at most RECALL_MAX) recall results for `q` among the memories valid at `as_of` (None:
    now) and the notes; `every`: each term required. Each result's `matched` is the list of terms it holds, its
    `highlights` the [start, end) spans of the matches in its plain `snippet`."""
    found = run(conn_or_db, "recall", q=q, project=project, limit=limit, as_of=as_of, all=1 if every else "")
    for row in found:
        row["matched"] = json.loads(row["matched"] or "[]")
        row["highlights"] = json.loads(row["highlights"] or "[]")
    return found


def recall_superseded(
    conn_or_db,
    q: str,
    project: str | None = None,
    limit: int = RECALL_DEFAULT,
    superseded_limit: int = 5,
    as_of: str | None = None,
    every: bool = False,
    shown: list[dict] | None = None,
) -> list[dict]:
    """The current memories that replaced the best `superseded_limit` superseded matches of `q` that rank
    among recall's `limit` results, each with what it replaces. `shown`: the rows `recall` gave for these
    parameters, when the caller has them: then recall is not run again (it is most of this query's time)."""
    params = {"q": q, "project": project, "limit": limit, "as_of": as_of, "all": 1 if every else ""}
    params["superseded_limit"] = superseded_limit
    if shown is None:
        return execute(conn_or_db, canned.RECALL_SUPERSEDED, params)  # composed when first read
    ranks = [row["rank"] for row in shown]
    params |= {"shown_rows": len(ranks), "shown_worst": max(ranks, default=None)}
    return execute(conn_or_db, canned.RECALL_SUPERSEDED_SHOWN, params)


class ChainNotFound(LookupError):
    """No chain, or several, for an id or name: the message says which and what to do."""


def history_chain(conn_or_db, id_or_name: str, project: str | None = None) -> list[dict]:
    """The one supersession chain of `id_or_name` (a name in several projects needs `project`), oldest first."""
    chains: dict[str, list[dict]] = {}
    for row in run(conn_or_db, "history", id=id_or_name, project="global" if project == "" else project):
        chains.setdefault(row.pop("start_id"), []).append(row)
    starts = {start_id: next(r for r in chain if r["is_start"]) for start_id, chain in chains.items()}
    if not chains:
        where = f" in project {project!r}" if project else ""
        raise ChainNotFound(f"no memory has the id or name {id_or_name!r}{where}")
    if len(chains) > 1:
        projects = ", ".join(sorted(starts[s]["project"] or "global" for s in chains))
        raise ChainNotFound(
            f"the name {id_or_name!r} is used in several projects: {projects}; choose one with --project"
        )
    (chain,) = chains.values()
    return chain
