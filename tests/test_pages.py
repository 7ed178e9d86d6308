"""The people pages through a real Datasette (datasette.client): home, the store's life, a memory's chain and
diff, recall and the briefing. Each store is written file by file here; what the page must say follows from it."""

import asyncio
import re

import pytest
from conftest import load_plugin, started_explorer
from test_explorer import started

from indexer.front.serve import build_datasette
from indexer.query import queries
from indexer.query.briefing_text import briefing_line

AS_OF = "2026-12-02T00:00:00Z"
memory_diff = load_plugin("memory_diff")
store_life = load_plugin("store_life")


@pytest.fixture
def audited(store):
    """Two projects and global: a blocked human stage, a human stage in progress, an AI stage, a done stage
    idle for a month, a superseded memory, an archived one, a broken file and a note."""
    store.memory("deploy-freeze", kind="constraint", project="alpha", updated="2026-11-01T00:00:00Z")
    store.memory(
        "launch",
        kind="stage",
        project="alpha",
        body="Status: blocked\nGate: human\n\nSign-off.",
        updated="2026-11-30T00:00:00Z",
    )
    store.memory(
        "billing",
        kind="stage",
        project="beta",
        body="Status: in_progress\nGate: human\n\nProration.",
        updated="2026-11-20T00:00:00Z",
    )
    store.memory(
        "indexing",
        kind="stage",
        project="alpha",
        body="Status: open\nGate: ai\n\nGoing.",
        updated="2026-11-29T00:00:00Z",
    )
    store.memory(
        "migrated", kind="stage", project="beta", body="Status: done\n\nFinished.", updated="2026-11-01T00:00:00Z"
    )
    store.memory(
        "port-8001",
        project="alpha",
        description="The port is 8001",
        body="Use port 8001 now.",
        id="01K00000000000000000000NEW",
        created="2026-11-28T00:00:00Z",
        updated="2026-11-28T00:00:00Z",
    )
    store.memory(
        "port-8000",
        project="alpha",
        description="The port is 8000",
        body="Use port 8000. <script>alert(1)</script>",
        id="01K0000000000000000000PAST",
        invalid_at="2026-11-28T00:00:00Z",
        superseded_by="01K00000000000000000000NEW",
        path="memories/alpha/superseded/port-8000.md",
    )
    store.memory("old-habit", project=None, invalid_at="2026-09-01T00:00:00Z")
    store.write("memories/gamma/broken.md", "---\nkind: [\n---\nbody\n")
    store.note("alpha/findings.md", "---\nproject: alpha\n---\n# Findings about ports\n\nThe port moved twice.\n")
    store.index()
    return started_explorer(store.db_path)


async def text(ds, path, status=200):
    response = await ds.client.get(path)
    assert response.status_code == status, response.text[:500]
    return response.text


# --- home ---


async def test_home_cards_count_each_scope(audited):
    cards = {c["project"]: c for c in queries.run(audited.get_database("seamless").path, "overview", as_of=AS_OF)}
    assert list(cards) == ["alpha", "beta", "gamma", "global"]  # gamma has only a broken file: a card all the same
    alpha = cards["alpha"]
    assert (alpha["active"], alpha["pinned"], alpha["stages_open"], alpha["stages_blocked"]) == (4, 3, 1, 1)
    assert alpha["changed_7d"] == 4  # launch, indexing and port-8001 updated, port-8000 superseded
    assert (alpha["memories"], alpha["notes"]) == (5, 1)
    assert (cards["gamma"]["errors"], cards["gamma"]["active"]) == (1, 0)
    assert (cards["global"]["active"], cards["global"]["memories"]) == (0, 1)
    html = await text(audited, f"/?as_of={AS_OF}")
    for project in ("alpha", "beta", "gamma"):
        assert f'href="/seamless/briefing?project={project}&amp;as_of=2026-12-02T00%3A00%3A00Z"' in html
        assert f'href="/seamless/briefing_ledger?project={project}&amp;as_of=' in html
        assert f'href="/seamless/briefing.md?project={project}&amp;as_of=' in html
    assert '<strong class="has-errors">1 error</strong>' in html


