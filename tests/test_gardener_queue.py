"""The gardener's queue (SPEC section 12): every proposal can be dismissed with a reason; the dismissal is a line of the
store's gardener/dismissed.jsonl (in git, merged by union, read again by every index run that finds it changed), and a
dismissed proposal stays away while its memories keep their `updated`. Proposals come in groups of one kind and
project, with their counts, and a group is dismissed or archived by one command, in one commit. Real stores, the real
CLI, real git and a real remote."""

import json
import re
import shlex

import pytest
from click.testing import CliRunner
from fleet import fleet, isolate_git
from gitstores import git, init, isolate, last_commit

from indexer.front.cli import cli
from indexer.front.serve import build_datasette
from indexer.index.watch import relevant_paths
from indexer.query import queries
from indexer.store import dismissals

STALE_STAGE = "Status: done\n\nShipped."  # with the default `updated` (2026-07-10), a stale stage now
DUPLICATES_ON = "[gardener]\nduplicates = true\n"


def run(store, *args, ok: bool = True, db: bool = True):
    """`seamless ARGS [--db DB]` through click's runner."""
    result = CliRunner().invoke(cli, [*map(str, args), *(["--db", str(store.db_path)] if db else [])])
    assert "Traceback" not in result.output
    assert (result.exit_code == 0) == ok, result.output
    return result


def listed(store, *args) -> list[dict]:
    return [r for r in json.loads(run(store, "gardener", *args, "--json").stdout) if r["proposal"] != "unsettled"]


def dismiss(store, kind: str, *ids: str, why: str = "kept on purpose", ok: bool = True):
    return run(store, "gardener", "dismiss", store.root, "--kind", kind, *ids, "--why", why, ok=ok)


@pytest.fixture
def stale(store):
    """Three stale stages of `seamless`, one of `console`, indexed: four archive proposals."""
    for name in ("old-a", "old-b", "old-c"):
        store.memory(name, kind="stage", body=STALE_STAGE)
    store.memory("old-console", kind="stage", project="console", body=STALE_STAGE)
    store.index()
    return store


def id_of(store, name: str) -> str:
    return store.rows("select id from memories where name = ?", (name,))[0][0]


def touch(store, name: str, updated: str, project: str = "seamless") -> None:
    """Give memory `name` another `updated`, by hand, and index."""
    path = store.root / f"memories/{project}/{name}.md"
    path.write_text(re.sub(r"(?m)^updated: .*$", f"updated: '{updated}'", path.read_text()))
    store.index()


def test_a_dismissal_is_one_line_and_the_proposal_stays_away_until_its_memory_changes(stale):
    old_a = id_of(stale, "old-a")
    assert old_a in {r["id"] for r in listed(stale)}
    assert "dismissed 1 archive proposal" in dismiss(stale, "archive", old_a, why="still the runbook's source").output
    (line,) = (stale.root / dismissals.FILE).read_text().splitlines()
    record = json.loads(line)
    assert {k: record[k] for k in ("kind", "ids", "updated", "why")} == {
        "kind": "archive",
        "ids": [old_a],
        "updated": {old_a: "2026-07-10T18:00:00Z"},
        "why": "still the runbook's source",
    }
    assert record["by"] and record["at"].endswith("Z")
    # gone from every list that shows proposals, and after a rebuild from nothing too
    assert old_a not in {r["id"] for r in listed(stale)}
    assert old_a not in {r["id"] for r in json.loads(run(stale, "needs-human", "--json").stdout)}
    run(stale, "index", stale.root, "--full")
    assert old_a not in {r["id"] for r in listed(stale)} and len(listed(stale)) == 3
    stale.db_path.unlink()
    run(stale, "index", stale.root)
    assert old_a not in {r["id"] for r in listed(stale)} and len(listed(stale)) == 3
    # the memory changes (its `updated`): the proposal may come back, and does while the stage is stale
    touch(stale, "old-a", "2026-07-11T18:00:00Z")
    assert old_a in {r["id"] for r in listed(stale)}


