"""A new memory names the active memories of its scope that may say the same (bench/similar.py measures more)."""

import json
import shutil

from click.testing import CliRunner
from conftest import EXAMPLE_STORE

from indexer.front.cli import cli


def write(tmp_path, project, name, description):
    root = tmp_path / "store"
    if not root.exists():
        shutil.copytree(EXAMPLE_STORE, root)
    args = ["write", str(root), "--project", project, "--kind", "gotcha", "--name", name]
    args += ["--description", description, "--db", str(tmp_path / "x.db"), "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_restated_fact_names_the_memory_it_restates(tmp_path):
    out = write(
        tmp_path,
        "tidepool",
        "amounts-as-minor-units",
        "Store money as integer minor units (cents) with an ISO currency code, never as float or Decimal",
    )
    assert [s["name"] for s in out["similar"]] == ["money-in-integer-cents"]
    assert out["similar"][0]["project"] == "tidepool" and 0 < out["similar"][0]["score"] <= 1


def test_a_new_fact_names_nothing_and_other_scopes_never_count(tmp_path):
    out = write(tmp_path, "tidepool", "email-provider-postmark", "Transactional email goes through Postmark, not SES")
    assert out["similar"] == []
    # the same words as a tidepool memory, written to another project: not the same scope
    out = write(tmp_path, "seamless", "money-again", "Money is an integer count of the currency's minor unit")
    assert out["similar"] == []


def test_the_text_output_hints_at_supersedes(tmp_path):
    root = tmp_path / "store"
    shutil.copytree(EXAMPLE_STORE, root)
    result = CliRunner().invoke(
        cli,
        ["write", str(root), "--project", "seamless", "--kind", "gotcha", "--name", "mcp-no-print-stdout",
         "--description", "Never print to stdout from the MCP stdio server: stdout carries JSON-RPC",
         "--db", str(tmp_path / "x.db")],
    )  # fmt: skip
    assert "use --supersedes ID" in result.output and "mcp-stdout-is-protocol" in result.output