async def test_needs_a_human_lists_blocked_stages_first_then_proposals_then_broken_files(audited):
    rows = queries.run(audited.get_database("seamless").path, "needs_human", as_of=AS_OF)
    assert [(r["section"], r["name"] or r["path"]) for r in rows] == [
        ("stage", "launch"),  # blocked, though updated after billing
        ("stage", "billing"),
        ("proposal", "migrated"),  # done and idle for a month; the AI-gated stage is nobody's to tick
        ("error", "memories/gamma/broken.md"),
    ]
    html = await text(audited, f"/?as_of={AS_OF}")
    needs = html.split('<section class="needs-human"')[1].split("</section>")[0]
    assert needs.index(">launch</a>") < needs.index(">billing</a>") < needs.index(">migrated</a>")
    assert 'href="/seamless/problems?path=memories%2Fgamma%2Fbroken.md"' in needs
    assert ">indexing<" not in needs


async def test_home_says_when_nothing_needs_a_human(store):
    store.memory("calm", kind="constraint", updated="2026-11-30T00:00:00Z")
    store.index()
    html = await text(await started(store.db_path), f"/?as_of={AS_OF}")
    assert 'class="all-clear"' in html and "needs-item" not in html


@pytest.mark.parametrize("path", ["/?as_of=2026-13-01", "/-/life?as_of=yesterday", "/-/life?by=day"])
async def test_a_bad_parameter_is_a_400_that_says_why(audited, path):
    html = await text(audited, path, status=400)
    assert "as_of: " in html or "by: &#39;day&#39; is not week or month" in html


async def test_the_home_data_is_the_canned_queries_json(audited):
    rows = (await audited.client.get(f"/seamless/needs_human.json?_shape=array&as_of={AS_OF}")).json()
    assert [r["section"] for r in rows] == ["stage", "stage", "proposal", "error"]
    cards = (await audited.client.get(f"/seamless/overview.json?_shape=array&as_of={AS_OF}")).json()
    assert [c["project"] for c in cards] == ["alpha", "beta", "gamma", "global"]


# --- the store's life ---


async def test_store_life_counts_each_period_and_kind(audited):
    db = audited.get_database("seamless").path
    weeks = queries.run(db, "store_life", as_of=AS_OF, by="")
    assert {r["by"] for r in weeks} == {"week"}  # a history of under 26 weeks
    week = {(r["period"], r["kind"]): r for r in weeks}
    assert week[("2026-11-23", "gotcha")]["superseded"] == 1  # port-8000, on Saturday 28 November
    assert week[("2026-11-23", "gotcha")]["written"] == 1  # port-8001
    months = queries.run(db, "store_life", as_of=AS_OF, by="month")
    assert sum(r["written"] for r in months) == 8 and sum(r["archived"] for r in months) == 1
    html = await text(audited, f"/-/life?as_of={AS_OF}")
    assert "<svg" in html and 'role="img"' in html and "<table>" in html
    assert "<title>2026-11-23: 1 superseded</title>" in html
    assert html.count('<tr>\n    <th scope="row">') == len(store_life.periods(weeks[0]["period"], "2026-11-30", "week"))


async def test_one_projects_life(audited):
    db = audited.get_database("seamless").path
    for project, written in (("alpha", 5), ("beta", 2), ("global", 1), ("nobody", 0)):
        rows = queries.run(db, "store_life", as_of=AS_OF, by="month", project=project)
        assert sum(r["written"] for r in rows) == written, project
    html = await text(audited, f"/-/life?project=beta&as_of={AS_OF}")
    assert "<h1>The store's life: beta</h1>" in html and "Memories of beta written" in html
    assert 'href="/-/life?project=beta&amp;as_of=2026-12-02T00%3A00%3A00Z"' in await text(audited, f"/?as_of={AS_OF}")