def test_a_dismissed_pair_stays_away_while_both_memories_keep_their_updated(store):
    store.write("seamless.toml", DUPLICATES_ON)
    store.memory("queue-a", description="Backfills run at night through the batch queue")
    store.memory(
        "queue-b", description="Backfills run at night through the batch queue", updated="2026-07-12T18:00:00Z"
    )
    store.memory("other", description="Deploys need a green build on main")
    store.index()
    (pair,) = listed(store, "--kind", "duplicate")
    assert pair["ids"] == [id_of(store, "queue-a"), id_of(store, "queue-b")]
    dismiss(store, "duplicate", *reversed(pair["ids"]), why="two queues, one word")  # the ids in any order
    assert listed(store, "--kind", "duplicate") == []
    touch(store, "other", "2026-07-13T18:00:00Z")  # another memory changes: nothing comes back
    assert listed(store, "--kind", "duplicate") == []
    touch(store, "queue-b", "2026-07-14T18:00:00Z")  # the newer of the two changes: the proposal is back
    assert [r["ids"] for r in listed(store, "--kind", "duplicate")] == [pair["ids"]]


def test_a_second_dismissal_writes_nothing_and_a_proposal_not_listed_is_refused(stale):
    old_a, old_b = id_of(stale, "old-a"), id_of(stale, "old-b")
    dismiss(stale, "archive", old_a)
    before = (stale.root / dismissals.FILE).read_bytes()
    again = run(stale, "gardener", "dismiss", stale.root, "--kind", "archive", old_a, "--why", "kept", "--json")
    assert json.loads(again.stdout)["action"] == "unchanged"
    assert json.loads(again.stdout)["held"]["why"] == "kept on purpose"
    unknown = dismiss(stale, "duplicate", old_a, old_b, ok=False)
    assert f"unknown-proposal: the gardener lists no duplicate proposal of {old_a} {old_b}" in unknown.output
    assert "no-reason" in dismiss(stale, "archive", old_b, why="...", ok=False).output
    both = dismiss(stale, "archive", old_b, "--project", "seamless", ok=False)
    assert "not both" in both.output
    assert (stale.root / dismissals.FILE).read_bytes() == before


def test_a_bad_line_is_a_problem_at_its_line_and_the_good_lines_still_count(stale):
    old_a, old_b = id_of(stale, "old-a"), id_of(stale, "old-b")
    dismiss(stale, "archive", old_a)
    with open(stale.root / dismissals.FILE, "a") as file:  # a hand edit: two broken lines, then a good one
        file.write('{"kind": "archive", "ids": [\n')
        file.write(json.dumps({"kind": "nope", "ids": [old_b], "updated": {}, "why": "", "by": "", "at": ""}) + "\n")
        good = {"kind": "archive", "ids": [old_b], "updated": {old_b: "2026-07-10T18:00:00Z"}, "why": "by hand"}
        file.write(json.dumps(good | {"by": "ada", "at": "2026-12-01T00:00:00Z"}) + "\n")
    assert "changed: gardener/dismissed.jsonl" in run(stale, "status", stale.root, ok=False).output
    indexed = run(stale, "index", stale.root).output
    assert "gardener/dismissed.jsonl:2: warning bad-dismissal: not JSON" in indexed
    assert "gardener/dismissed.jsonl:3: warning bad-dismissal: kind 'nope' is not one of" in indexed
    assert stale.rows("select line, code from problems where path = ?", (dismissals.FILE,)) == [
        (2, "bad-dismissal"),
        (3, "bad-dismissal"),
    ]
    assert {old_a, old_b}.isdisjoint(r["id"] for r in listed(stale))  # lines 1 and 4 count
    assert "gardener/dismissed.jsonl:2: warning bad-dismissal" in run(stale, "check", stale.root, db=False).output
    # (an event for the file is one a watcher acts on, as for a memory)
    assert relevant_paths(stale.root, [stale.root / dismissals.FILE]) == ({dismissals.FILE}, False)


def test_every_list_of_proposals_gives_the_command_that_dismisses_each_and_it_runs_as_given(stale):
    old = listed(stale)[0]
    db = shlex.quote(str(stale.db_path))
    assert old["command"] == f"seamless archive {stale.root} {old['id']} --db {db}"
    assert old["dismiss"] == f"seamless gardener dismiss {stale.root} --kind archive {old['id']} --why '...' --db {db}"
    text = run(stale, "gardener").stdout
    assert f"\n    {old['command']}\n    {old['dismiss']}\n" in text
    needs = {r["id"]: r for r in json.loads(run(stale, "needs-human", "--json").stdout) if r["section"] == "proposal"}
    assert (needs[old["id"]]["command"], needs[old["id"]]["dismiss"]) == (old["command"], old["dismiss"])
    canned = {r["id"]: r for r in queries.run(stale.db_path, "needs_human")}  # without --db: the canned query's
    assert (
        canned[old["id"]]["dismiss"] == f"seamless gardener dismiss {stale.root} --kind archive {old['id']} --why '...'"
    )
    # run as given, its reason said: the proposal is dismissed
    words = shlex.split(old["dismiss"].replace("'...'", "'kept: still read'"))
    assert words[:3] == ["seamless", "gardener", "dismiss"]
    run(stale, *words[1:], db=False)
    assert old["id"] not in {r["id"] for r in listed(stale)}


