"""The people pages in headless Chromium, against a real `seamless serve` over the bundled example store.

What the pages must show is worked out here from the store's files and the seed's rules, not from the
index. Screenshots go to test-artifacts/pages-*.png, and each page's at 1280 and at 390 pixels wide to
test-artifacts/fit-*.png.
"""

import datetime as dt
import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
import yaml
from test_served import Server, screenshot

from indexer.index.build import index_store
from indexer.sql.canned import PARAMS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "store"
AS_OF = "2026-12-02T00:00:00Z"  # the pages are asked for this moment, so the expectation does not age
LIVE = ("open", "in_progress", "blocked")


@pytest.fixture(scope="module")
def example_served(tmp_path_factory):
    """`seamless serve` over a copy of examples/store, exactly as bundled."""
    tmp = tmp_path_factory.mktemp("pages")
    shutil.copytree(EXAMPLE, tmp / "store")
    index_store(tmp / "store", tmp / "pages.db", full=True)
    server = Server(tmp / "pages.db", tmp / "serve.log")
    yield server
    server.stop()


# --- the store, read from its files with the seed's rules ---


def read_memories(store: Path) -> list[dict]:
    """Every memory file's frontmatter, with `body` and the stage header read as the seed says."""
    memories = []
    for path in sorted((store / "memories").rglob("*.md")):
        _, front, body = path.read_text("utf-8").split("---\n", 2)
        meta = yaml.safe_load(front)
        for key in ("created", "updated", "valid_from", "invalid_at"):  # YAML reads timestamps as datetimes
            if isinstance(meta.get(key), dt.datetime):
                meta[key] = meta[key].astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        status = re.fullmatch(r"Status: (\w+)", lines[0]) if lines else None
        gate = re.fullmatch(r"Gate: (\w+)", lines[1]) if status and len(lines) > 1 else None
        meta["stage_status"] = status[1] if status else "unknown"
        meta["stage_gate"] = gate[1] if gate else None
        memories.append(meta)
    return memories


def days_before(moment: str, days: int) -> str:
    when = dt.datetime.strptime(moment, "%Y-%m-%dT%H:%M:%SZ") - dt.timedelta(days=days)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def needs_a_human(store: Path, as_of: str) -> dict[str, list[str]]:
    """What the seed says a person must look at, by name: human-gated live stages (blocked first, then the longest
    waiting), the gardener's proposals (oldest first); the example store has no broken file."""
    settings = tomllib.loads((store / "seamless.toml").read_text())["gardener"]
    valid = [m for m in read_memories(store) if m.get("invalid_at") is None or m["invalid_at"] > as_of]
    stages = [m for m in valid if m["kind"] == "stage" and m["stage_status"] in LIVE and m["stage_gate"] == "human"]
    stages.sort(key=lambda m: (m["stage_status"] != "blocked", m["updated"]))
    proposals = []
    for m in valid:
        pinned = m["kind"] == "constraint" or (m["kind"] == "stage" and m["stage_status"] in LIVE)
        if pinned:
            continue
        gateless = m["kind"] == "stage" and m["stage_status"] in ("done", "unknown")
        days = settings["stale_stage_days"] if gateless else settings["stale_days"]
        if m["updated"] < days_before(as_of, days):
            proposals.append(m)
    proposals.sort(key=lambda m: m["updated"])
    return {"stage": [m["name"] for m in stages], "proposal": [m["name"] for m in proposals]}


def chain_of(store: Path, name: str) -> list[dict]:
    """The supersession chain `name` belongs to, oldest first, followed through the files' superseded_by."""
    memories = read_memories(store)
    by_id = {m["id"]: m for m in memories}
    replaced = {m["superseded_by"]: m for m in memories if m.get("superseded_by")}
    first = next(m for m in memories if m["name"] == name)
    while first["id"] in replaced:
        first = replaced[first["id"]]
    chain = [first]
    while chain[-1].get("superseded_by"):
        chain.append(by_id[chain[-1]["superseded_by"]])
    return chain


def watch_errors(page_) -> list[str]:
    """Collect the page's script errors and console errors from now on."""
    errors = []
    page_.on("pageerror", lambda e: errors.append(str(e)))
    page_.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


