"""`seamless gardener`: the gardener's proposals in groups of one kind and project, never acted on by it; what answers
them (`gardener dismiss`, `gardener archive`); and the settle it and `seamless needs-human` run first, so that what they
list is current."""

import contextlib
import json
import shlex
from pathlib import Path

import click

from indexer.front.console import connect, echo_json, echo_line, scope
from indexer.front.options import (
    DEFAULT_DB,
    as_of_option,
    db,
    db_option,
    json_option,
    json_option_for,
    store_argument,
)
from indexer.gardener import in_step, proposals, running, settle_all, state, state_line
from indexer.index import database
from indexer.query.queries import rows as rows_of
from indexer.sql.canned import ANSWERABLE, QUERIES
from indexer.sqlite import sqlite3
from indexer.store.dismissals import FILE as DISMISSALS


def settle_first(db_path: str) -> None:
    """Bring the gardener's findings in step before they are listed (waiting for a settle already under way); say
    on standard error when that takes a settle, and when it cannot be done (the findings are then listed as they
    were settled, each saying so)."""
    if not Path(db_path).is_file():  # (an act makes its index)
        return
    try:
        with contextlib.closing(database.open_db(db_path)) as conn:
            if in_step(conn):
                return
            click.echo(f"settling first: {state_line(state(conn), running(db_path))}", err=True)
        settle_all(db_path, database)
    except (sqlite3.Error, OSError) as e:
        click.echo(f"could not settle the gardener's findings ({e}); they are listed as they were settled", err=True)


@click.group(invoke_without_command=True)
@as_of_option
@click.option("--kind", "proposal", metavar="KIND", help="Only the proposals of this kind (`duplicate`, `archive`...).")
@click.option("--project", help="Only the proposals of project P (`global`: the global scope).")
@json_option
@db_option
@click.pass_context
def gardener(ctx, as_of, proposal, project, as_json, db_path):
    """Proposals only, never acted on: contradictions, duplicates, vague descriptions, stale memories, and what the
    fleet left for a person (supersession forks, concurrent edits), in groups of one kind and project with their
    counts; each with the command that acts on it and the one that dismisses it. Settles the findings first when
    they are behind."""
    if ctx.invoked_subcommand is not None:
        return
    connect(db_path).close()  # a clear error when there is no index
    settle_first(db_path)
    conn = connect(db_path)
    rows = [r for r in proposals(conn, as_of=as_of, db_path=db_path) if _in(r, proposal, project)]
    if as_json:
        echo_json(rows)
        return
    answers = {(g["proposal"], g["project"]): g for g in rows_of(conn, QUERIES["gardener_groups"], {"as_of": as_of})}
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["proposal"], scope(row["project"])), []).append(row)
    db = "" if db_path == DEFAULT_DB else f" --db {shlex.quote(db_path)}"
    for (kind, where), found in sorted(groups.items(), key=lambda g: (g[1][0]["rank"], -len(g[1]), g[0][1])):
        if kind == "unsettled":  # (the settle could not be made)
            echo_line(f"{kind}: {found[0]['reason']}")
            continue
        echo_line(f"{kind} in {where} ({len(found):,}):")
        group = answers.get((kind, where))
        if group and len(found) > 1:  # the commands that answer the whole group
            whole = [command + db for command in (group["archive"], group["dismiss"]) if command]
            echo_line(f"  all {len(found):,} at once: " + " · ".join(whole))
        for row in found:
            echo_line(f"  {row['id']} [{row['kind']}] {row['name']}: {row['reason']}")
            for command in (row["command"], row["dismiss"]):
                if command:
                    echo_line(f"    {command}")
    click.echo(
        f"{len(rows)} proposal{'s' * (len(rows) != 1)} in {len(groups)} group{'s' * (len(groups) != 1)}; "
        "nothing was changed (the gardener only proposes)",
        err=True,
    )


def _in(row: dict, proposal: str | None, project: str | None) -> bool:
    return proposal in (None, row["proposal"]) and (project is None or scope(row["project"]) == project)


def _act(call, as_json: bool) -> None:
    """Run one act and print what it did, or would do (one JSON object with --json)."""
    from indexer.edit.write_input import WriteRefused  # here: only an act writes

    try:
        acted = call()
    except WriteRefused as e:
        raise click.ClickException(str(e)) from None
    if acted.committed.warning:
        click.echo(acted.committed.warning, err=True)
    if as_json:
        click.echo(json.dumps(acted.as_json(), indent=2, ensure_ascii=False))
        return
    rows, verb = acted.proposals, acted.action.removeprefix("would-")
    if acted.held:
        echo_line(f"dismissed already, at line {acted.held['line']} of {DISMISSALS} ({acted.held['why']}): nothing "
                  "was written")  # fmt: skip
    elif not rows:
        click.echo(f"the gardener lists no {acted.proposal} proposal there: nothing to do")
    elif acted.action.startswith("would-"):
        echo_line(f"would {verb} {acted.what}:")
        for row in rows:
            echo_line(f"  {row['id']} [{row['kind']}] {row['name']} ({scope(row['project'])}): {row['reason']}")
        click.echo(f"nothing was written: run it again with --yes to {verb} them, in one commit")
    else:
        echo_line(
            f"{verb} {acted.what}" + (f" (commit {acted.committed.commit[:12]})" if acted.committed.commit else "")
        )


_write_db = db("The index to update (created when missing).")
_act_json = json_option_for("Print one JSON object: what was done, or would be.")


@gardener.command()
@store_argument
@click.argument("ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--kind", "proposal", required=True, metavar="KIND", help=f"The proposal's kind: {', '.join(ANSWERABLE)}."
)
@click.option("--project", help="Dismiss every listed proposal of this kind in project P (`global`), not one.")
@click.option("--why", required=True, help="Why it is dismissed, in one line: kept with the dismissal.")
@click.option("--by", help="Who dismisses it. Default: SEAMLESS_MODEL, else user@host.")
@click.option("--yes", is_flag=True, help="With --project: dismiss them (without it, only say which).")
@_act_json
@_write_db
def dismiss(store, ids, proposal, project, why, by, yes, as_json, db_path):
    """Dismiss the gardener's proposal of kind KIND of the memories ID... (as it lists it), or with --project every
    one of that kind in P: a line each in STORE/gardener/dismissed.jsonl, with the reason, in one commit. It is not
    proposed again while its memories keep their `updated`."""
    from indexer.edit import gardener_acts

    if bool(ids) == bool(project):
        raise click.UsageError("give the proposal's ids, or --project P for all of that kind in P (not both)")
    settle_first(db_path)
    if ids:
        _act(lambda: gardener_acts.dismiss(store, db_path, proposal, list(ids), why, by), as_json)
    else:
        _act(lambda: gardener_acts.dismiss_group(store, db_path, proposal, project, why, by, yes), as_json)


@gardener.command()
@store_argument
@click.option("--project", required=True, help="The project whose archive proposals to carry out (`global`).")
@click.option("--yes", is_flag=True, help="Archive them (without it, only say which).")
@_act_json
@_write_db
def archive(store, project, yes, as_json, db_path):
    """Archive every memory the gardener proposes to archive in project P (stale stages, stale memories), each
    invalid from now as `seamless archive` makes one, in one commit."""
    from indexer.edit import gardener_acts

    settle_first(db_path)
    _act(lambda: gardener_acts.archive_group(store, db_path, project, yes), as_json)
