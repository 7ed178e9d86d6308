"""docs/sync.md's example, "Try it on one machine", run as it is written: its commands succeed, each sync prints
the line its comment says, and the two clones end with the same files."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fleet import Host, git, isolate_git, markers
from fleet import fleet as fleet_of

DOC = Path(__file__).resolve().parent.parent / "docs" / "sync.md"


def example() -> str:
    text = DOC.read_text()
    section = text[text.index("### Try it on one machine") :]
    return re.search(r"^```sh\n(.*?)^```", section, re.DOTALL | re.MULTILINE).group(1)


def test_the_fleet_example_runs_as_written(tmp_path, monkeypatch):
    isolate_git(monkeypatch, tmp_path)  # and no user.name: seamless names itself in its commits
    block = example()
    fleet = tmp_path / "fleet"
    env = {**os.environ, "FLEET": str(fleet), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", "-c", block], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [line.split("# ", 1)[1] for line in block.splitlines() if line.startswith("seamless sync")]
    printed = [line for line in done.stderr.splitlines() if line.startswith("sync: ")]
    assert printed == said
    result = next(json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"pulled"'))
    assert [c["rule"] for c in result["conflicts_resolved"]] == ["appends"]
    recall = [line for line in done.stdout.splitlines() if line.startswith("1. ")]
    assert (
        recall
        and "chroma-boot-race" in recall[0]
        and not any(line.startswith("2. ") for line in done.stdout.splitlines())
    )
    files = [
        {p.relative_to(fleet / host).as_posix(): p.read_bytes() for p in (fleet / host / "memories").rglob("*.md")}
        for host in ("laptop", "ci")
    ]
    assert files[0] == files[1]
    (body,) = files[0].values()
    assert b"Also on the laptop." in body and b"Also on CI." in body


# "Git commands without `seamless sync`": every command of the table, run as it is written on a host whose
# commits and the remote's both changed the store in the three ways git's own merge cannot settle alone


def git_commands() -> list[tuple[list[str], bool]]:
    """The table's rows: the commands of each (as written) and whether it says they are safe."""
    text = DOC.read_text()
    section = text[text.index("## Git commands without `seamless sync`") :]
    section = section[: section.index("\n## ")] if "\n## " in section else section
    rows = []
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows.append((re.findall(r"`([^`]+)`", cells[0]), {"yes": True, "no": False}[cells[1]]))
    return rows


def after_an_unsafe_one() -> tuple[str, str]:
    """What the page says to run after a command that was not safe: the aborts, before `seamless sync`."""
    found = re.search(r"After one that was not safe: `([^`]+)` \(or `([^`]+)`\), then `seamless sync`", DOC.read_text())
    assert found, "docs/sync.md no longer says what to run after an unsafe command"
    return found.group(1), found.group(2)


@pytest.fixture(scope="module")
def diverged(tmp_path_factory):
    """Two hosts, then on each: a supersede of one memory, a memory written at one name, and a third memory
    deleted on a and appended to on b. a has synced; b has only committed (each write is a commit).

    Both hosts first write `chroma-port` and `queue-lock`, a first: after the add/add a's memories keep the names
    on both hosts (created earlier, or in the same second with the smaller id: docs/sync.md, rule 4), so the memory b
    supersedes and appends to by name is the one a superseded and deleted."""
    folder = tmp_path_factory.mktemp("diverged")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate_git(monkeypatch, folder)
        a, b = fleet_of(folder)
        first = {}
        for host in (a, b):
            first[host.name] = [
                host.write("chroma-port", "Chroma listens on 8000").id,
                host.write("queue-lock", "The queue lock is held across restarts").id,
            ]
            host.sync()
        a.write("chroma-port-8001", "Chroma listens on 8001", supersedes="chroma-port")
        a.write("redis-port", "Redis listens on 6379")
        a.delete("queue-lock")
        a.sync()
        replaced = b.write("chroma-port-9000", "Chroma listens on 9000", supersedes="chroma-port")
        b.write("redis-port", "Redis listens on 6380")
        appended = b.append("queue-lock", "Still held on b.")
        assert [replaced.superseded, appended.id] == first["a"]  # the memories a superseded and deleted
    return folder


def copy_of(diverged: Path, folder: Path, monkeypatch):
    """A copy of the diverged fleet in `folder` (its own remote; the indexes left to be rebuilt)."""
    shutil.copytree(diverged, folder, ignore=shutil.ignore_patterns("*.db*"))
    isolate_git(monkeypatch, folder)
    hosts = []
    for name in ("a", "b"):
        host = Host.__new__(Host)
        host.name, host.top, host.store, host.db = name, folder / name, folder / name, folder / f"{name}.db"
        git(host.top, "remote", "set-url", "origin", str(folder / "remote.git"))
        hosts.append(host)
    return hosts


@pytest.mark.parametrize("row", range(len(git_commands())))
def test_each_git_command_does_what_the_page_says(diverged, tmp_path, monkeypatch, row):
    commands, safe = git_commands()[row]
    a, b = copy_of(diverged, tmp_path / "fleet", monkeypatch)
    files, head, remote = b.files(), git(b.top, "rev-parse", "HEAD"), git(a.top, "ls-remote", "origin")
    if any("origin/main" in command for command in commands):
        git(b.top, "fetch", "-q")  # a merge of the remote-tracking branch: fetched first, as `git fetch` is safe
    for command in commands:
        done = subprocess.run(["git", "-C", str(b.top), *shlex.split(command)[1:]], capture_output=True, text=True)
        said = done.stdout + done.stderr
        if safe:  # nothing of the store changes, nothing is left half done; a refusal says why
            assert b.files() == files and git(b.top, "rev-parse", "HEAD") == head, command
            assert markers(b.files()) == [] and not b.merging() and not (b.top / ".git/rebase-merge").exists()
            assert git(a.top, "ls-remote", "origin") == remote, command
            assert done.returncode == 0 or "Not possible to fast-forward" in said or "[rejected]" in said, said
        else:  # the memory both wrote at one name gets markers; the merge or rebase stops half way
            assert done.returncode != 0, command
            assert "memories/fleet/redis-port.md" in markers(b.files()), said
            assert b.merging() or (b.top / ".git/rebase-merge").exists(), said
            assert "memories/fleet/chroma-port.md" not in markers(b.files())  # the driver merged the supersedes
            abort = after_an_unsafe_one()[0 if b.merging() else 1]
            run = subprocess.run(["git", "-C", str(b.top), *shlex.split(abort)[1:]], capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
    # whatever ran, `seamless sync` then shares everything by the store's rules
    b.sync()
    a.sync()
    assert a.files() == b.files() and markers(a.files()) == []
    assert b"Still held on b." in a.files()["memories/fleet/queue-lock.md"]  # rule 3: deleted and edited, kept
    assert {"memories/fleet/redis-port.md", "memories/fleet/redis-port-2.md"} <= set(a.files())  # rule 4
