"""What needs a human, as the explorer reads it a window at a time (plugins/home_page.py, needs_human_page.sql) and as
`seamless needs-human` and `seamless gardener` print it whole. Real stores, the real indexer, a real Datasette
(datasette.client), the real CLI (CliRunner)."""

import json
import shlex

import pytest
from click.testing import CliRunner
from conftest import started_explorer
from gardening import in_run
from test_explorer import started

from bench.gardener import labelled_stores, write_store
from indexer import gardener
from indexer.front.cli import cli
from indexer.index import database
from indexer.index.build import index_paths, index_store
from indexer.query.needs_human import SECTIONS, needs_human
from indexer.sqlite import sqlite3
from indexer.store import timestamps
from indexer.store.timestamps import normalize

AS_OF = "2027-01-01"
X, Y, M = "01K0000000000000000000XXX1", "01K0000000000000000000YYY1", "01K0000000000000000000MMM1"


def memory(folder, name, memory_id, **fields):
    meta = {"id": memory_id, "kind": "gotcha", "name": name, "description": f"The {name} memory, port 80{len(name)}",
            "project": "fleet", "created": "2026-07-01T00:00:00Z", **fields}  # fmt: skip
    text = "".join(f"{key}: {value}\n" for key, value in meta.items() if value is not None)
    (folder / f"{name}.md").write_text(f"---\n{text}---\nBody.\n")


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """An index with every section full: the labelled stores' findings and archive proposals, 25 stages gated human,
    a file with an error, a supersession fork and a concurrent edit."""
    tmp = tmp_path_factory.mktemp("audited")
    root = tmp / "store"
    write_store(root, labelled_stores("dev") + labelled_stores("held-out") + labelled_stores("cross-scope"))
    gates = root / "memories" / "gates"
    gates.mkdir()
    for n in range(25):
        (gates / f"gate-{n:02d}.md").write_text(
            f'---\nid: 01KG{n:022d}\nkind: stage\nname: gate-{n:02d}\ndescription: "gate {n:02d}: a stage to pass"\n'
            f"project: gates\ncreated: 2026-0{1 + n % 9}-10T00:00:00Z\n---\nStatus: {'blocked' if n % 4 else 'open'}\n"
            "Gate: human\n"
        )
    (gates / "broken.md").write_text("---\nkind: gotcha\n---\nno id, no name\n")
    fleet = root / "memories" / "fleet"
    fleet.mkdir()
    memory(fleet, "port-8000", X, invalid_at="2026-07-11T00:00:00Z", superseded_by=Y)
    memory(fleet, "port-9000", Y, supersedes=X)
    memory(fleet, "port-7000", M, supersedes=X)  # the fork: X names Y
    memory(fleet, "queue-lock", "01K0000000000000000000QQQ1", updated="2026-07-10T18:00:00Z")
    # a vague description written early: a proposal at every as_of the tests read
    memory(fleet, "console-notes", "01K0000000000000000000VVV1", description="notes about the console",
           created="2026-01-05T00:00:00Z")  # fmt: skip
    db = tmp / "index.db"
    with in_run(None):
        index_store(root, db)
    with sqlite3.connect(db) as conn:  # as seamless sync records a merge commit's trailer
        conn.execute(
            "insert into concurrent_edits values ('0123456789abcdef', '2026-07-12T00:00:00Z', "
            "'01K0000000000000000000QQQ1')"
        )
    return db


@pytest.fixture(scope="module")
def explorer(audited):
    return started_explorer(audited)


def shown(row: dict, db) -> dict:
    """A row as the window gives it: needs_human's, less its place in the whole list, its commands for the index."""
    found = {key: value for key, value in row.items() if key != "position"}
    return found | {key: found[key] and f"{found[key]} --db {shlex.quote(str(db))}" for key in ("command", "dismiss")}


