"""`seamless mcp` through the official MCP client over stdio: the tools of SPEC 8, refusals as tool errors,
nothing but JSON-RPC on standard output."""

import json
import re
import subprocess
import sys
from contextlib import asynccontextmanager

import pytest
from gitstores import git, isolate
from gitstores import init as git_init
from stores import seamless_command

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOOLS = {
    "memory_write": {"kind", "name", "description", "body", "project", "tags", "supersedes", "new_project"},
    "memory_append": {"memory", "text", "project"},
    "memory_archive": {"memory", "project"},
    "memory_delete": {"memory", "project"},
    "note_write": {"title", "body", "project", "tags", "new_project"},
    "briefing": {"project", "as_of", "budget", "max_chars"},
    "recall": {"query", "project", "limit", "as_of", "all"},
    "history": {"memory", "project"},
    "gardener_proposals": {"project", "kind", "limit", "offset"},
    "gardener_dismiss": {"kind", "ids", "why"},
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
        assert (replaced["superseded_name"], replaced["name"]) == ("chroma-port", "chroma-port")  # old, and new
        await call(session, "memory_append", memory="boot-race", text="Seen again on CI.")
        note = await call(session, "note_write", title="Port survey", body="# Ports\n\n8000 was taken.")
        chain = await call(session, "history", memory="chroma-port")
        assert [r["id"] for r in chain] == [replaced["superseded"], replaced["id"]]
        briefing = await call(session, "briefing", project="seamless")
        assert f"- [gotcha] boot-race ({new['id']}): Boot race: wait\n" in briefing
        assert "] no-secrets (" in briefing and f"] chroma-port ({replaced['id']}): " in briefing
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


async def test_a_project_the_store_does_not_have_is_refused_unless_new_project_says_it_is_meant(briefed):
    """Writes and reads that name a project the store has no memory or note of say so, with the closest; a write
    with new_project: true begins it. A session's own project may be new: reads that do not name it still answer."""
    before = sorted(p.read_bytes() for p in briefed.root.rglob("*.md"))
    async with connected(briefed, "--project", "tidepool") as session:
        for tool, arguments in [
            ("memory_write", {"kind": "gotcha", "name": "a-b", "description": "A b"}),  # the session's project
            ("note_write", {"title": "Ports", "body": "8000", "project": "tidepool"}),
        ]:
            text = await refused(session, tool, **arguments)
            assert text.endswith(
                "unknown-project: the store has no project 'tidepool'. Its projects: console, seamless. To begin "
                "'tidepool', add --new-project (MCP: new_project: true); nothing was written"
            ), text
        assert sorted(p.read_bytes() for p in briefed.root.rglob("*.md")) == before
        for tool, arguments in [
            ("briefing", {"project": "seamles"}),
            ("recall", {"query": "chroma", "project": "seamles"}),
            ("history", {"memory": "chroma-port", "project": "seamles"}),
        ]:
            text = await refused(session, tool, **arguments)
            assert "the store has no project 'seamles': did you mean 'seamless'?" in text, (tool, text)
        assert await call(session, "recall", query="secrets")  # the new session project, not named: global answers
        new = await call(session, "memory_write", kind="gotcha", name="a-b", description="A b", new_project=True)
        assert new["path"] == "memories/tidepool/a-b.md"
        assert (await call(session, "note_write", title="Ports", body="8000"))["path"] == "notes/tidepool/ports.md"
        assert "a-b" in await call(session, "briefing", project="tidepool")


async def test_a_session_scoped_to_a_project_writes_only_to_it_and_to_global(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    git_init(store.root)
    theirs = store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")  # of `seamless`
    store.memory("tide-table", project="tidepool", description="Tides come from the harbour table")
    git(store.root, "add", "-A")
    git(store.root, "commit", "-q", "-m", "two projects")
    store.index()
    head, before = git(store.root, "rev-parse", "HEAD"), sorted(p.read_bytes() for p in store.root.rglob("*.md"))
    env = {"GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
    async with connected(store, "--project", "tidepool", env=env) as session:
        for tool, arguments in [
            ("memory_write", {"kind": "gotcha", "name": "a-b", "description": "A b", "project": "seamless"}),
            ("memory_write", {"kind": "gotcha", "name": "a-b", "description": "A b", "project": "brand-new"}),
            ("note_write", {"title": "Ports", "body": "8000", "project": "seamless"}),
            # a memory of another project named by its id, whatever the project the call gives
            ("memory_write", {"kind": "decision", "name": "chroma-port", "description": "On 8001",
                              "supersedes": theirs["id"]}),
            ("memory_append", {"memory": theirs["id"], "text": "More."}),
            ("memory_archive", {"memory": theirs["id"], "project": "global"}),
            ("memory_delete", {"memory": theirs["id"]}),
        ]:  # fmt: skip
            text = await refused(session, tool, **arguments)
            assert "outside-session: " in text, (tool, text)
            assert "this session writes only to its project 'tidepool' and to global" in text
            assert "nothing was written" in text and ("'seamless'" in text or "'brand-new'" in text)
        # by name, a memory of another project is not this session's to find
        assert "unknown-memory" in await refused(session, "memory_append", memory="chroma-port", text="More.")
        assert git(store.root, "rev-parse", "HEAD") == head
        assert sorted(p.read_bytes() for p in store.root.rglob("*.md")) == before
        own = await call(session, "memory_write", kind="gotcha", name="neap-tides", description="Neap tides are low")
        shared = await call(session, "memory_write", kind="gotcha", name="utc-only", description="Log in UTC only",
                            project="global")  # fmt: skip
        appended = await call(session, "memory_append", memory="tide-table", text="Checked again.")
    assert (own["project"], shared["project"], appended["project"]) == ("tidepool", None, "tidepool")
    subjects = git(store.root, "log", "--format=%s", f"{head.strip()}..HEAD").splitlines()
    # the three writes, after the set-up commit of the store's merge driver that a clone's first write makes
    assert len(subjects) == 4 and subjects[-1].startswith("seamless git-setup:")


async def test_an_agent_works_the_gardeners_queue_of_its_project(store):
    """An agent reads each proposal of its session's project with both memories, acts on one with the call given,
    and dismisses another: it is not listed again, and another project's proposals are not its to dismiss."""
    store.write("seamless.toml", "[gardener]\nduplicates = true\n")
    long = "Found when the night's backfill ran twice. " * 40
    store.memory("queue-a", description="Backfills run at night through the batch queue", body=long)
    store.memory(
        "queue-b", description="Backfills run at night through the batch queue", updated="2026-07-12T18:00:00Z"
    )
    store.memory("old-stage", kind="stage", body="Status: done\n\nShipped.")
    store.memory("old-tide", kind="stage", project="tidepool", body="Status: done\n\nShipped.")
    store.index()
    async with connected(store, "--project", "seamless", env={"SEAMLESS_MODEL": "claude-fable-5"}) as session:
        found = await call(session, "gardener_proposals")
        assert (found["project"], found["groups"], found["total"]) == ("seamless", {"duplicate": 1, "archive": 1}, 2)
        duplicate, archive = found["proposals"]
        older, newer = duplicate["memories"]
        assert (older["name"], newer["name"]) == ("queue-a", "queue-b") and duplicate["ids"] == [
            older["id"],
            newer["id"],
        ]
        ((whole,),) = store.rows("select length(body) from memories where name = 'queue-a'")
        assert older["body"].endswith(f"… [cut: {whole:,} characters in all]") and len(older["body"]) < 700
        assert duplicate["actions"]["supersede"] == {
            "tool": "memory_write",
            "arguments": {"kind": "gotcha", "name": "queue-b", "description": newer["description"],
                          "project": "seamless", "supersedes": older["id"]},
        }  # fmt: skip
        assert archive["actions"]["archive"]["arguments"]["memory"] == archive["ids"][0]
        dismiss = duplicate["actions"]["dismiss"]
        assert dismiss["tool"] == "gardener_dismiss" and dismiss["arguments"]["ids"] == duplicate["ids"]
        done = await call(session, "gardener_dismiss", **dismiss["arguments"] | {"why": "two queues, one word"})
        assert (done["action"], done["count"]) == ("dismissed", 1)
        again = await call(session, "gardener_dismiss", **dismiss["arguments"] | {"why": "two queues, one word"})
        assert again["action"] == "unchanged"
        await call(session, archive["actions"]["archive"]["tool"], **archive["actions"]["archive"]["arguments"])
        assert (await call(session, "gardener_proposals"))["total"] == 0
        theirs = (await call(session, "gardener_proposals", project="tidepool"))["proposals"][0]
        text = await refused(session, "gardener_dismiss", kind="archive", ids=theirs["ids"], why="not mine")
        assert "outside-session" in text
    (line,) = (store.root / "gardener/dismissed.jsonl").read_text().splitlines()
    assert json.loads(line)["by"] == "claude-fable-5"


async def test_the_briefing_is_the_hooks_markdown_with_ids_within_max_chars(store):
    for n in range(140):  # 80 constraints: pinned, in the briefing whatever its budget, and far over 9000 characters
        store.memory(f"rule-{n:03d}", kind="constraint" if n < 80 else "gotcha", description=f"Rule {n}: " + "x " * 50)
    store.index()
    async with connected(store, "--project", "seamless") as session:
        text = await call(session, "briefing", project="seamless")
        assert len(text) <= 9000 and text.startswith("# Briefing: seamless\n")
        shown = re.findall(r"^- \[\w+\] (rule-\d+) \((\w{26})\): ", text, re.MULTILINE)
        assert shown and all(store.rows("select 1 from memories where id = ? and name = ?", (i, n)) for n, i in shown)
        left = re.search(
            r"\n(\d+) of (\d+) memories left out to stay within 9000 characters \((\d+) of them pinned\): "
            r"`briefing\(project='seamless', max_chars=(\d+)\)` shows them all\.\n$",
            text,
        )
        assert left and int(left[1]) == int(left[2]) - len(shown) and int(left[3]) == 80 - len(shown)
        whole = await call(session, "briefing", project="seamless", max_chars=int(left[4]))
        assert len(whole) == int(left[4]) and len(re.findall(r"^- \[", whole, re.MULTILINE)) == int(left[2])
        assert "max_chars is 100" in await refused(session, "briefing", project="seamless", max_chars=100)


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
            "params": {
                "name": "memory_write",
                "arguments": {"kind": "gotcha", "name": "a-b", "description": "A b", "new_project": True},
            },
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


def test_a_server_with_no_store_says_how_to_give_it_one(tmp_path):
    done = subprocess.run(
        seamless_command("mcp", "--project", "tidepool"), capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "no store: give STORE, or set SEAMLESS_STORE (`seamless init DIR --store STORE` puts it" in done.stderr
