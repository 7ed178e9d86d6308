"""docs/sync.md's example, "Try it on one machine", run as it is written: its commands succeed, each sync prints
the line its comment says, and the two clones end with the same files."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from fleet import isolate_git

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
