"""The commands that read the index: briefing, recall, history, show.

The store's git history (`history --revisions`, `show`) is read by indexer.query.revisions, imported by the two
that use it: recall and briefing, which agents run most, do without it.
"""

import sys
from collections import Counter

import click

from indexer.front.console import connect, echo_json, echo_line, scope, table
from indexer.front.options import as_of_option, db_option, json_option
from indexer.query import projects, queries, recall_snippet, recall_terms
from indexer.query.briefing_text import briefing_markdown
from indexer.store.printable import escaped


@click.command()
@click.option("--project", required=True, help="The project to brief; `global` for global memories only.")
@as_of_option
@click.option(
    "--budget", type=click.IntRange(min=0), help="Characters of descriptions (default: briefing.budget_chars)."
)
@click.option("--explain", is_flag=True, help="Show the ledger: every memory in scope, whether it went in and why.")
@json_option
@db_option
def briefing(project, as_of, budget, explain, as_json, db_path):
    """What an agent on PROJECT is told before it starts: pinned memories, then the newest that fit."""
    conn = known(connect(db_path), project)
    rows = queries.run(conn, "briefing_ledger" if explain else "briefing", project=project, as_of=as_of, budget=budget)
    if as_json:
        echo_json(rows, ("pinned", "included"))
    elif explain:
        for row in rows:
            row["scope"] = scope(row["project"])
            row["updated"] = (row["updated"] or "")[:10] or None
        click.echo(table(rows, ["position", "reason", "kind", "name", "scope", "updated", "chars", "running_chars"]))
        included = [r for r in rows if r["included"]]
        left_out = Counter(r["reason"] for r in rows if not r["included"])
        budget_text = f" of {rows[0]['budget']}" if rows else ""
        click.echo(
            f"\n{len(included)} of {len(rows)} memories in scope went in "
            f"({sum(r['chars'] for r in included)}{budget_text} characters); left out: "
            + (", ".join(f"{n} {reason}" for reason, n in left_out.items()) or "nothing")
        )
    else:
        click.echo(briefing_markdown(rows, project, as_of), nl=False)


@click.command()
@click.argument("query")
@click.option("--project", help="Only this project plus global (`global`: global only).")
@click.option(
    "--limit", default=20, show_default=True, type=click.IntRange(min=1), help="How many results (at most 100)."
)
@click.option("--all", "every", is_flag=True, help="Every word must match (stop words too), as before questions.")
@as_of_option
@json_option
@db_option
def recall(query, project, limit, every, as_of, as_json, db_path):
    """Ask in plain words: the memories and notes that answer, best first.

    Searches the memories valid now (or at --as-of) and the notes. QUERY is any text: a question, keywords, an error line, an identifier. A result holds any of its words
    (stemmed: races finds race; stop words such as what, when, the are left out), the most and rarest first;
    an identifier (CHROMA_PORT, chroma-boot-race) or "a phrase" in double quotes counts whole and in its words,
    once however many of them a result holds; a trailing * matches a prefix. A time it names (in March 2026, on 2026-03-18, last week, yesterday,
    read against --as-of) ranks what was written then higher; a log line's timestamp is left out. --json gives each
    result's `matched` terms and the `highlights` of its snippet.
    """
    conn = known(connect(db_path), project)
    rows = queries.recall(conn, query, project=project, limit=limit, as_of=as_of, every=every)
    why = None if rows else recall_terms.nothing_to_search(query)
    if as_json:
        echo_json(rows)
        if why:
            click.echo(why, err=True)
        return
    for n, row in enumerate(rows, 1):
        if row["type"] == "memory":
            echo_line(f"{n}. [{row['kind']}] {row['name']} ({scope(row['project'])}) {row['id']}: {row['description']}")
        else:
            echo_line(f"{n}. note {row['path']}: {row['title']}")
        if row["snippet"] and (row["type"] == "note" or row["highlights"]):
            pieces = recall_snippet.pieces(row["snippet"], row["highlights"])
            snippet = "".join(f"**{text}**" if match else text for text, match in pieces)
            echo_line("   " + " ".join(snippet.split()))
    # the old truths among its matches, told from the rows it gave (recall is not run again)
    told = queries.recall_superseded(conn, query, project=project, limit=limit, as_of=as_of, every=every, shown=rows)
    for successor in told:
        echo_line(f"superseded: {successor['replaces']} -> replaced by {successor['id']} {successor['name']}")
    if not rows:
        click.echo(why or f"no memory or note matches {query!r}", err=True)


@click.command()
@click.argument("id_or_name")
@click.option("--project", help="The project of the name, when several use it (`global` for global).")
@click.option("--revisions", is_flag=True, help="Instead, its file's git revisions, oldest first (a note's too).")
@json_option
@db_option
def history(id_or_name, project, revisions, as_json, db_path):
    """The supersession chain of a memory (its id, or its name), oldest first, and its current truth."""
    if revisions:
        return print_revisions(id_or_name, project, as_json, db_path)
    try:
        rows = queries.history_chain(connect(db_path), id_or_name, project)
    except queries.ChainNotFound as e:
        raise click.ClickException(str(e)) from None
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


def known(conn, project: str | None):
    """`conn`, once `project` (when given) is found to be the store's; else the command's error (exit 1), which
    names the closest project and the store's projects."""
    said = projects.unknown(conn, project)
    if said:
        raise click.ClickException(f"the store {said} `--project global` reads the global memories alone")
    return conn


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
    from indexer.query import revisions  # the git history reader (above)

    conn = connect(db_path)
    try:
        target = revisions.find(conn, x, project)
        found = revisions.revisions(conn, target)
    except revisions.RevisionError as e:
        raise click.ClickException(str(e)) from None
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
        click.echo(f"{target.label} has no revisions: its file was never committed to git", err=True)


@click.command()
@click.argument("x", metavar="X")
@click.option("--project", help="The project of the name X, when several use it (`global` for global).")
@click.option(
    "--at",
    metavar="COMMIT_OR_TIME",
    help="Show the file as it stood at this commit (anything git names one by) or ISO 8601 time. Default: now.",
)
@db_option
def show(x, project, at, db_path):
    """Print the file of X (a memory's id or name, a note's id or path) as it stands now, or as it stood --at a
    commit or a time, followed through renames; the index knows its store."""
    from indexer import git
    from indexer.query import revisions  # the git history reader (above)

    conn = connect(db_path)
    try:
        data = revisions.file_at(conn, revisions.find(conn, x, project), at)
    except (revisions.RevisionError, git.GitError) as e:
        raise click.ClickException(str(e)) from None
    if sys.stdout.isatty():  # a file cannot send the terminal an escape sequence; piped, its bytes are kept
        text = data.decode("utf-8", "replace")
        lines = ("\t".join(escaped(part) for part in line.split("\t")) for line in text.split("\n"))
        click.echo("\n".join(lines), nl=False)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
