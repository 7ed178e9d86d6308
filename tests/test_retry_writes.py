"""A retried write is not applied twice (SPEC 11): through the official MCP client, each tool called twice, and
through the command line. The second call answers `unchanged` with the memory's id and touches no file."""

import json

import pytest
from click.testing import CliRunner
from test_mcp import call, connected

from indexer.front.cli import cli

pytest.importorskip("mcp")


def snapshot(store) -> dict[str, tuple[bytes, int]]:
    """Every file of the store: its bytes and its mtime (a rewrite with the same bytes still moves the mtime)."""
    return {
        p.relative_to(store.root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in store.root.rglob("*.md")
    }


async def test_each_write_tool_called_twice_writes_once(store):
    store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    store.memory("redis-port", kind="decision", description="Redis listens on 6379")
    store.memory("queue-port", kind="decision", description="The queue listens on 5672")
    store.index()
    async with connected(store, "--project", "seamless") as session:

        async def twice(tool, **arguments):
            first = await call(session, tool, **arguments)
            files = snapshot(store)
            second = await call(session, tool, **arguments)
            assert snapshot(store) == files, f"the retried {tool} touched a file"
            assert second["action"] == "unchanged" and second["id"] == first["id"], second
            return first, second

        # a write: new, then the same again (tags in another order, the body with CRLF and no final newline)
        first = await call(
            session, "memory_write", kind="gotcha", name="boot-race", description="Boot race: wait", tags=["a", "b"],
            body="Wait for the port.\n",
        )  # fmt: skip
        files = snapshot(store)
        again = await call(
            session, "memory_write", kind="gotcha", name="boot-race", description="Boot race: wait", tags=["b", "a"],
            body="Wait for the port.",
        )  # fmt: skip
        assert (again["action"], again["id"], again["path"]) == ("unchanged", first["id"], first["path"])
        assert snapshot(store) == files
        # a supersede by name whose replacement took the old memory's name
        done, retried = await twice(
            "memory_write", kind="decision", name="chroma-port", description="Chroma listens on 8001",
            supersedes="chroma-port",
        )  # fmt: skip
        assert done["action"] == "superseded" and retried["superseded"] == done["superseded"]
        # a supersede by id, to another name
        redis = store.rows("select id from memories where name = 'redis-port'")[0][0]
        done, retried = await twice(
            "memory_write", kind="decision", name="redis-port-6380", description="Redis listens on 6380",
            supersedes=redis,
        )  # fmt: skip
        assert done["superseded"] == retried["superseded"] == redis
        # a supersede by name, to another name
        await twice(
            "memory_write", kind="decision", name="queue-port-5673", description="The queue listens on 5673",
            supersedes="queue-port",
        )  # fmt: skip
        # a note
        await twice("note_write", title="Port survey", body="# Ports\n\n8000 was taken.", tags=["ports"])
        # what differs is written: a new body updates in place, another note body is a new note
        changed = await call(
            session, "memory_write", kind="gotcha", name="boot-race", description="Boot race: wait", body="Retry."
        )
        assert (changed["action"], changed["id"]) == ("updated", first["id"])
        other = await call(session, "note_write", title="Port survey", body="# Ports\n\n8001 is free.")
        assert other["action"] == "noted" and other["id"] != done["id"]
    names = store.rows("select name, status from memories order by name, status")
    assert names == [
        ("boot-race", "active"),
        ("chroma-port", "active"),
        ("chroma-port", "superseded"),
        ("queue-port", "superseded"),
        ("queue-port-5673", "active"),
        ("redis-port", "superseded"),
        ("redis-port-6380", "active"),
    ]
    assert len(store.rows("select 1 from notes")) == 2


def cli_write(store, *args):
    result = CliRunner().invoke(
        cli, ["write", str(store.root), "--project", "seamless", *args, "--json", "--db", str(store.db_path)], env={}
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_command_line_answers_a_retry_unchanged_and_writes_nothing(store):
    old = store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    store.index()
    args = ["--kind", "decision", "--name", "chroma-port", "--description", "Chroma listens on 8001"]
    done = cli_write(store, *args, "--supersedes", old["id"], "--tag", "chroma", "--body", "Moved.\r\n")
    files = snapshot(store)
    again = cli_write(store, *args, "--supersedes", old["id"], "--tag", "chroma", "--body", "Moved.")
    assert (again["action"], again["id"], again["superseded"]) == ("unchanged", done["id"], old["id"])
    assert snapshot(store) == files
    text = CliRunner().invoke(
        cli, ["write", str(store.root), "--project", "seamless", *args, "--db", str(store.db_path)], env={}
    )
    assert text.exit_code == 0 and text.output.startswith(f"unchanged {done['id']} ")
    assert "nothing was written" in text.output and snapshot(store) == files
    # a write that says something else is applied: another description updates in place
    updated = cli_write(store, "--kind", "decision", "--name", "chroma-port", "--description", "Chroma on 8001")
    assert (updated["action"], updated["id"]) == ("updated", done["id"])


def test_a_supersede_of_a_name_that_now_means_another_memory_is_not_a_retry(store):
    """chroma-port was superseded by chroma-port-8001; a new chroma-port since then is superseded for real."""
    store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    store.index()
    args = ["--kind", "decision", "--name", "chroma-port-8001", "--description", "Chroma listens on 8001"]
    first = cli_write(store, *args, "--supersedes", "chroma-port")
    newer = cli_write(store, "--kind", "decision", "--name", "chroma-port", "--description", "Chroma is back on 8000")
    assert newer["action"] == "created"
    second = cli_write(store, *args, "--supersedes", "chroma-port")
    assert (second["action"], second["id"], second["superseded"]) == ("superseded", first["id"], newer["id"])
    assert store.rows("select status from memories where id = ?", (newer["id"],)) == [("superseded",)]
