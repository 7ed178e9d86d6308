"""Recall's snippets are plain text, with the spans of their matches beside them (`highlights`: [start, end) in
characters): no private-use character or other marker in any JSON, so a body's own `**bold**` or `<b>` is never
taken for a match. The CLI shows the matches as `**word**` (a memory's snippet only when it holds one), the
explorer's recall page in <mark>, escaped like every body."""

import json

import pytest
from click.testing import CliRunner
from conftest import started_explorer

from indexer.front.cli import cli
from indexer.query import queries, recall_snippet

PRIVATE_USE = {chr(c) for c in range(0xE000, 0xF900)}


def test_a_snippet_is_plain_text_and_its_highlights_are_the_spans_of_its_matches(store):
    store.memory("worker", description="Restart the worker after a deploy", body="Take **caution** with queues.")
    store.memory("reboot", description="Reboot order", body="Always restart the **broker** first; restarting twice.")
    store.index()
    rows = {r["name"]: r for r in queries.recall(store.db_path, "restart")}
    assert rows["worker"]["highlights"] == []  # the body does not hold the word
    reboot = rows["reboot"]
    assert reboot["snippet"].strip() == "Always restart the **broker** first; restarting twice."
    assert [reboot["snippet"][a:b] for a, b in reboot["highlights"]] == ["restart", "restarting"]  # stemmed
    assert not PRIVATE_USE & set(json.dumps(list(rows.values()), ensure_ascii=False))

    printed = CliRunner().invoke(cli, ["recall", "restart", "--db", str(store.db_path)]).output
    assert "caution" not in printed  # a match only in the description shows no snippet
    assert "Always **restart** the **broker** first; **restarting** twice." in printed  # the body's own ** kept


@pytest.mark.parametrize(
    "snippet, highlights, pieces",
    [
        ("a b c", [[2, 3]], [("a ", False), ("b", True), (" c", False)]),
        ("a b c", "[[0, 1], [4, 5]]", [("a", True), (" b ", False), ("c", True)]),  # as the canned query's JSON
        ("a b c", [[2, 3], [0, 1], [3, 99]], [("a ", False), ("b", True), (" c", False)]),  # out of order, too long
        ("", [], []),
        (None, None, []),
    ],
)
def test_a_snippet_is_read_as_its_pieces(snippet, highlights, pieces):
    assert recall_snippet.pieces(snippet, highlights) == pieces


@pytest.fixture
def explorer(store):
    store.memory("worker", description="Restart the worker after a deploy", body="Take **caution** with queues.")
    store.memory("html", description="HTML in a body", body="Never <b>restart</b> by hand: <script>x()</script>")
    store.index()
    return started_explorer(store.db_path)


async def test_the_recall_page_marks_the_highlights_and_escapes_the_rest(explorer):
    html = (await explorer.client.get("/seamless/recall?q=restart")).text
    cells = [cell.split("</p>")[0].strip() for cell in html.split('<p class="result-snippet">')[1:]]  # docs/pages.md
    assert sorted(cells) == [
        "Never &lt;b&gt;<mark>restart</mark>&lt;/b&gt; by hand: &lt;script&gt;x()&lt;/script&gt;",
        "Take **caution** with queues.",  # a match only in the description: nothing marked
    ]


async def test_the_canned_querys_json_gives_matched_and_highlights_as_json(explorer):
    for shape in ("array", "objects", "arrays"):
        response = await explorer.client.get(f"/seamless/recall.json?q=restart+hand&_shape={shape}")
        data = response.json()
        rows = data if shape == "array" else data["rows"]
        if shape == "arrays":
            rows = [dict(zip(data["columns"], row)) for row in rows]
        html = next(r for r in rows if r["name"] == "html")
        assert html["matched"] == ["restart", "hand"] and html["highlights"] == [[9, 16], [24, 28]], shape
    assert not PRIVATE_USE & set(response.text)
