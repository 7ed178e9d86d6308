"""One source (SPEC section 13): the CLI, the `recall` canned query through Datasette and the MCP tool through the
official client give the same results, each with the same `matched` terms and highlighted snippet, for the same
text."""

import json
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE_STORE
from stores import seamless_command

from bench.recall import labelled_questions
from indexer.front.cli import cli
from indexer.front.serve import build_datasette

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HOSTILE = ['NOT "chroma', "name: port (8001)", "🦜 CHROMA_PORT? 🦜", "seamless.db --full", "???"]


def asked() -> list[dict]:
    """A few dozen texts: questions, error lines and keywords of the labelled set, hostile ones, and some as of a time,
    naming a time, stamped as a log line, or with every word required."""
    _split, parts = labelled_questions()
    texts = [
        {"q": q.q} for part, n in (("questions", 20), ("error lines", 5), ("keywords", 8)) for q in parts[part][:n]
    ]
    texts += [{"q": q} for q in HOSTILE]
    texts += [
        {"q": "what port does chroma listen on?", "as_of": "2026-05-01"},
        {"q": "stripe api version", "all": True},
        {"q": "what did we change about recall in August 2026?"},  # a time: a bonus, and `matched` says it
        {"q": "[2026-08-20 09:12:44 +0000] [7] [ERROR] gardener lost its watch on the store"},  # a stamp: no time
        {"q": "what did we start on the tidepool front end last week?", "as_of": "2026-08-25"},
    ]
    return texts


def from_cli(db, ask: dict) -> list[tuple]:
    args = ["recall", ask["q"], "--json", "--limit", "10", "--db", str(db)]
    args += ["--as-of", ask["as_of"]] if "as_of" in ask else []
    args += ["--all"] if ask.get("all") else []
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return [(r["id"], r["matched"], r["snippet"], r["highlights"]) for r in json.loads(result.stdout)]


async def from_canned(ds, ask: dict) -> list[tuple]:
    params = {
        "q": ask["q"],
        "limit": 10,
        "as_of": ask.get("as_of", ""),
        "all": 1 if ask.get("all") else "",
        "_shape": "array",
    }
    response = await ds.client.get("/seamless/recall.json?" + urlencode(params))
    assert response.status_code == 200, response.text
    return [(r["id"], r["matched"], r["snippet"], r["highlights"]) for r in response.json()]  # JSON, not text


async def from_mcp(session, ask: dict) -> list[tuple]:
    arguments = {"query": ask["q"], "limit": 10, "as_of": ask.get("as_of"), "all": bool(ask.get("all"))}
    result = await session.call_tool("recall", {k: v for k, v in arguments.items() if v is not None})
    assert not result.is_error, result.content
    rows = result.structured_content["result"] if result.structured_content else json.loads(result.content[0].text)
    return [(r["id"], r["matched"], r["snippet"], r["highlights"]) for r in rows]


async def test_the_cli_the_canned_query_and_mcp_answer_alike(example_db):
    ds = build_datasette(example_db)
    await ds.invoke_startup()
    command, *args = seamless_command("mcp", EXAMPLE_STORE, "--db", example_db)
    params = StdioServerParameters(command=command, args=args, env={})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answered = 0
        for ask in asked():
            cli_rows = from_cli(example_db, ask)
            assert await from_canned(ds, ask) == cli_rows, ask
            assert await from_mcp(session, ask) == cli_rows, ask
            answered += bool(cli_rows)
    assert answered >= len(asked()) - 1  # only "???" finds nothing