def test_proposals_come_in_groups_of_one_kind_and_project_with_their_counts(stale):
    text = run(stale, "gardener").stdout
    assert text.startswith("archive in seamless (3):\n  all 3 at once: seamless gardener archive ")
    assert "\narchive in console (1):\n" in text and text.index("in seamless (3)") < text.index("in console (1)")
    assert [r["name"] for r in listed(stale, "--kind", "archive", "--project", "console")] == ["old-console"]
    assert listed(stale, "--kind", "duplicate") == []


async def test_the_explorer_gives_each_proposal_and_group_its_commands_and_counts_those_not_dismissed(stale):
    dismiss(stale, "archive", id_of(stale, "old-a"))
    whole = [r for r in queries.run(stale.db_path, "needs_human") if r["section"] == "proposal"]
    assert [r["name"] for r in whole] == ["old-b", "old-c", "old-console"]
    ds = build_datasette(stale.db_path)
    await ds.invoke_startup()
    home = (await ds.client.get("/")).text
    assert f"seamless gardener dismiss {stale.root} --kind archive {id_of(stale, 'old-b')}" in home
    read = []
    for page in range(1, 4):  # a proposal a page: each window, and the count, less the one dismissed
        got = (await ds.client.get(f"/-/needs-human.json?section=proposal&_size=1&page={page}")).json()
        assert got["in_section"] == 3
        read += [r["name"] for r in got["rows"]]
    assert read == ["old-b", "old-c", "old-console"]
    # the groups: each counted, with the commands that answer it whole
    groups = (await ds.client.get("/-/needs-human.json?section=proposal")).json()["groups"]
    db = shlex.quote(str(stale.db_path))
    assert groups == [
        {"proposal": "archive", "project": "seamless", "proposals": 2,
         "dismiss": f"seamless gardener dismiss {stale.root} --kind archive --project seamless --why '...' --db {db}",
         "archive": f"seamless gardener archive {stale.root} --project seamless --db {db}"},
        {"proposal": "archive", "project": "console", "proposals": 1,
         "dismiss": f"seamless gardener dismiss {stale.root} --kind archive --project console --why '...' --db {db}",
         "archive": f"seamless gardener archive {stale.root} --project console --db {db}"},
    ]  # fmt: skip
    page = (await ds.client.get("/-/needs-human?section=proposal")).text
    assert "<strong>Archive?</strong> seamless (2)" in page and "<strong>Archive?</strong> console (1)" in page
    canned = (await ds.client.get("/seamless/gardener_groups.json?_shape=array")).json()
    assert [(g["proposal"], g["project"], g["proposals"]) for g in canned] == [
        ("archive", "seamless", 2),
        ("archive", "console", 1),
    ]


async def test_a_dismissed_finding_leaves_the_pages_count_and_windows_and_no_other_does(store):
    store.memory("console-notes", description="notes about the console")
    store.memory("rate-notes", description="Remember the rate limit stuff")
    store.index()
    first, second = listed(store, "--kind", "vague-description")
    dismiss(store, "vague-description", first["id"])
    ds = build_datasette(store.db_path)
    await ds.invoke_startup()
    for size in (1, 20):  # a window from the index alone, and one read whole
        got = (await ds.client.get(f"/-/needs-human.json?section=proposal&_size={size}")).json()
        assert got["in_section"] == 1 and [r["id"] for r in got["rows"]] == [second["id"]]


@pytest.fixture
def repo(stale, tmp_path, monkeypatch):
    """The stale store at the top of a git work tree, everything committed."""
    isolate(monkeypatch, tmp_path)
    init(stale.root)
    git(stale.root, "add", "-A")
    git(stale.root, "commit", "-qm", "stale stages")
    return stale


