"""`seamless mcp`: the write path and the read queries as MCP tools over stdio, for agents.

Each tool calls the same library function as the matching CLI command and returns the fields of its
`--json` output. A refused write is a tool error (the refusal's code and sentence), never a crash.
The SDK keeps standard output for JSON-RPC alone while it serves.
"""

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from indexer.edit import store_write
from indexer.edit.write_input import WriteRefused
from indexer.front.hook import MAX_CHARS, MIN_CHARS
from indexer.query import projects, queries
from indexer.query.briefing_text import briefing_markdown, briefing_within
from indexer.sqlite import sqlite3
from indexer.store.timestamps import normalize

INSTRUCTIONS = """A Seamless memory store: durable knowledge for agents, one markdown file per memory.
Read with briefing (before starting work), recall (ask it in plain words) and history (a memory's supersession
chain).
Write with memory_write (a new memory; the same name updates it in place; `supersedes` replaces a memory
that stopped being true), memory_append, memory_archive, memory_delete (only for what was never true) and
note_write (long artifacts). Writes without a project land in this session's project; a session with a project
writes only to it and to global (project "global"). A project the store has no memory or note of is refused as a
likely typo, naming the closest; new_project: true begins one on purpose."""


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
