"""The commands that read the index: briefing, recall, history, show. Each body takes the options its click
command declares (cli.py) and is run by click or, without it, by `indexer.front.main`.

What each imports is what it uses (docs/development.md, "Start-up"): the gardener, YAML and the git history are
not among them, but for `history --revisions` and `show`, which read the store's history.
"""

import sys
from pathlib import Path

from indexer.front.console import CommandError, echo, echo_json, echo_line, scope, table
from indexer.sqlite import sqlite3


def connect(db_path: str, read_only: bool = False) -> sqlite3.Connection:
    """An open index, or a CommandError saying how to make one."""
    missing = CommandError(f"no index at {db_path}: run `seamless index STORE` first")
    if not Path(db_path).is_file():
        raise missing
    conn = (
        sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)
        if read_only
        else sqlite3.connect(db_path)
    )
    from indexer.index.database import is_index, not_an_index

    try:
        ours = is_index(conn)
    except sqlite3.DatabaseError:  # not SQLite at all
        ours = False
    if ours is None:
        raise missing
    if not ours:
        raise CommandError(not_an_index(db_path))
    return conn


def briefing(project, as_of, budget, explain, as_json, db_path) -> None:
    """What an agent on PROJECT is told before it starts: pinned memories, then the newest that fit."""
    from indexer.query import queries

    conn = connect(db_path)
    if (
        project != "global"
        and not conn.execute("select 1 from memories where project = ? limit 1", (project,)).fetchone()
    ):
        echo(f"note: no memory belongs to project {project!r}; only global memories can be briefed", err=True)
    rows = queries.run(conn, "briefing_ledger" if explain else "briefing", project=project, as_of=as_of, budget=budget)
    if as_json:
        echo_json(rows, ("pinned", "included"))
    elif explain:
        from collections import Counter

        for row in rows:
            row["scope"] = scope(row["project"])
            row["updated"] = (row["updated"] or "")[:10] or None
        echo(table(rows, ["position", "reason", "kind", "name", "scope", "updated", "chars", "running_chars"]))
        included = [r for r in rows if r["included"]]
        left_out = Counter(r["reason"] for r in rows if not r["included"])
        budget_text = f" of {rows[0]['budget']}" if rows else ""
        echo(
            f"\n{len(included)} of {len(rows)} memories in scope went in "
            f"({sum(r['chars'] for r in included)}{budget_text} characters); left out: "
            + (", ".join(f"{n} {reason}" for reason, n in left_out.items()) or "nothing")
        )
    else:
        from indexer.query.briefing_text import briefing_markdown

        echo(briefing_markdown(rows, project, as_of), nl=False)


def recall(query, project, limit, every, as_of, as_json, db_path) -> None:
    """The memories and notes that answer QUERY, best first; then the old truths among its matches, told from the
    rows it gave (recall is not run again)."""
    from indexer.query import queries, recall_terms
    from indexer.sql import canned

    conn = connect(db_path)
    rows = queries.recall(conn, query, project=project, limit=limit, as_of=as_of, every=every)
    why = None if rows else recall_terms.nothing_to_search(query)
    if as_json:
        echo_json(rows)
        if why:
            echo(why, err=True)
        return
    for n, row in enumerate(rows, 1):
        if row["type"] == "memory":
            echo_line(f"{n}. [{row['kind']}] {row['name']} ({scope(row['project'])}) {row['id']}: {row['description']}")
        else:
            echo_line(f"{n}. note {row['path']}: {row['title']}")
        if row["snippet"] and (row["type"] == "note" or canned.MATCH_START in row["snippet"]):
            snippet = row["snippet"].replace(canned.MATCH_START, "**").replace(canned.MATCH_END, "**")
            echo_line("   " + " ".join(snippet.split()))
    told = queries.recall_superseded(conn, query, project=project, limit=limit, as_of=as_of, every=every, shown=rows)
    for successor in told:
        echo_line(f"superseded: {successor['replaces']} -> replaced by {successor['id']} {successor['name']}")
    if not rows:
        echo(why or f"no memory or note matches {query!r}", err=True)


def history(id_or_name, project, revisions, as_json, db_path) -> None:
    """The supersession chain of a memory (its id, or its name), oldest first, and its current truth; with
    `revisions`, its file's git revisions instead."""
    if revisions:
        return print_revisions(id_or_name, project, as_json, db_path)
    from indexer.query import queries

    try:
        rows = queries.history_chain(connect(db_path), id_or_name, project)
    except queries.ChainNotFound as e:
        raise CommandError(str(e)) from None
    if as_json:
        echo_json(rows, ("is_start",))
        return
    for row in rows:
        link = ""
        if row["superseded_by"]:
            link = f"  superseded by {row['superseded_by']}"
            link += {"dangling": " (dangling: no such memory)", "cycle": " (cycle)"}.get(row["link"], "")
        mark = ">" if row["is_start"] else " "
        echo_line(
            f"{mark}{row['position']}. {row['id']} {row['name']} ({scope(row['project'])}) {row['status']}, "
            f"valid {row['valid_from'] or 'always'} -> {row['invalid_at'] or 'now'}{link}"
        )
    echo_line(chain_end(rows))


def chain_end(rows: list[dict]) -> str:
    """One line saying where the chain leads: its current truth, or why there is none."""
    current = next((r for r in rows if r["id"] == rows[0]["current_id"]), None)
    if current:
        return f"current truth: {current['id']} {current['name']} ({scope(current['project'])})"
    end = next(r for r in rows if r["id"] == rows[0]["chain_end_id"])
    if end["link"] == "dangling":
        return f"no current truth: {end['id']} {end['name']} is superseded by {end['superseded_by']}, which is not in the index"
    if end["link"] == "cycle":
        return "no current truth: the chain is a supersession cycle"
    return f"no current truth: the chain ends in {end['id']} {end['name']}, which is {end['status']}"


def print_revisions(x: str, project: str | None, as_json: bool, db_path: str) -> None:
    """X's revisions, oldest first: one JSON array, or one line each."""
    from indexer.query import revisions

    conn = connect(db_path)
    try:
        target = revisions.find(conn, x, project)
        found = revisions.revisions(conn, target)
    except revisions.RevisionError as e:
        raise CommandError(str(e)) from None
    listed = [
        {key: row[key] for key in ("commit", "committed_at", "author", "message", "change", "path")} for row in found
    ]
    if as_json:
        echo_json(listed)
    else:
        shown = [row | {"commit": row["commit"][:12]} for row in listed]
        for line in table(shown, ["commit", "committed_at", "author", "change", "message"]).splitlines():
            echo_line(line)
    if not found:
        echo(f"{target.label} has no revisions: its file was never committed to git", err=True)


def show(x, project, at, db_path) -> None:
    """Print the file of X (a memory's id or name, a note's id or path) as it stands now, or as it stood `at` a
    commit or a time, followed through renames."""
    from indexer import git
    from indexer.query import revisions
    from indexer.store.printable import escaped

    conn = connect(db_path)
    try:
        data = revisions.file_at(conn, revisions.find(conn, x, project), at)
    except (revisions.RevisionError, git.GitError) as e:
        raise CommandError(str(e)) from None
    if sys.stdout.isatty():  # a file cannot send the terminal an escape sequence; piped, its bytes are kept
        text = data.decode("utf-8", "replace")
        lines = ("\t".join(escaped(part) for part in line.split("\t")) for line in text.split("\n"))
        echo("\n".join(lines), nl=False)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
