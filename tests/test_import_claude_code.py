"""`seamless import claude-code` (SPEC 11) on fixtures in Claude Code's auto-memory format: MEMORY.md's index lines
and topic files with `name`, `description` and `type` frontmatter, through the write path; idempotent; a file it
cannot read listed with the reason while the others are imported."""

import json
import os
import shutil

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from gitstores import git, isolate
from gitstores import init as git_init
from stores import seamless

from indexer.front.cli import cli
from indexer.store.claude_code import cut_description, kebab
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record

MEMORY = FIXTURES / "claude-code" / "memory"
UNREADABLE = FIXTURES / "claude-code" / "unreadable"
EXPECTED = {  # file: (name, kind)
    "user_role.md": ("user-role", "protocol"),
    "feedback_testing.md": ("testing-preferences", "protocol"),
    "feedback_terse_replies.md": ("terse-replies", "protocol"),
    "project_merge_freeze.md": ("merge-freeze", "decision"),
    "reference_linear.md": ("pipeline-bugs-in-linear", "reference"),
}


def run(store, folder, *options, code=0):
    args = ["import", "claude-code", str(folder), "--store", str(store.root), "--project", "acme", "--new-project"]
    result = CliRunner().invoke(cli, [*args, "--db", str(store.db_path), *options], env={"SEAMLESS_PROJECT": None})
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def outcomes(store, folder, *options, code=0) -> dict[str, dict]:
    """Each file's outcome (the warnings about MEMORY.md's lines left aside)."""
    done = json.loads(run(store, folder, "--json", *options, code=code).stdout)
    return {o["file"]: o for o in done if o["action"] != "warning"}


def snapshot(store) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(store.root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in store.root.rglob("*.md")
    }


def record(store, path) -> dict:
    found, problems = memory_record(parse_bytes(path, (store.root / path).read_bytes(), 1 << 22))
    assert found is not None, problems
    return found


@pytest.fixture
def folder(tmp_path):
    copy = tmp_path / "memory"
    shutil.copytree(MEMORY, copy)
    return copy


def test_a_project_the_store_does_not_have_is_refused_before_any_file_is_written(briefed, folder):
    args = ["import", "claude-code", str(folder), "--store", str(briefed.root), "--project", "acmee"]
    before = snapshot(briefed)
    for dry_run in ([], ["--dry-run"]):
        result = CliRunner().invoke(
            cli, [*args, "--db", str(briefed.db_path), *dry_run], env={"SEAMLESS_PROJECT": None}
        )
        assert result.exit_code == 1 and "unknown-project: the store has no project 'acmee'" in result.output
    assert snapshot(briefed) == before


def test_topic_files_become_memories_of_the_mapped_kinds_and_memory_md_a_note(store, folder):
    done = outcomes(store, folder)
    assert {f: (o["name"], o["kind"]) for f, o in done.items() if f != "MEMORY.md"} == EXPECTED
    assert {o["action"] for o in done.values()} == {"created", "noted"}
    for file, (name, kind) in EXPECTED.items():
        memory = record(store, done[file]["path"])
        assert (memory["name"], memory["kind"], memory["project"]) == (name, kind, "acme")
        assert memory["source_session"] == "import/claude-code"
        assert len(memory["description"]) <= 150 and "\n" not in memory["description"]
    testing = record(store, done["feedback_testing.md"]["path"])
    assert testing["description"] == "Integration tests must hit a real database, never mocks"
    assert testing["body"].startswith("Integration tests must hit a real database, not mocks.\n\n**Why:**")
    assert json.loads(testing["tags"]) == ["claude-code", "feedback"]
    # a description over 150 characters: cut at a word and ended with an ellipsis, the whole kept atop the body
    freeze = record(store, done["project_merge_freeze.md"]["path"])
    whole = "Non-critical merges are frozen from 2026-03-05 while the mobile team cuts the release branch; flag any "
    whole += "non-critical PR work scheduled after that date and ask before merging it"
    assert freeze["description"].endswith("…") and whole.startswith(freeze["description"][:-1])
    assert freeze["body"].startswith(whole + "\n\nThe mobile team cuts")
    note = store.rows("select title, project, body, tags from notes")
    assert note == [
        ("Claude Code memory index (MEMORY.md)", "acme", (MEMORY / "MEMORY.md").read_text(), '["claude-code"]')
    ]
    assert store.rows("select count(*) from memories where status = 'active'") == [(5,)]


