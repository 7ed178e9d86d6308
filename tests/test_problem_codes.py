"""The registry of problem codes (indexer.store.problems.RULES) is the one list of them: code, severity, meaning.

Validation can only report a registered code at its registered severity, every code the indexer's source
reports is registered, and every registered code is expected by some test.
"""

import ast
import re
from pathlib import Path

import pytest

from indexer.store import parse, problems, rules, yaml_loader
from indexer.store.problems import CODES, ERROR, RULES, WARNING

ROOT = Path(__file__).resolve().parent.parent


def indexer_sources() -> list[ast.Module]:
    return [
        ast.parse(path.read_text(), str(path))
        for path in sorted((ROOT / "indexer").rglob("*.py"))
        if path.name != "problems.py"
    ]


def reported_codes() -> set[tuple[str, str]]:
    """(code, severity) of every `error(..., code, message)` or `warning(...)` call in indexer/ with a literal code."""
    found = set()
    for module in indexer_sources():
        for node in ast.walk(module):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            code = node.args[-2]
            if name in (ERROR, WARNING) and isinstance(code, ast.Constant) and isinstance(code.value, str):
                found.add((code.value, name))
    return found


def test_each_code_is_registered_once_with_a_severity_and_a_meaning():
    assert len(CODES) == len(RULES)
    for rule in RULES:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.code)
        assert rule.severity in (ERROR, WARNING)
        assert rule.meaning and not rule.meaning.endswith(".")


def test_the_meanings_quote_the_limits_the_code_enforces():
    assert f"over {rules.DESCRIPTION_MAX} characters" in CODES["description-too-long"].meaning
    assert f"over {parse.MAX_FRONTMATTER_BYTES // 1024} KB" in CODES["frontmatter-too-large"].meaning
    assert f"over {yaml_loader.MAX_DEPTH:,} levels" in CODES["yaml-error"].meaning


def test_an_unregistered_code_fails_loudly():
    with pytest.raises(ValueError, match=r"'no-such-rule' is not in indexer\.store\.problems\.RULES"):
        problems.error("memories/a.md", 1, "no-such-rule", "message")


def test_a_code_at_another_severity_fails_loudly():
    with pytest.raises(ValueError, match="'yaml-trap' is registered as warning, not error"):
        problems.error("memories/a.md", 1, "yaml-trap", "message")
    with pytest.raises(ValueError, match="'empty-file' is registered as error, not warning"):
        problems.warning("memories/a.md", 1, "empty-file", "message")


def test_a_registered_code_makes_a_problem():
    assert problems.warning("memories/a.md", 3, "yaml-trap", "kept").format() == (
        "memories/a.md:3: warning yaml-trap: kept"
    )


def test_every_code_the_indexer_reports_is_registered_at_that_severity():
    reported = reported_codes()
    assert len(reported) > 20, "few error()/warning() calls found: has the way problems are made changed?"
    assert reported <= {(rule.code, rule.severity) for rule in RULES}


def test_every_registered_code_is_used_by_the_indexer():
    literals = {
        node.value for module in indexer_sources() for node in ast.walk(module) if isinstance(node, ast.Constant)
    }
    assert [rule.code for rule in RULES if rule.code not in literals] == []


def test_every_registered_code_is_expected_by_a_test():
    sources = "\n".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py") if p.name != Path(__file__).name)
    untested = [rule.code for rule in RULES if f'"{rule.code}"' not in sources]
    assert untested == []
