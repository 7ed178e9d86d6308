"""SPEC section 8 row by row, through the real `seamless` command line: write, update in place, supersede,
append, archive, delete, note; fail-closed scope; X by id or name; the indexer's own rules; the index follows."""

import json
import re

import pytest
from click.testing import CliRunner
from gitstores import git, isolate
from gitstores import init as git_init

from indexer.front.cli import cli
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record

OLD = "2026-07-10T18:00:00Z"
NOW = re.compile(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z")


def run(store, *args, ok=True, env=None, input=None):
    """`seamless ARGS --db <the store's index>` (the store's folder is the first argument where one is given)."""
    env = {"SEAMLESS_PROJECT": None, "SEAMLESS_SESSION": None, "SEAMLESS_MODEL": None, **(env or {})}
    result = CliRunner().invoke(cli, [*map(str, args), "--db", str(store.db_path)], env=env, input=input)
    if ok:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
    return result


def write(store, name, description="A fact worth keeping", *extra, kind="gotcha", project="seamless", **kw):
    """`seamless write --json`; the project may be new (--new-project): most stores here begin empty."""
    args = ["write", store.root, "--kind", kind, "--name", name, "--description", description, "--new-project", *extra]
    if project is not None:
        args += ["--project", project]
    return run(store, *args, "--json", **kw)


def row(store, memory_id):
    rows = store.rows("select * from memories where id = ?", (memory_id,))
    if not rows:
        return None
    with __import__("sqlite3").connect(store.db_path) as conn:
        names = [d[0] for d in conn.execute("select * from memories limit 0").description]
    return dict(zip(names, rows[0]))


def on_disk(store, path) -> dict:
    """The record the indexer reads from a file, straight from its bytes."""
    record, problems = memory_record(parse_bytes(path, (store.root / path).read_bytes(), 1 << 22))
    assert record is not None, problems
    return record


def files(store) -> dict[str, bytes]:
    return {p.relative_to(store.root).as_posix(): p.read_bytes() for p in sorted(store.root.rglob("*.md"))}


# write: a new memory


def test_write_creates_a_memory_file_and_its_index_row(store):
    out = json.loads(
        write(
            store,
            "chroma-boot-race",
            "Chroma boot race: the MCP server starts before Chroma listens",
            "--tag",
            "chroma",
            "--tag",
            "boot",
            "--body",
            "Wait for the port.\n\n---\n\nA rule line above, still body.",
            env={"SEAMLESS_SESSION": "cc/123", "SEAMLESS_MODEL": "claude-fable-5"},
        ).output
    )
    assert out["path"] == "memories/seamless/chroma-boot-race.md"
    assert (out["name"], out["project"], out["status"], out["action"]) == (
        "chroma-boot-race",
        "seamless",
        "active",
        "created",
    )
    record = on_disk(store, out["path"])
    assert record["id"] == out["id"]
    assert record["created"] == record["updated"] == record["valid_from"]
    assert NOW.match(record["created"])
    assert (record["source_session"], record["model"], record["tags"]) == (
        "cc/123",
        "claude-fable-5",
        '["chroma", "boot"]',
    )
    assert record["body"].endswith("---\n\nA rule line above, still body.\n")
    indexed = row(store, out["id"])
    assert indexed["status"] == "active" and indexed["body"] == record["body"]
    text = (store.root / out["path"]).read_text()
    assert [line.split(":")[0] for line in text.split("---\n")[1].splitlines()] == [
        "id", "kind", "name", "description", "project", "created", "updated", "valid_from",
        "invalid_at", "superseded_by", "source_session", "model", "tags",
    ]  # fmt: skip


def test_a_new_name_on_a_taken_path_gets_a_free_variant(store):
    store.write("memories/seamless/boot-race.md", "# not a memory, but the path is taken\n")
    out = json.loads(write(store, "boot-race").output)
    assert out["path"] == "memories/seamless/boot-race-2.md"


def test_project_global_writes_a_global_memory_with_an_empty_project(store):
    out = json.loads(write(store, "no-secrets", project="global", kind="constraint").output)
    assert out["path"] == "memories/_global/no-secrets.md" and out["project"] is None
    assert "\nproject:\n" in (store.root / out["path"]).read_text()
    assert row(store, out["id"])["project"] is None


# fail closed on scope


def test_no_project_and_no_environment_is_refused_as_ambiguous(store):
    before = files(store)
    result = write(store, "boot-race", project=None, ok=False)
    assert "ambiguous-scope" in result.output and "--project global" in result.output
    assert files(store) == before


def test_the_project_comes_from_seamless_project(store):
    out = json.loads(write(store, "boot-race", project=None, env={"SEAMLESS_PROJECT": "console"}).output)
    assert out["project"] == "console" and out["path"] == "memories/console/boot-race.md"


def test_a_project_the_store_does_not_have_is_refused_with_the_closest_and_nothing_is_written(
    briefed, tmp_path, monkeypatch
):
    """A typo never becomes a project: write and note refuse it, naming the closest; --new-project begins one."""
    isolate(monkeypatch, tmp_path)
    git_init(briefed.root)
    git(briefed.root, "add", "-A")
    git(briefed.root, "commit", "-q", "-m", "a store")
    head, before = git(briefed.root, "rev-parse", "HEAD"), files(briefed)
    for command in (
        ["write", briefed.root, "--kind", "gotcha", "--name", "boot-race", "--description", "Boot race: wait"],
        ["note", briefed.root, "--title", "Port survey", "--body", "8000 was taken."],
    ):
        result = run(briefed, *command, "--project", "seamles", ok=False)
        assert result.output == (
            "Error: unknown-project: the store has no project 'seamles': did you mean 'seamless'? Its projects: "
            "console, seamless. To begin 'seamles', add --new-project (MCP: new_project: true); nothing was written\n"
        )
        assert files(briefed) == before and git(briefed.root, "rev-parse", "HEAD") == head
        assert not (briefed.root / "memories/seamles").exists() and not (briefed.root / "notes/seamles").exists()
    out = json.loads(write(briefed, "boot-race", project="tidepool").output)  # the helper says --new-project
    assert out["path"] == "memories/tidepool/boot-race.md" and row(briefed, out["id"])["project"] == "tidepool"
    # now the store has it: no flag needed
    note = json.loads(run(briefed, "note", briefed.root, "--project", "tidepool", "--title", "Tides", "--json").output)
    assert note["path"] == "notes/tidepool/tides.md"


def test_a_read_of_a_project_the_store_does_not_have_says_so_and_exits_1(briefed):
    for command in (["recall", "chroma"], ["briefing"]):
        result = run(briefed, *command, "--project", "nosuch", ok=False)
        assert result.output == (
            "Error: the store has no project 'nosuch'. Its projects: console, seamless. `--project global` reads the "
            "global memories alone\n"
        )
        assert "did you mean 'console'?" in run(briefed, *command, "--project", "consle", ok=False).output
        assert run(briefed, *command, "--project", "global").exit_code == 0
    assert "chroma-port" in run(briefed, "recall", "chroma", "--project", "seamless").output


def test_note_without_a_project_is_refused_too(store):
    result = run(store, "note", store.root, "--title", "Research", ok=False)
    assert "ambiguous-scope" in result.output and files(store) == {}


# write: an update in place


def test_same_name_updates_in_place_keeping_id_file_created_and_unknown_keys(store):
    store.write(
        "memories/seamless/sub/boot-race.md",
        "---\n"
        "id: 01KERV5K4652EXPT8KADGA8DF2  # stable forever\n"
        "kind: gotcha\n"
        "name: boot-race\n"
        "description: old words\n"
        "project: seamless\n"
        f"created: {OLD}\n"
        f"updated: {OLD}\n"
        f"valid_from: {OLD}\n"
        "reviewed_by: alice   # a key of our own\n"
        "source_session: cc/old\n"
        "tags:\n  - chroma\n"
        "---\n"
        "Old body, kept.\n",
    )
    out = json.loads(write(store, "boot-race", "new words: quoted because of the colon").output)
    assert (out["id"], out["path"], out["action"]) == (
        "01KERV5K4652EXPT8KADGA8DF2",
        "memories/seamless/sub/boot-race.md",
        "updated",
    )
    text = (store.root / out["path"]).read_text()
    assert text == (
        "---\n"
        "id: 01KERV5K4652EXPT8KADGA8DF2  # stable forever\n"
        "kind: gotcha\n"
        "name: boot-race\n"
        'description: "new words: quoted because of the colon"\n'
        "project: seamless\n"
        f"created: {OLD}\n"
        f"updated: {on_disk(store, out['path'])['updated']}\n"
        f"valid_from: {OLD}\n"
        "reviewed_by: alice   # a key of our own\n"
        "source_session: cc/old\n"
        "tags:\n  - chroma\n"
        "---\n"
        "Old body, kept.\n"
    )
    assert on_disk(store, out["path"])["updated"] != OLD
    assert row(store, out["id"])["description"] == "new words: quoted because of the colon"


def test_update_replaces_tags_and_body_only_when_given(store):
    store.memory("boot-race", tags=["a"], body="Old body.")
    out = json.loads(write(store, "boot-race", "same", "--tag", "b", "--body", "New body.").output)
    record = on_disk(store, out["path"])
    assert (record["tags"], record["body"]) == ('["b"]', "New body.\n")


# write --supersedes


def test_supersede_writes_the_replacement_then_stamps_the_old_memory(store):
    old = store.memory("chroma-port", kind="decision", description="Chroma on 8000")
    out = json.loads(
        write(store, "chroma-port", "Chroma on 8001", "--supersedes", "chroma-port", kind="decision").output
    )
    assert out["action"] == "superseded" and out["superseded"] == old["id"]
    assert out["path"] == "memories/seamless/chroma-port-2.md"  # the replacement took the old one's name
    new, stamped = on_disk(store, out["path"]), on_disk(store, "memories/seamless/chroma-port.md")
    assert stamped["invalid_at"] == new["valid_from"] and stamped["superseded_by"] == new["id"]
    assert stamped["updated"] == old["updated"]  # the old memory's updated is unchanged
    assert row(store, old["id"])["status"] == "superseded" and row(store, new["id"])["status"] == "active"
    history = json.loads(run(store, "history", old["id"], "--json").output)
    assert [h["id"] for h in history] == [old["id"], new["id"]]


def test_a_supersede_says_which_memory_it_wrote_and_which_it_superseded_each_as_such(store):
    old = store.memory("chroma-port-8000", kind="decision", description="Chroma on 8000")
    args = ["write", store.root, "--project", "seamless", "--kind", "decision", "--name", "chroma-port"]
    args += ["--description", "Chroma on 8001", "--supersedes", "chroma-port-8000"]
    lines = run(store, *args).output.splitlines()
    ((new,),) = store.rows("select id from memories where name = 'chroma-port'")
    assert lines[:2] == [
        f"wrote {new} memories/seamless/chroma-port.md (chroma-port, seamless, active)",
        f"superseded {old['id']} memories/seamless/chroma-port-8000.md (chroma-port-8000): it stays on disk, invalid "
        f"from now, superseded by {new}",
    ]
    assert run(store, *args).output.splitlines() == [  # a retry
        f"unchanged {new} memories/seamless/chroma-port.md (chroma-port, seamless, active)",
        f"the store already holds this (a retried write?): nothing was written; it superseded {old['id']} already",
    ]
    out = json.loads(run(store, *args, "--json").output)
    assert (out["id"], out["name"], out["status"]) == (new, "chroma-port", "active")  # the memory written
    assert (out["superseded"], out["superseded_name"], out["superseded_path"]) == (
        old["id"], "chroma-port-8000", "memories/seamless/chroma-port-8000.md",
    )  # fmt: skip


def test_supersede_by_id_from_another_name(store):
    old = store.memory("chroma-port-8000", kind="decision")
    out = json.loads(write(store, "chroma-port-8001", "Chroma on 8001", "--supersedes", old["id"].lower()).output)
    assert out["path"] == "memories/seamless/chroma-port-8001.md"
    assert on_disk(store, "memories/seamless/chroma-port-8000.md")["superseded_by"] == out["id"]


def test_supersede_of_a_memory_no_longer_active_is_refused_and_writes_nothing(store):
    old = store.memory("chroma-port", invalid_at=OLD)
    before = files(store)
    result = write(store, "chroma-port-2", "x", "--supersedes", old["id"], ok=False)
    assert "not-active" in result.output and files(store) == before


# append, archive, delete, note


def test_append_adds_to_the_body_keeps_the_id_and_sets_updated(store):
    old = store.memory("boot-race", body="First finding.")
    result = run(store, "append", store.root, "boot-race", "--project", "seamless", "--text", "-", input="Second.\n")
    assert "appended" in result.output
    record = on_disk(store, "memories/seamless/boot-race.md")
    assert record["body"] == "First finding.\n\nSecond.\n" and record["id"] == old["id"]
    assert record["updated"] != old["updated"] and record["created"] == old["created"]


def test_problems_a_file_already_had_do_not_block_an_append(store):
    store.memory("boot-race", tags="chroma")  # a bare-string tag: a warning the file already has
    run(store, "append", store.root, "boot-race", "--text", "More.")
    assert on_disk(store, "memories/seamless/boot-race.md")["body"].endswith("More.\n")


def test_archive_sets_invalid_at_now_with_no_successor(store):
    old = store.memory("boot-race")
    out = json.loads(run(store, "archive", store.root, old["id"], "--json").output)
    record = on_disk(store, "memories/seamless/boot-race.md")
    assert out["status"] == "archived" and NOW.match(record["invalid_at"]) and record["superseded_by"] is None
    assert record["updated"] == old["updated"]
    assert row(store, old["id"])["status"] == "archived"


def test_delete_removes_the_file_and_the_row(store):
    old = store.memory("written-by-mistake")
    run(store, "delete", store.root, "written-by-mistake", "--project", "seamless")
    assert not (store.root / "memories/seamless/written-by-mistake.md").exists()
    assert row(store, old["id"]) is None


def test_delete_is_refused_when_it_would_break_a_chain(store):
    new = store.memory("chroma-port-8001")
    store.memory("chroma-port-8000", invalid_at=OLD, superseded_by=new["id"])
    result = run(store, "delete", store.root, new["id"], ok=False)
    assert "breaks-chain" in result.output and "chroma-port-8000" in result.output and "Archive" in result.output
    assert (store.root / "memories/seamless/chroma-port-8001.md").exists()


def test_note_lands_under_notes_scope_and_in_the_index(store):
    out = json.loads(
        run(
            store, "note", store.root, "--project", "seamless", "--new-project", "--title", "Recall eval: October",
            "--tag", "eval",
            "--body", "# Findings\n\nbm25 wins.", "--json",
        ).output
    )  # fmt: skip
    assert out["path"] == "notes/seamless/recall-eval-october.md" and out["title"] == "Recall eval: October"
    assert store.rows("select title, project, tags from notes where id = ?", (out["id"],)) == [
        ("Recall eval: October", "seamless", '["eval"]')
    ]


# X: an id or a name


def test_a_name_in_several_projects_needs_a_project_and_the_error_lists_them(store):
    a = store.memory("boot-race", project="seamless")
    b = store.memory("boot-race", project="console")
    result = run(store, "archive", store.root, "boot-race", ok=False)
    assert "ambiguous-memory" in result.output and a["id"] in result.output and b["id"] in result.output
    run(store, "archive", store.root, "boot-race", "--project", "console")
    assert row(store, b["id"])["status"] == "archived" and row(store, a["id"])["status"] == "active"


def test_a_name_is_looked_up_in_the_project_then_global(store):
    g = store.memory("no-secrets", project=None)
    run(store, "append", store.root, "no-secrets", "--project", "seamless", "--text", "Also tokens.")
    assert on_disk(store, "memories/_global/no-secrets.md")["body"].endswith("Also tokens.\n") and g


def test_an_unknown_name_lists_the_candidates(store):
    store.memory("chroma-boot-race")
    store.memory("chroma-port", invalid_at=OLD)
    result = run(store, "append", store.root, "chroma-port", "--text", "x", ok=False)
    assert "unknown-memory" in result.output and "inactive ones" in result.output
    result = run(store, "archive", store.root, "chroma-boot-rase", ok=False)
    assert "did you mean: chroma-boot-race" in result.output


# the indexer's own rules, with its own problem codes


@pytest.mark.parametrize(
    "args, code",
    [
        (["--kind", "fact"], "unknown-kind"),
        (["--description", "x" * 151], "description-too-long"),
        (["--description", "two\nlines"], "description-multiline"),
        (["--description", "   "], "missing-description"),
        (["--name", "Chroma_Boot"], "name-not-kebab"),
        (["--name", "a/b"], "name-not-kebab"),
        (["--name", "../../etc"], "name-not-kebab"),
        (["--name", "a" * 201], "name-too-long"),
        (["--project", "../elsewhere"], "bad-project"),
        (["--project", ".hidden"], "bad-project"),
        (["--tag", " "], "bad-tags"),
    ],
)
def test_a_write_the_indexer_would_flag_is_refused_with_its_code_and_writes_nothing(store, args, code):
    store.memory("existing")
    before = files(store)
    defaults = {"--kind": "gotcha", "--name": "boot-race", "--description": "fine", "--project": "seamless"}
    defaults.update(dict(zip(args[::2], args[1::2])))  # a --tag is added to them
    result = run(store, "write", store.root, *[x for pair in defaults.items() for x in pair], ok=False)
    assert f"Error: {code}: " in result.output and len(result.output.strip().splitlines()) == 1
    assert files(store) == before


@pytest.mark.parametrize(
    "fault, description, kind",
    [
        ("description: |-\n  two\n  lines\n", "two\nlines", "gotcha"),
        (f"description: {'x' * 151}\n", "x" * 151, "gotcha"),
        ("kind: stage\ndescription: A stage of the launch\n", "A stage of the launch", "stage"),
    ],
)
def test_a_refusal_never_says_what_the_indexer_would_have_made_of_the_file(store, fault, description, kind):
    """Where one code is the indexer's warning (it folds, it shows status unknown) and the write path's refusal, the
    refusal says what is wrong and that nothing was written, never what the warning says was done."""
    kind_line = "" if "kind:" in fault else "kind: gotcha\n"
    text = f"---\nid: 01K0000000000000000000HAND\nname: by-hand\n{kind_line}{fault}---\n"
    store.write("memories/seamless/by-hand.md", text)
    store.index()
    ((code, warned),) = store.rows("select code, message from problems where path = 'memories/seamless/by-hand.md'")
    before = files(store)
    result = write(store, "boot-race", description, kind=kind, ok=False)
    assert result.output.startswith(f"Error: {code}: ") and result.output.endswith("; nothing was written\n")
    done = warned.split("; ")[1]  # what the indexer made of the file: "folded onto one", ...
    assert done not in result.output, (warned, result.output)
    assert files(store) == before


# the index follows at once: a running explorer shows the change on its next request


async def test_a_running_explorer_shows_a_write_on_its_next_request(store):
    from indexer.front.serve import build_datasette

    store.memory("boot-race")
    store.index()
    ds = build_datasette(store.db_path)
    await ds.invoke_startup()
    first = (await ds.client.get("/seamless/memories.json?_shape=array&name=chroma-port")).json()
    out = json.loads(write(store, "chroma-port", "Chroma on 8001").output)
    after = (await ds.client.get("/seamless/memories.json?_shape=array&name=chroma-port")).json()
    assert first == [] and [r["id"] for r in after] == [out["id"]]


def test_a_write_through_an_index_of_another_store_is_refused(store, tmp_path):
    from conftest import Store

    other = Store(tmp_path / "other")
    other.memory("elsewhere")
    other.index()
    store.memory("boot-race")
    before = files(store)
    result = CliRunner().invoke(
        cli,
        ["write", str(store.root), "--project", "seamless", "--kind", "gotcha", "--name", "new-one",
         "--description", "d", "--db", str(other.db_path)],
    )  # fmt: skip
    assert result.exit_code == 1 and "other-store" in result.output and "--full" in result.output
    assert files(store) == before
    assert other.rows("select name from memories") == [("elsewhere",)]