def test_a_second_run_writes_nothing_and_a_changed_file_is_updated_in_place(store, folder):
    first = outcomes(store, folder)
    before = snapshot(store)
    again = outcomes(store, folder)
    assert {o["action"] for o in again.values()} == {"unchanged"} and snapshot(store) == before
    assert {f: o["id"] for f, o in again.items()} == {f: o["id"] for f, o in first.items()}
    testing = folder / "feedback_testing.md"
    testing.write_text(testing.read_text().replace("never mocks", "never mocks or fakes"))
    index = folder / "MEMORY.md"
    index.write_text(index.read_text() + "- [Oncall](reference_oncall.md) — who is on call\n")
    changed = outcomes(store, folder)
    assert changed["feedback_testing.md"]["action"] == "updated"
    assert changed["feedback_testing.md"]["id"] == first["feedback_testing.md"]["id"]
    assert changed["MEMORY.md"]["action"] == "updated" and changed["MEMORY.md"]["id"] == first["MEMORY.md"]["id"]
    assert changed["MEMORY.md"]["path"] == first["MEMORY.md"]["path"]
    assert [o["reason"] for o in json.loads(run(store, folder, "--json").stdout) if o["action"] == "warning"] == [
        f"the line [Oncall](reference_oncall.md) leads to no file in {folder}"
    ]
    after = snapshot(store)
    assert {p for p in after if after[p] != before[p]} == {
        first["feedback_testing.md"]["path"],
        first["MEMORY.md"]["path"],
    }
    assert record(store, first["feedback_testing.md"]["path"])["description"].endswith("never mocks or fakes")


def test_a_file_it_cannot_read_is_listed_with_its_reason_and_the_rest_are_imported(store, folder):
    for path in UNREADABLE.iterdir():
        shutil.copy(path, folder)
    result = run(store, folder, code=1)
    lines = result.stdout.splitlines()
    assert "bad_yaml.md: skipped: line 3: YAML syntax error" in "\n".join(lines)
    assert "latin1.md: skipped: line 2: not UTF-8 text: byte 0xe9" in "\n".join(lines)
    assert "no_frontmatter.md: skipped: no frontmatter" in "\n".join(lines)
    assert "unknown_type.md: skipped: type 'preference' is not one of user, feedback, project, reference" in lines
    assert result.stderr.strip() == "5 created, 1 noted, 4 skipped"
    assert store.rows("select count(*) from memories") == [(5,)]


def test_dry_run_says_what_it_would_do_and_writes_nothing(store, folder):
    result = run(store, folder, "--dry-run")
    assert "feedback_testing.md: would be created testing-preferences (protocol)" in result.stdout
    assert "MEMORY.md: would be noted" in result.stdout and result.stderr.startswith("dry run, nothing written: ")
    assert snapshot(store) == {}
    run(store, folder)
    (folder / "user_role.md").write_text((folder / "user_role.md").read_text().replace("Go", "Rust"))
    before = snapshot(store)
    planned = outcomes(store, folder, "--dry-run")
    assert planned["user_role.md"]["action"] == "updated" and planned["feedback_testing.md"]["action"] == "unchanged"
    assert snapshot(store) == before


def test_what_it_did_not_write_is_never_overwritten_nor_what_the_store_retired_brought_back(store, folder):
    theirs = store.memory("user-role", project="acme", source_session="cc/someone", description="Theirs")
    store.index()
    done = outcomes(store, folder, code=1)
    assert done["user_role.md"]["action"] == "skipped" and theirs["id"] in done["user_role.md"]["reason"]
    assert record(store, "memories/acme/user-role.md")["description"] == "Theirs"
    archived = done["reference_linear.md"]["id"]
    result = CliRunner().invoke(cli, ["archive", str(store.root), archived, "--db", str(store.db_path)])
    assert result.exit_code == 0, result.output
    again = outcomes(store, folder, code=1)
    assert (
        again["reference_linear.md"]["action"] == "unchanged" and "archived" in again["reference_linear.md"]["reason"]
    )
    assert store.rows("select status from memories where name = 'pipeline-bugs-in-linear'") == [("archived",)]


def test_the_claude_project_folder_is_refused_naming_its_memory_folder(store, folder):
    result = run(store, folder.parent, code=1)
    assert f"no memory files in {folder.parent}: Claude Code keeps them in {folder}" in result.output
    assert snapshot(store) == {}


def test_two_files_that_become_one_name_are_both_skipped(store, folder):
    (folder / "user-role-copy.md").write_text("---\nname: user_role\ndescription: Another\ntype: user\n---\nBody.\n")
    done = outcomes(store, folder, code=1)
    assert done["user_role.md"]["action"] == done["user-role-copy.md"]["action"] == "skipped"
    assert "also becomes 'user-role'" in done["user_role.md"]["reason"]