def test_the_chart_fills_the_periods_with_nothing_in_them():
    assert store_life.periods("2026-01-01", "2026-04-01", "month") == [
        "2026-01-01",
        "2026-02-01",
        "2026-03-01",
        "2026-04-01",
    ]
    assert store_life.periods("2026-12-28", "2027-01-11", "week") == ["2026-12-28", "2027-01-04", "2027-01-11"]
    rows = [{"period": "2026-01-01", "by": "month", "kind": "gotcha", "written": 2, "superseded": 0, "archived": 1}]
    drawn = store_life.chart(rows, "month", "2026-03-15T00:00:00Z")
    assert [p["period"] for p in drawn["periods"]] == ["2026-01-01", "2026-02-01", "2026-03-01"]
    assert [p["total"]["written"] for p in drawn["periods"]] == [2, 0, 0]
    bars = drawn["periods"][0]["bars"]
    assert [b["class"] for b in bars] == ["written", "archived"]
    assert bars[0]["y"] + bars[0]["h"] == pytest.approx(drawn["baseline"]) == pytest.approx(bars[1]["y"])


# --- a memory's page ---


async def test_a_superseded_memory_shows_what_changed_escaped(audited):
    html = await text(audited, "/seamless/memories/01K0000000000000000000PAST")
    changed = html.split('<section class="what-changed"')[1].split("</section>")[0]
    assert '<a class="diff-successor" href="/seamless/memories/01K00000000000000000000NEW">port-8001</a>' in changed
    assert "The port is <del>8000</del><ins>8001</ins>" in changed
    assert "Use port <del>8000. &lt;script&gt;alert(1)&lt;/script&gt;</del><ins>8001 now.</ins>" in changed
    assert "<script>alert" not in html


async def test_a_diff_too_slow_to_compare_gives_way_and_other_requests_are_answered(store):
    """5,000 equal short lines take difflib seconds: the page says so after its budget, and never holds the server.

    The bodies end with the store's path: a diff, once made, is cached for the process."""
    store.memory(
        "new-port", project="alpha", body="x\n" * 4990 + "y\n" * 9 + str(store.root), id="01K00000000000000000000NEW"
    )
    store.memory(
        "old-port",
        project="alpha",
        body="x\n" * 4999 + str(store.root),
        invalid_at="2026-11-28T00:00:00Z",
        superseded_by="01K00000000000000000000NEW",
    )
    store.index()
    ds = build_datasette(store.db_path)
    await ds.invoke_startup()
    old_id = store.rows("select id from memories where name = 'old-port'")[0][0]
    slow = asyncio.ensure_future(ds.client.get(f"/seamless/memories/{old_id}"))
    await asyncio.sleep(0.2)
    quick = await ds.client.get("/seamless/settings.json?_shape=array")
    assert quick.status_code == 200 and not slow.done()  # answered while the diff was still running
    changed = (await slow).text.split('<section class="what-changed"')[1].split("</section>")[0]
    assert "Too long to compare word by word" in changed


async def test_the_timeline_links_every_member_and_marks_the_current_truth(audited):
    for memory_id in ("01K0000000000000000000PAST", "01K00000000000000000000NEW"):
        html = await text(audited, f"/seamless/memories/{memory_id}")
        timeline = html.split('<section class="timeline"')[1].split("</section>")[0]
        picture = timeline.split("</svg>")[0]
        hrefs = [part.split('href="')[1].split('"')[0] for part in picture.split('<a class="timeline-node')[1:]]
        assert hrefs == [
            "/seamless/memories/01K0000000000000000000PAST",
            "/seamless/memories/01K00000000000000000000NEW",
        ]
        current = picture.split("status-active current")[1].split("</a>")[0]
        assert "port-8001" in current and "current truth" in current
        assert "(this page)" in timeline
    assert "what-changed" not in await text(audited, "/seamless/memories/01K00000000000000000000NEW")


