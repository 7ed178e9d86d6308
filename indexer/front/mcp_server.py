"""`seamless mcp`: the write path and the read queries as MCP tools over stdio, for agents.

Each tool calls the same library function as the matching CLI command and returns the fields of its
`--json` output. A refused write is a tool error (the refusal's code and sentence), never a crash.
The SDK keeps standard output for JSON-RPC alone while it serves.
"""

import json
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from indexer.edit import store_write
from indexer.edit.write_input import WriteRefused
from indexer.front.hook import MAX_CHARS, MIN_CHARS
from indexer.query import projects, queries
from indexer.query.briefing_text import briefing_markdown, briefing_within
from indexer.sql.canned import ANSWERABLE
from indexer.sqlite import sqlite3
from indexer.store import rules
from indexer.store.timestamps import normalize

INSTRUCTIONS = """A Seamless memory store: durable knowledge for agents, one markdown file per memory.
Read with briefing (before starting work), recall (ask it in plain words) and history (a memory's supersession
chain).
Write with memory_write (a new memory; the same name updates it in place; `supersedes` replaces a memory
that stopped being true), memory_append, memory_archive, memory_delete (only for what was never true) and
note_write (long artifacts). Writes without a project land in this session's project; a session with a project
writes only to it and to global (project "global"). A project the store has no memory or note of is refused as a
likely typo, naming the closest; new_project: true begins one on purpose.
Tidy with gardener_proposals (what the gardener proposes: read both memories, then supersede, archive, or dismiss with
gardener_dismiss)."""