# --- the tests ---


@pytest.mark.browser
def test_needs_a_human_is_what_the_seeds_rules_say(example_served, page):
    expected = needs_a_human(EXAMPLE, AS_OF)
    assert expected["stage"] and expected["proposal"]  # the example store has both, so the test can fail
    errors = watch_errors(page)
    page.goto(f"{example_served.url}/?as_of={AS_OF}")
    for section, names in expected.items():
        # the gardener's archive proposals (what else it reads is tests/test_gardener_reads.py's)
        only = "[data-proposal=archive]" if section == "proposal" else ""
        assert page.locator(f"ul.needs-{section} li{only} .needs-link").all_inner_texts() == names, section
    assert page.locator("ul.needs-error").count() == 0
    # each links to its memory's page
    page.locator("ul.needs-stage .needs-link").first.click()
    page.wait_for_url("**/seamless/memories/*")
    assert page.locator("h1.memory-name").inner_text() == expected["stage"][0]
    assert errors == []


@pytest.mark.browser
def test_a_person_answers_a_proposal_with_the_command_its_page_gives(tmp_path, page):
    """Each proposal on the needs-human page carries the command that dismisses it, counted in its group: run as the
    page gives it (a reason said), from another folder, it takes that proposal off the page and its group's count."""
    shutil.copytree(EXAMPLE, tmp_path / "store")
    index_store(tmp_path / "store", tmp_path / "answer.db", full=True)
    server = Server(tmp_path / "answer.db", tmp_path / "serve.log")
    url = f"{server.url}/-/needs-human?section=proposal"
    try:
        page.goto(url)
        names = page.locator("ol.needs-proposal .needs-link").all_inner_texts()
        groups = page.locator(".proposal-groups li").all_inner_texts()
        assert names and groups, "the example store has proposals, so the test can fail"
        first = page.locator("ol.needs-proposal li.needs-item").first
        dismiss = next(c for c in first.locator(".needs-commands code").all_inner_texts() if " dismiss " in c)
        words = shlex.split(dismiss.replace("'...'", "'kept: still true'"))
        assert words[:3] == ["seamless", "gardener", "dismiss"]
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        done = subprocess.run([Path(sys.executable).with_name("seamless"), *words[1:]], cwd=elsewhere,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        page.reload()
        after = page.locator("ol.needs-proposal .needs-link").all_inner_texts()
        assert after[: len(names) - 1] == names[1:]  # the next page's first may join at the end
        counts = [int(re.search(r"\((\d+)\)", g)[1]) for g in page.locator(".proposal-groups li").all_inner_texts()]
        assert sum(counts) == sum(int(re.search(r"\((\d+)\)", g)[1]) for g in groups) - 1
        screenshot(page, "pages-needs-answered")
    finally:
        server.stop()


@pytest.mark.browser
def test_the_home_cards_link_to_each_briefing_and_ledger(example_served, page):
    page.goto(f"{example_served.url}/?as_of={AS_OF}")
    projects = {m["project"] or "global" for m in read_memories(EXAMPLE)}
    titles = [t.split("(")[0].strip().lower() for t in page.locator(".scope-card h3").all_inner_texts()]
    assert sorted(titles) == sorted(projects)
    screenshot(page, "pages-1-home")
    card = page.locator(".scope-card", has_text="tidepool")
    card.get_by_role("link", name="Briefing").click()
    page.wait_for_url("**/seamless/briefing?project=tidepool&as_of=*")
    assert page.locator(".briefing-line").count() > 0
    screenshot(page, "pages-2-briefing")
    page.locator("a.ledger-link").click()
    page.wait_for_url("**/seamless/briefing_ledger?*project=tidepool*")


@pytest.mark.browser
def test_the_diff_and_the_timeline_link_the_right_memories(example_served, page):
    chain = chain_of(EXAMPLE, "chroma-port-8000")
    assert len(chain) >= 3
    old, successor = chain[0], chain[1]
    errors = watch_errors(page)
    page.goto(f"{example_served.url}/seamless/memories/{old['id']}")
    nodes = page.locator("svg.timeline-picture a")
    assert [h.split("/")[-1] for h in nodes.evaluate_all("as => as.map(a => a.getAttribute('href'))")] == [
        m["id"] for m in chain
    ]
    current = [m["id"] for m in chain if m.get("invalid_at") is None]
    assert page.locator("svg.timeline-picture a.current").get_attribute("href").endswith(current[-1])
    assert "current truth" in page.locator("svg.timeline-picture a.current").text_content()
    assert page.locator(".what-changed a.diff-successor").get_attribute("href").endswith(successor["id"])
    assert page.locator(".diff-description del").count() and page.locator(".diff-description ins").count()
    removed = " ".join(page.locator(".diff-body del").all_inner_texts())
    assert "8000" in removed and "8001" in " ".join(page.locator(".diff-body ins").all_inner_texts())
    screenshot(page, "pages-3-chain", scroll_to=".timeline")
    screenshot(page, "pages-4-what-changed", scroll_to=".what-changed")
    nodes.nth(2).click()
    page.wait_for_url(f"**/seamless/memories/{chain[2]['id']}")
    assert page.locator("h1.memory-name").inner_text() == chain[2]["name"]
    assert errors == []


@pytest.mark.browser
def test_recall_reads_like_search_results(example_served, page):
    page.goto(f"{example_served.url}/seamless/recall")
    page.fill("input[name=q]", "chroma")
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**/seamless/recall?q=chroma*")
    results = page.locator(".search-result")
    assert results.count() > 0
    assert page.locator(".result-snippet mark").count() > 0
    screenshot(page, "pages-5-recall")
    headline = results.first.locator(".result-headline a")
    text = headline.inner_text()
    headline.click()
    page.wait_for_url("**/seamless/memories/*")
    assert page.locator(".memory-description").inner_text() == text


# --- pages fit a person's screen: bounding boxes at a laptop's width and a phone's ---

SCREENS = {1280: 900, 390: 844}  # width: height
PAGES = {
    "home": "/?as_of=" + AS_OF,
    "needs": "/-/needs-human?section=proposal&as_of=" + AS_OF,
    "life": "/-/life?as_of=" + AS_OF,
    "memory": "/seamless/memories/{old}",
    "attribution": "/-/attribution",
    "briefing": "/seamless/briefing?project=seamless&as_of=" + AS_OF,
}
ARGUMENTS = {"as_of": AS_OF, "project": "seamless", "q": "chroma", "id": "{old}"}  # a canned query's parameters
# What a page shows: each row's description (a recall result's headline) and the ids and paths beside it
MEASURE = """() => {
  const width = e => e.getBoundingClientRect().width;
  const rows = [...document.querySelectorAll('.record, .search-result, table.rows-and-columns tbody tr')];
  return {
    scrollWidth: document.documentElement.scrollWidth,
    sideways: [...document.querySelectorAll('.table-wrapper')].filter(w => w.scrollWidth > w.clientWidth).length,
    firstRowTop: rows.length ? rows[0].getBoundingClientRect().top + window.scrollY : null,
    rows: rows.map(r => ({
      description: [...r.querySelectorAll('.record-headline, .result-headline, td.col-description')].map(width),
      ids: [...r.querySelectorAll(':is(.field-id, .field-path, .field-ids) dd, .result-name, td:is(.col-id, .col-path)')].map(width),
    })),
  };
}"""


def screen(browser, width: int):
    context = browser.new_context(viewport={"width": width, "height": SCREENS[width]})
    page_ = context.new_page()
    page_.set_default_timeout(10_000)
    return context, page_


def measured(page_, url: str, shot: str) -> dict:
    errors = watch_errors(page_)
    assert page_.goto(url).status == 200, url
    boxes = page_.evaluate(MEASURE)
    screenshot(page_, shot)
    assert errors == [], url
    return boxes


def canned_queries(base: str) -> dict[str, str]:
    """Every canned query of the explorer (as Datasette lists them), with parameters that give it rows."""
    with urllib.request.urlopen(base + "/seamless.json") as response:
        names = [q["name"] for q in json.load(response)["queries"]]
    return {name: f"/seamless/{name}?" + "&".join(f"{p}={ARGUMENTS[p]}" for p in PARAMS.get(name, ()) if p in ARGUMENTS)
            for name in names}  # fmt: skip


@pytest.mark.browser
@pytest.mark.parametrize("width", SCREENS)
def test_no_canned_query_page_runs_off_the_screen(example_served, browser, width):
    """Each canned query's page fits the screen: nothing scrolls sideways, the page or a table inside it; each row's
    description is at least as wide as any id or path beside it (they wrap, it gets the room)."""
    old = chain_of(EXAMPLE, "chroma-port-8000")[0]["id"]
    queries = canned_queries(example_served.url)
    assert {"needs_human", "gardener", "history", "briefing_ledger", "recall", "attribution"} <= set(queries)
    context, page_ = screen(browser, width)
    try:
        for name, path in queries.items():
            boxes = measured(page_, example_served.url + path.format(old=old), f"fit-{name}-{width}")
            assert boxes["scrollWidth"] <= width and boxes["sideways"] == 0, (name, boxes["scrollWidth"])
            if name in ("needs_human", "gardener", "history", "briefing_ledger", "recall"):
                assert boxes["rows"] and all(row["description"] for row in boxes["rows"]), name  # so it can fail
            for row in boxes["rows"]:
                assert all(d >= i for d in row["description"] for i in row["ids"]), (name, row)
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("width", SCREENS)
def test_the_people_pages_fit_the_screen(example_served, browser, width):
    old = chain_of(EXAMPLE, "chroma-port-8000")[0]["id"]
    context, page_ = screen(browser, width)
    try:
        for name, path in PAGES.items():
            boxes = measured(page_, example_served.url + path.format(old=old), f"fit-{name}-{width}")
            assert boxes["scrollWidth"] <= width, (name, boxes["scrollWidth"])  # wide pictures scroll inside
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("width", SCREENS)
def test_the_memories_table_shows_its_first_rows_on_the_first_screen(example_served, browser, width):
    """Each facet shows its top five values and a "more" that lists them all; the rows start on the first screen,
    the description column at least as wide as the id and the path."""
    tags = {tag for m in read_memories(EXAMPLE) for tag in m.get("tags") or []}
    assert len(tags) > 5
    context, page_ = screen(browser, width)
    try:
        boxes = measured(page_, example_served.url + "/seamless/memories", f"fit-memories-{width}")
        assert boxes["firstRowTop"] < SCREENS[width], boxes["firstRowTop"]
        assert boxes["scrollWidth"] <= width  # the table's twenty columns scroll inside it
        first = boxes["rows"][0]
        assert first["description"] and all(d >= i for d in first["description"] for i in first["ids"]), first
        facets = page_.locator(".facet-info")
        assert facets.count() == 6
        for n in range(facets.count()):
            assert facets.nth(n).locator("li:not(.facet-truncated)").count() <= 5
        tags_facet = page_.locator("#facet-tags")
        tags_facet.get_by_role("link", name="more").click()
        page_.wait_for_url("**_facet_size=max*")
        assert tags_facet.locator("li:not(.facet-truncated)").count() == len(tags)
        screenshot(page_, f"fit-memories-more-{width}", scroll_to="#facet-tags")
        tags_facet.get_by_role("link", name="fewer").click()
        page_.wait_for_url(lambda url: "_facet_size" not in url)
        assert tags_facet.locator("li:not(.facet-truncated)").count() == 5
    finally:
        context.close()


@pytest.mark.browser
def test_the_store_life_chart_has_its_figures_as_text(example_served, page):
    page.goto(f"{example_served.url}/-/life?as_of={AS_OF}&by=month")
    memories = read_memories(EXAMPLE)
    rows = page.locator(".life-table tbody tr")
    written = sum(int(t) for t in rows.locator("td:nth-of-type(1)").all_inner_texts())
    assert written == sum(1 for m in memories if m["created"] <= AS_OF)
    superseded = sum(int(t) for t in rows.locator("td:nth-of-type(2)").all_inner_texts())
    assert superseded == sum(1 for m in memories if m.get("superseded_by"))
    bars = page.locator("svg rect.bar")
    assert bars.count() > 0 and all(bars.locator("title").all_text_contents())
    screenshot(page, "pages-6-life")
