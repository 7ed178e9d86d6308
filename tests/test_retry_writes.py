"""A retried write is not applied twice (SPEC 11): through the official MCP client, each tool called twice, and
through the command line. The second call answers `unchanged` with the memory's id and touches no file; it
commits what a first call killed before its commit left uncommitted."""

import json
import os

import pytest
from click.testing import CliRunner
from gitstores import git, isolate
from gitstores import init as git_init
from stores import seamless
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


def test_a_retry_commits_what_a_run_killed_before_its_commit_wrote(store, tmp_path, monkeypatch):
    """kill -9 after the files are written and before the commit; the same command again answers `unchanged`
    and makes the commit the killed run did not, with its message; when all is committed, it makes none."""
    isolate(monkeypatch, tmp_path)
    git_init(store.root)
    old = store.memory("chroma-port", kind="decision", description="Chroma listens on 8000")
    git(store.root, "add", "-A")
    git(store.root, "commit", "-q", "-m", "first")
    store.index()
    write = ["write", store.root, "--project", "seamless", "--kind", "gotcha", "--name", "boot-race"]
    write += ["--description", "Boot race: wait for the port", "--db", store.db_path, "--json"]
    supersede = ["write", store.root, "--project", "seamless", "--kind", "decision", "--name", "chroma-port-8001"]
    supersede += ["--description", "Chroma listens on 8001", "--supersedes", old["id"], "--db", store.db_path, "--json"]
    note = ["note", store.root, "--project", "seamless", "--title", "Port survey", "--body", "8000 was taken."]
    note += ["--db", store.db_path, "--json"]
    for command, step, subject in [
        (write, "replacement", "write boot-race ({id})"),
        (supersede, "stamped", "supersede chroma-port -> chroma-port-8001 ({id})"),
        (note, "replacement", "note Port survey ({id})"),
    ]:
        killed = seamless(*command, env={**os.environ, "SEAMLESS_WRITE_KILL_AFTER": step})
        assert killed.returncode == -9, killed.stderr
        assert git(store.root, "status", "--porcelain", "--untracked-files=all")  # written, not committed
        retried = seamless(*command)
        assert retried.returncode == 0, retried.stderr
        answer = json.loads(retried.stdout)
        assert answer["action"] == "unchanged" and answer["commit"] == git(store.root, "rev-parse", "HEAD").strip()
        assert git(store.root, "status", "--porcelain", "--untracked-files=all") == ""
        assert git(store.root, "log", "-1", "--format=%s") == subject.format(id=answer["id"]) + "\n"
        again = json.loads(seamless(*command).stdout)  # all committed: no commit of its own
        assert again["action"] == "unchanged" and "commit" not in again
    # the first commit, the driver's set-up (a clone's first write registers it) and one commit per command
    subjects = git(store.root, "log", "--format=%s").splitlines()
    assert subjects[-2:] == ["seamless git-setup: merge memories and notes field by field", "first"]
    assert len(subjects) == 5
