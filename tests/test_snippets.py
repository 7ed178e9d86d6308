"""Recall snippets mark each match with characters no text holds, so a body's own `**bold**` is never
taken for a match: in the CLI (which shows a memory's snippet only when it holds a match) and in the
explorer (which turns the marks into <mark>)."""

import pytest
from click.testing import CliRunner
from conftest import started_explorer

from indexer.front.cli import cli
from indexer.query import queries
from indexer.sql import canned


def test_a_body_in_bold_is_no_match(store):
    store.memory("worker", description="Restart the worker after a deploy", body="Take **caution** with queues.")
    store.memory("reboot", description="Reboot order", body="Always restart the **broker** first.")
    store.index()
    rows = {r["name"]: r for r in queries.recall(store.db_path, "restart")}
    assert canned.MATCH_START not in rows["worker"]["snippet"]  # the body does not hold the word
    assert f"{canned.MATCH_START}restart{canned.MATCH_END}" in rows["reboot"]["snippet"]

    printed = CliRunner().invoke(cli, ["recall", "restart", "--db", str(store.db_path)]).output
    assert "caution" not in printed  # a match only in the description shows no snippet
    assert "**restart** the **broker**" in printed  # the text output shows matches as **word**, as before


@pytest.fixture
def explorer(store):
    store.memory("worker", description="Restart the worker after a deploy", body="Take **caution** with queues.")
    store.index()
    return started_explorer(store.db_path)


async def test_the_explorer_marks_only_matches(explorer):
    html = (await explorer.client.get("/seamless/recall?q=restart")).text
    cell = html.split('<p class="result-snippet">')[1].split("</p>")[0]  # the recall page (docs/pages.md)
    assert "<mark>" not in cell and "**caution**" in cell