def test_a_group_is_shown_first_then_archived_whole_in_one_commit(repo):
    files = {p: p.read_bytes() for p in (repo.root / "memories").rglob("*.md")}
    shown = run(repo, "gardener", "archive", repo.root, "--project", "seamless").stdout
    assert shown.startswith("would archive 3 memories:\n") and "run it again with --yes" in shown
    assert {p: p.read_bytes() for p in files} == files  # nothing written
    head = git(repo.root, "rev-parse", "HEAD").strip()
    done = json.loads(run(repo, "gardener", "archive", repo.root, "--project", "seamless", "--yes", "--json").stdout)
    assert (done["action"], done["count"]) == ("archived", 3)
    assert git(repo.root, "rev-list", "--count", f"{head}..HEAD").strip() == "2"  # the set-up, then the act
    commit = last_commit(repo.root)
    assert commit["message"].splitlines()[0] == "archive 3 memories of seamless"
    assert "Seamless-Action: archive" in commit["message"]
    assert sorted(commit["files"]) == [f"M\tmemories/seamless/old-{x}.md" for x in "abc"]
    assert repo.rows("select count(*) from memories where status = 'archived' and project = 'seamless'") == [(3,)]
    assert [r["name"] for r in listed(repo)] == ["old-console"]  # the other project's is left alone
    run(repo, "status", repo.root)  # the index in step, every file committed
    again = run(repo, "gardener", "archive", repo.root, "--project", "seamless", "--yes").stdout
    assert again == "the gardener lists no archive proposal there: nothing to do\n"


def test_a_group_dismissal_is_one_commit_of_one_line_each(repo):
    shown = dismiss(repo, "archive", "--project", "seamless").stdout
    assert shown.startswith("would dismiss 3 archive proposals:\n")
    assert not (repo.root / dismissals.FILE).exists()
    dismiss(repo, "archive", "--project", "seamless", "--yes")
    assert len((repo.root / dismissals.FILE).read_text().splitlines()) == 3
    commit = last_commit(repo.root)
    assert commit["message"].splitlines()[0] == "dismiss 3 archive proposals of seamless"
    assert commit["files"] == ["A\tgardener/dismissed.jsonl"]
    assert "gardener/dismissed.jsonl merge=union" in git(repo.root, "show", "HEAD:.gitattributes")
    single = id_of(repo, "old-console")
    dismiss(repo, "archive", single)
    message = last_commit(repo.root)["message"]
    assert message.startswith(f"dismiss archive of old-console ({single})\n\n")
    assert f"Seamless-Id: {single}\nSeamless-Action: dismiss\nSeamless-Project: console" in message
    assert listed(repo) == []


def test_two_hosts_dismiss_two_proposals_and_every_sync_keeps_both(tmp_path, monkeypatch):
    isolate_git(monkeypatch, tmp_path)
    a, b = fleet(tmp_path)
    ids = {"old-a": "01K0000000000000000000000A", "old-b": "01K0000000000000000000000B"}
    for name, memory in ids.items():  # stale stages, written by hand on a and shared
        (a.store / f"memories/fleet/{name}.md").parent.mkdir(parents=True, exist_ok=True)
        (a.store / f"memories/fleet/{name}.md").write_text(
            f"---\nid: {memory}\nkind: stage\nname: {name}\ndescription: {name} shipped\nproject: fleet\n"
            f"created: 2026-07-10T18:00:00Z\nupdated: 2026-07-10T18:00:00Z\n---\n{STALE_STAGE}\n"
        )
    a.sync()
    b.sync()
    for host, memory in ((a, ids["old-a"]), (b, ids["old-b"])):
        done = host.cli("gardener", "dismiss", str(host.store), "--kind", "archive", memory, "--why", host.name,
                        "--db", str(host.db))  # fmt: skip
        assert done.returncode == 0, done.stderr
    a.sync()
    b.sync()  # merges a's line with its own: git's union merge, no conflict
    a.sync()
    for host in (a, b):
        lines = (host.store / dismissals.FILE).read_text().splitlines()
        assert sorted(json.loads(line)["why"] for line in lines) == ["a", "b"]
        assert [r for r in queries.run(host.db, "gardener") if r["proposal"] == "archive"] == []
        assert host.out_of_step() == []
    assert (a.store / dismissals.FILE).read_bytes() == (b.store / dismissals.FILE).read_bytes()