async def test_a_memory_outside_any_chain_has_no_timeline(audited):
    memory_id = queries.rows(audited.get_database("seamless").path, "select id from memories where name = 'launch'")[0][
        "id"
    ]
    html = await text(audited, f"/seamless/memories/{memory_id}")
    assert 'class="timeline"' not in html and 'class="what-changed"' not in html


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("a b c", "a b c", "a b c"),
        ("port 8000", "port 8001", "port <del>8000</del><ins>8001</ins>"),
        ("keep <b>x</b>", "keep", "keep<del> &lt;b&gt;x&lt;/b&gt;</del>"),
        ("one two three four", "one 2 3 four", "one <del>two three</del><ins>2 3</ins> four"),  # one change, not two
        ("", "new text", "<ins>new text</ins>"),
    ],
)
def test_word_diff(old, new, expected):
    assert memory_diff.word_diff(old, new) == expected


def test_word_diff_declines_what_is_too_long_to_compare():
    assert memory_diff.word_diff("line\n" * (memory_diff.MAX_LINES + 1), "short") is None
    # a changed block too long to compare word by word is shown removed and added whole
    old, new = "old " * memory_diff.MAX_BLOCK_TOKENS, "new " * memory_diff.MAX_BLOCK_TOKENS
    assert memory_diff.word_diff(old, new) == f"<del>{old}</del><ins>{new}</ins>"


# --- recall and the briefing ---


async def test_recall_reads_like_search_results(audited):
    html = await text(audited, "/seamless/recall?q=port")
    results = html.split('<ol class="search-results">')[1].split("</ol>")[0]
    assert '<a href="/seamless/memories/01K00000000000000000000NEW">The port is 8001</a>' in results
    assert '<a href="/seamless/notes/notes~2Falpha~2Ffindings~2Emd">Findings about ports</a>' in results
    assert '<span class="badge kind kind-note">note</span>' in results
    assert "<mark>port</mark>" in results
    assert "01K0000000000000000000PAST" not in results  # superseded: never recalled
    rows = (await audited.client.get("/seamless/recall.json?q=port&_shape=array")).json()
    assert [r["id"] for r in rows] == [r["id"] for r in queries.recall(audited.get_database("seamless").path, "port")]


async def test_recall_says_which_old_truths_matched_and_what_replaced_them(audited):
    html = await text(audited, "/seamless/recall?q=8000")
    old = html.split('<section class="old-truths"')[1].split("</section>")[0]
    assert '<a href="/seamless/memories/01K0000000000000000000PAST"><del>port-8000</del></a>' in old
    assert 'now <a href="/seamless/memories/01K00000000000000000000NEW">port-8001</a>: The port is 8001' in old
    assert "old-truths" not in await text(audited, "/seamless/recall?q=findings")  # nothing superseded matches


def old_truths_told(html: str) -> list[tuple[str, list[str]]]:
    """The recall page's old truths: each current memory's id with the ids of the old ones it replaces."""
    if "old-truths" not in html:
        return []
    section = html.split('<section class="old-truths"')[1].split("</section>")[0]
    return [
        (re.search(r'now <a href="/seamless/memories/([^"]+)"', item)[1], re.findall(r'memories/([^"]+)"><del>', item))
        for item in section.split("<li>")[1:]
    ]


def old_truths_of_the_cli(db_path, q: str, limit: str, as_of: str = "") -> list[tuple[str, list[str]]]:
    found = queries.recall_superseded(db_path, q, limit=int(limit or queries.RECALL_DEFAULT), as_of=as_of or None)
    return [(r["id"], r["replaces_ids"].split(", ")) for r in found]