async def test_every_window_is_needs_human_s_rows(audited, explorer):
    db = audited
    for as_of in ("2026-05-01", "2026-09-01", AS_OF):
        whole = needs_human(db, as_of=normalize(as_of))
        for section in SECTIONS:
            rows = [shown(r, db) for r in whole if r["section"] == section]
            assert rows or section in ("concurrent", "fork"), section  # (at a past as_of, forks are still listed)
            for size in (1, 3, 20):
                read = []
                for page in range(1, len(rows) // size + 2):
                    answer = await explorer.client.get(
                        f"/-/needs-human.json?section={section}&page={page}&_size={size}&as_of={as_of}"
                    )
                    assert answer.status_code == 200
                    got = answer.json()
                    assert got["in_section"] == len(rows) and not got["left_out"]
                    assert (got["next"] is not None) == (page * size < len(rows))
                    read += [row | {"ids": json.loads(row["ids"]) if row["ids"] else None} for row in got["rows"]]
                assert read == rows, (as_of, section, size)


async def test_the_home_page_shows_each_section_s_first_rows_and_its_count(audited, explorer):
    db = audited
    whole = needs_human(db)
    html = (await explorer.client.get("/")).text
    needs = html.split('<section class="needs-human"')[1].split("</section>")[0]
    for section, title in SECTIONS.items():
        rows = [r for r in whole if r["section"] == section]
        assert f'{title} <span class="count">({len(rows)})</span>' in needs.replace("&#39;", "'")
        part = needs.split(title.replace("'", "&#39;"))[1]
        assert part.count('class="needs-item"') >= min(len(rows), 20) or section == "proposal"
    assert needs.count('href="/-/needs-human?section=stage"') == 1  # 25 stages: "All 25" leads to the whole list
    assert "Not all of this page could be read" not in needs


async def test_a_page_over_the_time_limit_answers_200_and_says_what_it_left_out(audited):
    db = audited
    ds = await started(db)
    # a limit of 0 ms runs out at SQLite's first instruction (Datasette checks every instruction under 20 ms): with 1 ms a
    # small section's query could finish in time, and the test depended on the machine's speed
    ds.sql_time_limit_ms = ds._settings["sql_time_limit_ms"] = 0
    home = await ds.client.get("/")
    assert home.status_code == 200
    assert "Not all of this page could be read" in home.text
    assert "the explorer&#39;s time limit (0 ms) ran out before it was read" in home.text
    needs = home.text.split('<section class="needs-human"')[1].split("</section>")[0]
    for title in SECTIONS.values():  # each section is shown, or said to be left out
        title = title.replace("'", "&#39;")
        assert f"{title} <span" in needs or f"<li>{title}" in needs
    page = await ds.client.get("/-/needs-human?section=proposal")
    assert page.status_code == 200 and "ran out before it was read" in page.text
    answer = await ds.client.get("/-/needs-human.json?section=stage")
    assert answer.status_code == 200 and answer.json()["left_out"]


async def test_bad_parameters_are_a_400_that_says_why(explorer):
    for query, why in [
        ("section=nope", "section: &#39;nope&#39; is not one of stage, proposal, error, fork, concurrent"),
        ("page=0", "page: &#39;0&#39; is not a whole number from 1 to 1,000,000,000"),
        ("page=99999999999999999999", "is not a whole number from 1 to 1,000,000,000"),
        ("_size=5000", "_size: &#39;5000&#39; is not a whole number from 1 to 1,000"),
        ("as_of=2026-13-01", "as_of: &#39;2026-13-01&#39; is not an ISO 8601 date or time"),
    ]:
        answer = await explorer.client.get(f"/-/needs-human?{query}")
        assert answer.status_code == 400 and why in answer.text, query


async def test_a_page_past_the_end_is_empty_and_says_how_many_there_are(explorer):
    got = (await explorer.client.get("/-/needs-human.json?section=stage&page=1000")).json()
    assert got["rows"] == [] and got["in_section"] == 25 and got["next"] is None
    html = (await explorer.client.get("/-/needs-human?section=stage&page=1000")).text
    assert "Nothing on this page: there are 25." in html


async def test_findings_behind_their_index_say_so_on_every_page(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    with in_run(0):  # left to a settle of its own, which has not run
        index_store(root, db)
    ds = await started(db)
    home = (await ds.client.get("/")).text
    assert "The gardener has not read this index with its rules yet" in home
    assert "Not settled</strong>: the gardener has not read this index" in home
    got = (await ds.client.get("/-/needs-human.json?section=proposal")).json()
    assert got["rows"][0]["proposal"] == "unsettled" and "has not read this index" in got["gardener"]
    canned = (await ds.client.get("/seamless/gardener.json?_shape=array")).json()
    assert canned[0]["proposal"] == "unsettled"
    gardener.settle_all(db, database)
    home = (await ds.client.get("/")).text
    assert "The gardener&#39;s findings are in step with the index (settled" in home
    assert "Not settled" not in home
    # a memory written after, its settle left pending: the findings shown are those settled, and say so
    (root / "memories" / "fleet").mkdir()
    memory(root / "memories" / "fleet", "late-port", X)
    with in_run(0):
        assert index_paths(root, db, ["memories/fleet/late-port.md"]).gardener_behind
    home = (await ds.client.get("/")).text
    assert "The gardener&#39;s findings were settled at " in home and "; 1 memory changed since" in home
    got = (await ds.client.get("/-/needs-human.json?section=proposal")).json()
    assert "1 memory changed since" in got["gardener"]
    findings = [r for r in got["rows"] if r["proposal"] in ("duplicate", "contradiction", "vague-description")]
    assert findings and {r["changed_since"] for r in findings} == {1} and all(r["settled"] for r in findings)


def test_needs_human_prints_the_whole_list_and_as_json(audited):
    db = audited
    runner = CliRunner()
    result = runner.invoke(cli, ["needs-human", "--db", str(db)])
    assert result.exit_code == 0, result.output
    whole = needs_human(db)
    for section, title in SECTIONS.items():
        assert f"{title} ({sum(r['section'] == section for r in whole)})" in result.stdout
    assert "  supersession-fork 01K0000000000000000000MMM1 [gotcha] port-7000 (fleet): supersedes" in result.stdout
    assert (
        "  concurrent-edit 01K0000000000000000000QQQ1 [gotcha] queue-lock (fleet): edited on two hosts" in result.stdout
    )
    assert "  memories/gates/broken.md: line 1: missing-description: description is required" in result.stdout
    commands = sum(bool(r["command"]) + bool(r["dismiss"]) for r in whole)  # a line each, under its proposal
    assert result.stdout.count("\n") == len(whole) + len({r["section"] for r in whole}) + commands
    rows = json.loads(runner.invoke(cli, ["needs-human", "--db", str(db), "--json"]).stdout)
    assert rows == [{"position": r["position"]} | shown(r, db) for r in whole]  # (the commands for --db)
    assert [r["position"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r["dismiss"].endswith(f"--why '...' --db {db}") for r in rows if r["proposal"] == "vague-description")
    past = json.loads(runner.invoke(cli, ["needs-human", "--db", str(db), "--json", "--as-of", "2026-05-01"]).stdout)
    then = needs_human(db, as_of="2026-05-01T00:00:00Z")
    assert past == [{"position": r["position"]} | shown(r, db) for r in then] and past != rows
    assert runner.invoke(cli, ["needs-human", "--db", str(db), "--as-of", "soon"]).exit_code == 2


async def test_every_error_of_a_file_is_listed_wherever_its_errors_are_shown(audited, explorer):
    """gates/broken.md has several errors (no id, no name, no description): `seamless check` lists each, and so do
    `needs-human --json`, the needs_human canned query, the home page's section and the section's own page."""
    checked = CliRunner().invoke(cli, ["check", str(audited.parent / "store")])
    errors = [
        tuple(line.split(": ", 1)[0].rsplit(":", 1)[1:]) + tuple(line.split(": ", 2)[1:])
        for line in checked.stdout.splitlines()
        if line.startswith(str(audited.parent / "store" / "memories/gates/broken.md"))
    ]  # (line, "error CODE", message)
    assert len(errors) >= 3, checked.stdout
    wanted = [(f"line {line}: {kind.split()[1]}", message) for line, kind, message in errors]
    rows = json.loads(CliRunner().invoke(cli, ["needs-human", "--db", str(audited), "--json"]).stdout)
    assert [(r["detail"], r["description"]) for r in rows if r["path"] == "memories/gates/broken.md"] == wanted
    canned = (await explorer.client.get("/seamless/needs_human.json?_shape=array")).json()
    assert [(r["detail"], r["description"]) for r in canned if r["path"] == "memories/gates/broken.md"] == wanted
    home = (await explorer.client.get("/")).text.split('<section class="needs-human"')[1].split("</section>")[0]
    page = (await explorer.client.get("/-/needs-human?section=error")).text
    for detail, message in wanted:
        assert f"{detail}: {message}" in home and f"{detail}: {message}" in page


def test_the_gardener_lists_forks_and_concurrent_edits_too(audited):
    db = audited
    rows = json.loads(CliRunner().invoke(cli, ["gardener", "--db", str(db), "--json"]).stdout)
    fork = next(r for r in rows if r["proposal"] == "supersession-fork")
    assert fork["id"] == M and fork["ids"] == [X, Y, M]
    assert fork["reason"] == f"supersedes {X}, but {X} names {Y} as its successor: both replaced it at once (on two " \
        "hosts?); decide which one stands and archive or supersede the other"  # fmt: skip
    edit = next(r for r in rows if r["proposal"] == "concurrent-edit")
    assert edit["ids"] == ["01K0000000000000000000QQQ1"] and "merged 2026-07-12T00:00:00Z" in edit["reason"]
    kinds = [r["proposal"] for r in rows]
    assert kinds == sorted(kinds, key=["contradiction", "duplicate", "vague-description", "archive",
                                       "supersession-fork", "concurrent-edit"].index)  # fmt: skip
    finding = next(r for r in rows if r["proposal"] == "duplicate")
    assert finding["settled"] and finding["changed_since"] == 0
    assert fork["settled"] is None  # not a finding of a settle: read from the index as it is


def test_seamless_gardener_settles_what_is_behind_first(tmp_path):
    root = tmp_path / "store"
    write_store(root, labelled_stores("dev"))
    db = tmp_path / "index.db"
    with in_run(0):
        index_store(root, db)
    now = timestamps.now()  # both lists as of one moment: each row says when it was read for
    result = CliRunner().invoke(cli, ["gardener", "--db", str(db), "--json", "--as-of", now])
    assert result.exit_code == 0, result.output
    assert "settling first: The gardener has not read this index with its rules yet" in result.stderr
    rows = json.loads(result.stdout)
    assert rows and "unsettled" not in {r["proposal"] for r in rows}
    again = CliRunner().invoke(cli, ["gardener", "--db", str(db), "--json", "--as-of", now])
    assert "settling" not in again.stderr and json.loads(again.stdout) == rows