@pytest.mark.parametrize(
    ("given", "name"),
    [("Testing preferences", "testing-preferences"), ("feedback_testing", "feedback-testing"),
     ("userRole", "user-role"), ("Café hours!", "cafe-hours"), ("  ", ""), ("a" * 90, "a" * 80),
     ("word " * 30, "-".join(["word"] * 16))],
)  # fmt: skip
def test_names_become_kebab_case(given, name):
    assert kebab(given) == name


def test_descriptions_are_cut_at_a_word_with_an_ellipsis():
    assert cut_description("short\n  text") == ("short text", False)
    text = "word " * 40
    cut, was_cut = cut_description(text)
    assert was_cut and len(cut) <= 150 and cut.endswith(" word…") and cut.count("word") == 30
    cut, _ = cut_description("x" * 200)
    assert cut == "x" * 149 + "…"
    cut, _ = cut_description("abc " * 36 + "abcdefgh, tail")  # the word that would be cut in half goes whole
    assert cut == ("abc " * 36).rstrip() + "…"


NESTED = """---
name: Deploy window
description: >-
  Deploys go out on Tuesdays and Thursdays only,
  after the 10:00 stand-up
metadata:
  type: project
  originSessionId: 5f1c
---

Fridays are frozen since the outage of 2026-02-13.
"""


def test_the_layout_claude_code_writes_now_with_the_type_under_metadata_is_read_as_the_first(store, folder):
    (folder / "project_deploy_window.md").write_text(NESTED)
    (folder / "no_type.md").write_text("---\nname: No type\ndescription: Nothing says what it is\n---\nBody.\n")
    both = "---\nname: Both\ndescription: Two types\ntype: user\nmetadata:\n  type: project\n---\nBody.\n"
    (folder / "both.md").write_text(both)
    (folder / "odd_type.md").write_text("---\nname: Odd\ndescription: A list\nmetadata:\n  type: [project]\n---\n")
    result = run(store, folder, code=1)
    lines = result.stdout.splitlines()
    assert "project_deploy_window.md: created deploy-window (decision)" in " ".join(lines)
    assert "None" not in result.stdout
    assert "no_type.md: skipped: no type: give `type:` (user, feedback, project, reference)" in result.stdout
    assert "both.md: skipped: `type: 'user'` and `metadata: type: 'project'` disagree" in lines
    assert 'odd_type.md: skipped: type ["project"] is not one of user, feedback, project, reference' in lines
    (memory,) = store.rows("select kind, description, body, tags from memories where name = 'deploy-window'")
    assert memory == (
        "decision",
        "Deploys go out on Tuesdays and Thursdays only, after the 10:00 stand-up",
        "Fridays are frozen since the outage of 2026-02-13.\n",
        '["claude-code", "project"]',
    )
    again = outcomes(store, folder, code=1)
    assert again["project_deploy_window.md"]["action"] == "unchanged"


def test_an_import_killed_midway_is_committed_by_the_next_run(store, folder, tmp_path, monkeypatch):
    """A real kill -9 after a file is written and before its commit; the next run answers `unchanged` for that file
    and commits it, with the message the killed run would have given it."""
    isolate(monkeypatch, tmp_path)
    git_init(store.root)
    command = ["import", "claude-code", folder, "--store", store.root, "--project", "acme", "--new-project"]
    command += ["--db", store.db_path]

    def status() -> list[str]:
        return git(store.root, "status", "--porcelain", "--untracked-files=all").splitlines()

    # the second memory written (feedback_testing.md), then, run again, the note (after three more memories)
    for kill_after, left in [("replacement#2", "memories/acme/testing-preferences.md"), ("replacement#4", None)]:
        killed = seamless(*command, env={**os.environ, "SEAMLESS_WRITE_KILL_AFTER": kill_after})
        assert killed.returncode == -9, killed.stderr
        (line,) = status()
        assert line.startswith("?? ") and (left is None or line == f"?? {left}")
    assert line.startswith("?? notes/acme/")
    done = outcomes(store, folder)
    assert {o["action"] for o in done.values()} == {"unchanged"} and status() == []
    subjects = git(store.root, "log", "--format=%s").splitlines()
    assert f"write testing-preferences ({done['feedback_testing.md']['id']})" in subjects
    assert subjects[0] == f"note Claude Code memory index (MEMORY.md) ({done['MEMORY.md']['id']})"
    # five memories and the note, each once, after the driver's set-up commit that a clone's first write makes
    assert len(subjects) == 7 and subjects[-1].startswith("seamless git-setup:")