@pytest.mark.parametrize(("q", "limit"), [("widget", "20"), ("widget", "2"), ("widget", ""), ("something old", "1")])
async def test_the_recall_pages_old_truths_are_the_clis_for_the_same_search(store, q, limit):
    # the page hands its results to the SQL instead of ranking recall again: it must tell the same old truths
    new = store.memory("widget-now", description="Widget fact, current")
    store.memory("widget-also", description="Widget fact, also current")
    store.memory(
        "widget-then",
        description="Something old",
        body="Text. " * 300 + "widget",  # a weak match: ranked last, shown only when recall gives every match
        invalid_at="2026-07-01T00:00:00Z",
        superseded_by=new["id"],
    )
    store.index()
    html = await text(await started(store.db_path), f"/seamless/recall?q={q}&limit={limit}")
    cli = old_truths_of_the_cli(store.db_path, q, limit)
    assert old_truths_told(html) == cli
    assert bool(cli) == (limit != "2")  # at 2 the two current ones fill the results: the old one is not told


@pytest.mark.parametrize(
    ("limit", "as_of", "told"),
    [
        ("1", "", ["race-then-chroma"]),  # only the common term's bonus ranks it above the one result shown
        ("20", "", ["race-then-chroma", "race-then"]),  # recall gave every match: every old truth is told
        ("1", "2026-06-01T00:00:00Z", []),  # both were still true then: recall shows them, none is an old truth
    ],
)
async def test_the_recall_pages_old_truths_rank_as_recall_does_with_common_terms_and_as_of(
    store, monkeypatch, limit, as_of, told
):
    from indexer.query import recall_terms

    monkeypatch.setattr(recall_terms, "COMMON_DOCS", 3)  # chroma, in 5 memories, is common; race, in 3, is not
    for i in range(4):
        store.memory(f"chroma-{i}", description=f"Chroma fact {i}")
    now = store.memory("race-now", description="A race at boot")
    fixed = store.memory("boot-fixed", description="The boot order is fixed")
    old = {"invalid_at": "2026-07-01T00:00:00Z", "description": "A race at boot, seen long ago in the old days"}
    ids = {
        "race-then-chroma": store.memory("race-then-chroma", body="Chroma.", superseded_by=now["id"], **old)["id"],
        "race-then": store.memory("race-then", superseded_by=fixed["id"], **old)["id"],
    }
    store.index()
    html = await text(await started(store.db_path), f"/seamless/recall?q=chroma+race&limit={limit}&as_of={as_of}")
    cli = old_truths_of_the_cli(store.db_path, "chroma race", limit, as_of)
    assert old_truths_told(html) == cli
    assert [old_ids for _, old_ids in cli] == [[ids[name]] for name in told]


async def test_the_briefing_page_shows_the_agents_lines_with_badges(audited):
    html = await text(audited, f"/seamless/briefing?project=alpha&as_of={AS_OF}")
    rows = queries.run(audited.get_database("seamless").path, "briefing", project="alpha", as_of=AS_OF)
    lines = [part.split("</code>")[0] for part in html.split('<a class="line"')[1:]]
    assert [line.split("<code>")[1] for line in lines] == [
        briefing_line(r).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
        for r in rows
    ]
    assert "Status: blocked · Gate: human" in html and html.count('class="badge pinned"') == 3
    assert 'href="/seamless/briefing_ledger?project=alpha&amp;as_of=2026-12-02T00%3A00%3A00Z"' in html
    assert 'href="/seamless/briefing.md?project=alpha&amp;as_of=2026-12-02T00%3A00%3A00Z"' in html


async def test_a_long_section_shows_its_first_twenty_and_links_to_all(store):
    for n in range(25):
        store.memory(
            f"gate-{n:02d}", kind="stage", body="Status: open\nGate: human\n", updated=f"2026-11-{n + 1:02d}T00:00:00Z"
        )
    store.index()
    ds = await started(store.db_path)
    rows = (await ds.client.get(f"/seamless/needs_human.json?_shape=array&as_of={AS_OF}")).json()
    assert [(r["section_position"], r["in_section"]) for r in rows] == [(n, 25) for n in range(1, 26)]
    html = await text(ds, f"/?as_of={AS_OF}")
    assert html.count('<li class="needs-item">') == 20
    assert ">gate-00</a>" in html and ">gate-19</a>" in html and ">gate-20</a>" not in html  # longest waiting first
    assert ">All 25</a>" in html