def build_server(store: Path | str, db_path: str | Path, project: str | None = None) -> MCPServer:
    """The MCP server over `store`, its index at `db_path`; `project` is the session's (else SEAMLESS_PROJECT)."""
    store, db_path = Path(store), str(db_path)
    session_project = project or os.environ.get("SEAMLESS_PROJECT") or None
    server = MCPServer("seamless", instructions=INSTRUCTIONS)

    def scope(given: str | None) -> str | None:
        return given or session_project

    def call(function, *args, **kwargs) -> dict:
        try:  # with a session project, a write may touch only it and global (SPEC 8)
            return function(store, db_path, *args, within=session_project, **kwargs).as_json()
        except WriteRefused as e:
            raise ToolError(str(e)) from None

    def index() -> sqlite3.Connection:
        if not Path(db_path).is_file():
            raise ToolError(f"no index at {db_path}: run `seamless index {store} --db {db_path}` first")
        return sqlite3.connect(db_path)

    @server.tool()
    def memory_write(
        kind: str,
        name: str,
        description: str,
        body: str | None = None,
        project: str | None = None,
        tags: list[str] | None = None,
        supersedes: str | None = None,
        new_project: bool = False,
    ) -> dict:
        """Write a memory: new; or, when an active memory of the project has this name, update it in place;
        with `supersedes` (an id or name), replace that memory, which stays on disk, invalid from now.
        kind: constraint, runbook, protocol, gotcha, decision, refuted, reference or stage. name: kebab-case.
        description: one line, at most 150 characters, the only text indexes show. project: this session's
        (the default) or `global`; a session with a project writes to no other; a project the store has no memory or
        note of is refused (a typo), unless new_project: true says it is meant. The result lists `similar` active
        memories: supersede one rather than restating it; and the gardener's `hints` (a vague description, a
        likely duplicate or contradiction), which never refuse a write. A supersede's `superseded` is the old id."""
        return call(
            store_write.write_memory,
            project=scope(project),
            kind=kind,
            name=name,
            description=description,
            tags=tags,
            supersedes=supersedes,
            session_id=os.environ.get("SEAMLESS_SESSION"),
            model=os.environ.get("SEAMLESS_MODEL"),
            body=body,
            new_project=new_project,
        )

    @server.tool()
    def memory_append(memory: str, text: str, project: str | None = None) -> dict:
        """Add text to the end of an active memory's body (memory: its id, or its name in the project)."""
        return call(store_write.append_memory, memory, text, project=scope(project))

    @server.tool()
    def memory_archive(memory: str, project: str | None = None) -> dict:
        """Archive an active memory: invalid from now, no successor; it stays readable on disk."""
        return call(store_write.archive_memory, memory, project=scope(project))

    @server.tool()
    def memory_delete(memory: str, project: str | None = None) -> dict:
        """Delete a memory's file: only for what was never true (refused when it would break a chain)."""
        return call(store_write.delete_memory, memory, project=scope(project))

    @server.tool()
    def note_write(
        title: str, body: str, project: str | None = None, tags: list[str] | None = None, new_project: bool = False
    ) -> dict:
        """Write a note (research, a meeting summary, a design record): found by recall, never briefed. A project
        the store has no memory or note of is refused unless new_project: true."""
        return call(
            store_write.write_note, project=scope(project), title=title, tags=tags, body=body, new_project=new_project
        )

    @server.tool()
    def briefing(project: str, as_of: str | None = None, budget: int | None = None, max_chars: int = MAX_CHARS) -> str:
        """What an agent on `project` should know before starting, as markdown: a line per memory,
        `- [kind] name (id): description`, the pinned memories first (constraints, live stages), then the newest
        that fit the briefing's budget (`budget`: characters of descriptions, else the store's). At most `max_chars`
        characters (the hook's 9000 by default): when memories are left out, the last line says how many and the
        call that shows them all. `recall` finds the rest; the ids are for memory_write's `supersedes`,
        memory_append and memory_archive."""
        if max_chars < MIN_CHARS:
            raise ToolError(
                f"max_chars is {max_chars}; at least {MIN_CHARS}, room for the line that counts what is left out"
            )
        when = _time(as_of)
        conn = known(index(), project)
        rows = _read(lambda: queries.run(conn, "briefing", project=project, as_of=when, budget=budget))
        whole = len(briefing_markdown(rows, project, when, with_ids=True))
        given = "".join(f", {k}={v!r}" for k, v in (("as_of", when), ("budget", budget)) if v is not None)
        show_all = f"briefing(project={project!r}{given}, max_chars={whole})"
        return briefing_within(rows, project, when, max_chars, show_all, with_ids=True)

    @server.tool()
    def recall(
        query: str,
        project: str | None = None,
        limit: int = 20,
        as_of: str | None = None,
        all: bool = False,  # named as the CLI's --all and the canned query's all=1
    ) -> list[dict]:
        """Search the memories and notes: ask in plain words, as you would ask a colleague ("why did we move
        chroma off its own port?"), or paste an error line or an identifier (CHROMA_PORT, chroma-boot-race).
        Results hold any of the words (stop words left out), the best first, each with `matched`: the terms it
        holds, and `snippet` with `highlights`: the [start, end) spans of its matches. An identifier or "a phrase" in double quotes counts whole and in its words; a trailing * a prefix. Name a time ("in March 2026",
        "last week") and what was written then comes first. project: that project plus global. as_of (ISO
        8601): what the store believed then, the memories valid at that time (and what "last week" means).
        all: every word must match."""
        conn = known(index(), project)  # the session's own project may be new: only one named here is checked
        return _read(
            lambda: queries.recall(
                conn, query, project=scope(project), limit=limit, as_of=_time(as_of), every=bool(all)
            )
        )

    @server.tool()
    def gardener_proposals(
        project: str | None = None, kind: str | None = None, limit: int = 10, offset: int = 0
    ) -> dict:
        """What the gardener proposes to tidy in this session's project (`project`: another, or `global`): memories
        that contradict or duplicate each other, vague descriptions, stale memories to archive. Use it when asked to
        tidy or review the store's memories, or when two memories you read seem to say one thing or to disagree. The
        gardener matches words, not meaning, so some proposals are wrong: read both memories (each with its
        description and the start of its body), decide, then make one of the calls it gives: `supersede`
        (memory_write keeping the newer, replacing the older), `rewrite` (memory_write with a description an agent
        can act on), `archive` (memory_archive), or `dismiss` (gardener_dismiss, saying why it is fine as it is: it is
        not proposed again while both memories stay as they are). `groups` counts each kind; `kind` lists one;
        `limit` (at most 50) and `offset` page through them."""
        from indexer import gardener  # here: the one tool that reads the gardener's proposals

        where = project or session_project
        if not where or not 1 <= limit <= 50 or offset < 0:
            raise ToolError("give `project` (this session has none), limit from 1 to 50 and offset 0 or more")
        conn = known(index(), where)
        rows = [r for r in _read(lambda: gardener.proposals(conn)) if (r["project"] or "global") == scope_of(where)]
        rows = [r for r in rows if r["proposal"] in ANSWERABLE]
        groups = {p: n for p in ANSWERABLE if (n := sum(r["proposal"] == p for r in rows))}
        rows = [r for r in rows if kind in (None, r["proposal"])]
        memories = {
            m["id"]: m for m in queries.rows(conn, _MEMORIES, (json.dumps([i for r in rows for i in r["ids"]]),))
        }
        page = [_for_agent(r, [memories[i] for i in r["ids"]]) for r in rows[offset : offset + limit]]
        more = offset + limit < len(rows)
        return {"project": scope_of(where), "groups": groups, "total": len(rows), "proposals": page,
                "next_offset": offset + limit if more else None}  # fmt: skip

    @server.tool()
    def gardener_dismiss(kind: str, ids: list[str], why: str) -> dict:
        """Dismiss one of the gardener's proposals (its kind and ids, as gardener_proposals lists it) that is wrong or
        not worth acting on, saying why in one line: kept in the store (gardener/dismissed.jsonl, in git), it is not
        proposed again while its memories keep their `updated`. Dismissing one twice changes nothing."""
        from indexer.edit import gardener_acts  # here: as the gardener, imported by the tools that use it

        by = os.environ.get("SEAMLESS_MODEL") or "an agent (seamless mcp)"
        return call(gardener_acts.dismiss, kind, ids, why, by=by)

    @server.tool()
    def history(memory: str, project: str | None = None) -> list[dict]:
        """A memory's supersession chain (memory: an id or a name), oldest first, with its current truth."""
        conn = known(index(), project)
        try:
            return _read(lambda: queries.history_chain(conn, memory, project))
        except queries.ChainNotFound as e:
            if project or not session_project:
                raise ToolError(str(e)) from None
        try:  # a name in several projects: the session's
            return _read(lambda: queries.history_chain(conn, memory, session_project))
        except queries.ChainNotFound as e:
            raise ToolError(str(e)) from None

    return server


