"""`seamless mcp` through the official MCP client over stdio: the tools of SPEC 8, refusals as tool errors,
nothing but JSON-RPC on standard output."""

import json
import subprocess
import sys
from contextlib import asynccontextmanager

import pytest
from stores import seamless_command

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOOLS = {
    "memory_write": {"kind", "name", "description", "body", "project", "tags", "supersedes"},
    "memory_append": {"memory", "text", "project"},
    "memory_archive": {"memory", "project"},
    "memory_delete": {"memory", "project"},
    "note_write": {"title", "body", "project", "tags"},
    "briefing": {"project", "as_of", "budget"},
    "recall": {"query", "project", "limit", "as_of", "all"},
    "history": {"memory", "project"},
}


@asynccontextmanager
async def connected(store, *options, env=None):
    """A client session with `seamless mcp STORE --db DB OPTIONS` started as a child process."""
    command, *args = seamless_command("mcp", store.root, "--db", store.db_path, *options)
    params = StdioServerParameters(command=command, args=args, env=env or {})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session, tool: str, **arguments):
    """A tool's result as the JSON it carries; a tool error raises AssertionError with its text."""
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text if result.content else ""
    assert not result.is_error, text
    if result.structured_content is not None:
        return result.structured_content.get("result", result.structured_content)
    return json.loads(text)


async def refused(session, tool: str, **arguments) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text


async def test_an_agent_session_writes_supersedes_appends_and_reads_back(store):
    store.memory("no-secrets", kind="constraint", project=None, description="Never put secrets in a memory")
    store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    async with connected(store, "--project", "seamless", env={"SEAMLESS_MODEL": "claude-fable-5"}) as session:
        new = await call(session, "memory_write", kind="gotcha", name="boot-race", description="Boot race: wait")
        assert (new["project"], new["status"], new["path"]) == ("seamless", "active", "memories/seamless/boot-race.md")
        replaced = await call(
            session,
            "memory_write",
            kind="decision",
            name="chroma-port",
            description="Chroma listens on 8001",
            supersedes="chroma-port",
            tags=["chroma"],
        )
        assert replaced["action"] == "superseded" and replaced["superseded"]
        await call(session, "memory_append", memory="boot-race", text="Seen again on CI.")
        note = await call(session, "note_write", title="Port survey", body="# Ports\n\n8000 was taken.")
        chain = await call(session, "history", memory="chroma-port")
        assert [r["id"] for r in chain] == [replaced["superseded"], replaced["id"]]
        briefing = await call(session, "briefing", project="seamless")
        assert {r["name"] for r in briefing} >= {"no-secrets", "boot-race", "chroma-port"}
        found = await call(session, "recall", query="ports")
        assert note["id"] in {r["id"] for r in found}
        await call(session, "memory_archive", memory="boot-race")
        gone = await call(session, "memory_delete", memory=new["id"])
        assert gone["status"] == "deleted"
    record = store.rows("select model, body from memories where id = ?", (replaced["id"],))
    assert record == [("claude-fable-5", "")]
    assert not (store.root / new["path"]).exists()


async def test_the_tools_are_the_specs_and_refused_writes_are_tool_errors_that_write_nothing(store):
    store.memory("chroma-port", invalid_at="2026-07-11T00:00:00Z")
    before = sorted(p.read_bytes() for p in store.root.rglob("*.md"))
    async with connected(store) as session:  # no --project, no SEAMLESS_PROJECT: fail closed
        tools = {t.name: set(t.input_schema["properties"]) for t in (await session.list_tools()).tools}
        assert tools == TOOLS
        text = await refused(session, "memory_write", kind="gotcha", name="boot-race", description="x")
        assert "ambiguous-scope" in text
        text = await refused(session, "memory_write", kind="fact", name="x", description="x", project="seamless")
        assert "unknown-kind" in text
        text = await refused(session, "memory_append", memory="chroma-port", text="more", project="seamless")
        assert "unknown-memory" in text and "inactive ones" in text
        text = await refused(session, "note_write", title="T", body="b")
        assert "ambiguous-scope" in text
        still = await call(session, "recall", query="chroma")  # the server is still serving
    assert still == [] and sorted(p.read_bytes() for p in store.root.rglob("*.md")) == before


def test_standard_output_carries_only_json_rpc(store):
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "memory_write", "arguments": {"kind": "gotcha", "name": "a-b", "description": "A b"}},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": "b"}}},
    ]
    process = subprocess.Popen(
        seamless_command("mcp", store.root, "--db", store.db_path, "--project", "seamless"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)},
    )
    lines = []
    try:
        for message in messages:  # each request is answered before the next is sent
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            while "id" in message:
                lines.append(process.stdout.readline())
                assert lines[-1], "the server closed its output"
                if json.loads(lines[-1]).get("id") == message["id"]:
                    break
    finally:
        process.stdin.close()
        lines += process.stdout.read().splitlines()
        process.wait(timeout=30)
    lines = [line for line in lines if line.strip()]
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in lines), lines
    replies = {json.loads(line).get("id"): json.loads(line) for line in lines}
    assert {1, 2, 3} <= set(replies) and not replies[2]["result"].get("isError")
    assert (store.root / "memories/seamless/a-b.md").exists()