BODY_CHARS = 600  # of each memory's body that gardener_proposals gives
_MEMORIES = """select id, name, kind, description, project, updated, body from memories
    where id in (select value from json_each(?))"""


def scope_of(project: str) -> str:
    return rules.scope(project) or "global"


def _for_agent(row: dict, memories: list[dict]) -> dict:
    """A proposal as an agent works it: its memories, oldest first, each body cut to BODY_CHARS (saying so), and the
    exact calls that answer it."""
    for m in memories:
        body = m["body"] or ""
        m["body"] = body if len(body) <= BODY_CHARS else f"{body[:BODY_CHARS]}… [cut: {len(body):,} characters in all]"
        m["project"] = m["project"] or "global"
    oldest, newest = memories[0], memories[-1]
    actions: dict[str, dict] = {}
    if row["proposal"] in ("duplicate", "contradiction"):
        keep = {key: newest[key] for key in ("kind", "name", "description", "project")}
        actions["supersede"] = _call("memory_write", **keep, supersedes=oldest["id"])
    elif row["proposal"] == "vague-description":
        said = "<what an agent needs to act on it>"
        actions["rewrite"] = _call("memory_write", kind=oldest["kind"], name=oldest["name"], description=said,
                                   project=oldest["project"])  # fmt: skip
    else:
        actions["archive"] = _call("memory_archive", memory=oldest["id"], project=oldest["project"])
    actions["dismiss"] = _call("gardener_dismiss", kind=row["proposal"], ids=row["ids"], why="<why it stays as it is>")
    return {"proposal": row["proposal"], "reason": row["reason"], "ids": row["ids"], "memories": memories,
            "actions": actions}  # fmt: skip


def _call(tool: str, **arguments) -> dict:
    return {"tool": tool, "arguments": arguments}


def known(conn: sqlite3.Connection, project: str | None) -> sqlite3.Connection:
    """`conn`, once `project` (when a read names one) is found to be the store's; a tool error saying it is not."""
    said = _read(lambda: projects.unknown(conn, project))
    if said:
        raise ToolError(f"unknown-project: the store {said} `global` reads the global memories alone")
    return conn


def _time(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return normalize(value)
    except ValueError as e:
        raise ToolError(str(e)) from None


def _read(query):
    try:
        return query()
    except sqlite3.DatabaseError as e:
        raise ToolError(f"cannot read the index: {e}") from None


def serve(store: Path | str, db_path: str | Path, project: str | None = None) -> None:
    """Run the server on standard input and output until the client closes them."""
    build_server(store, db_path, project).run("stdio")
