"""Every rule of SPEC section 5, one fixture each: the problem, its line, and nothing else lost.

Each case in tests/fixtures/rules/<case>/ is copied into a fresh store beside one
good memory; the good memory must always be indexed.
"""

import json
import shutil

import pytest
from conftest import FIXTURES

RULES = FIXTURES / "rules"

# case: (expected problems as (file, line, severity, code), is the case's file indexed?)
CASES = {
    "empty-file": ([("case.md", 1, "error", "empty-file")], False),
    "not-utf8": ([("case.md", 16, "error", "not-utf8")], False),
    "too-large": ([("case.md", 1, "error", "too-large")], False),
    "binary-file": ([("case.md", 16, "error", "binary-file")], False),
    "no-frontmatter": ([("case.md", 1, "error", "no-frontmatter")], False),
    "unclosed-frontmatter": ([("case.md", 1, "error", "unclosed-frontmatter")], False),
    "yaml-error": ([("case.md", 14, "error", "yaml-error")], False),  # the unclosed list
    "yaml-duplicate-key": ([("case.md", 15, "error", "yaml-error")], False),
    "not-a-mapping": ([("case.md", 1, "error", "not-a-mapping")], False),
    "missing-kind": ([("case.md", 1, "error", "missing-kind")], False),
    "unknown-kind": ([("case.md", 3, "error", "unknown-kind")], False),
    "missing-id": ([("case.md", 1, "error", "missing-id")], False),
    "malformed-id": ([("case.md", 2, "error", "malformed-id")], False),
    "missing-name": ([("case.md", 1, "error", "missing-name")], False),
    "missing-description": ([("case.md", 1, "error", "missing-description")], False),
    "bad-timestamp": ([("case.md", 8, "error", "bad-timestamp")], False),
    "bad-timestamp-impossible": ([("case.md", 8, "error", "bad-timestamp")], False),  # 30 February
    "hand-stamped": ([("case.md", 11, "error", "hand-stamped")], False),
    "duplicate-id": ([("second.md", 2, "error", "duplicate-id")], False),
    "duplicate-name": ([("second.md", 4, "error", "duplicate-name")], False),
    "description-too-long": ([("case.md", 5, "warning", "description-too-long")], True),
    "description-multiline": ([("case.md", 5, "warning", "description-multiline")], True),
    "name-not-kebab": ([("case.md", 4, "warning", "name-not-kebab")], True),
    "yaml-trap-name-no": ([("case.md", 4, "warning", "yaml-trap")], True),
    "yaml-trap-digit-id": ([("case.md", 2, "warning", "yaml-trap")], True),
    "tags-bare-string": ([("case.md", 14, "warning", "tags-bare-string")], True),
    "bad-tags": ([("case.md", 14, "warning", "bad-tags")], True),  # a tag that is a mapping
    "stage-header": ([("case.md", 17, "warning", "stage-header")], True),
    "dangling-supersession": ([("case.md", 11, "warning", "dangling-supersession")], True),
    "supersession-cycle": (
        [("a.md", 11, "warning", "supersession-cycle"), ("b.md", 11, "warning", "supersession-cycle")],
        True,
    ),
    "timestamps": ([], True),
    "utf8-bom": ([], True),
    "crlf": ([], True),
}


def load_case(store, case: str) -> None:
    """Copy a fixture case into the store, beside one good memory of another project."""
    for source in (RULES / case).iterdir():
        if source.name == "seamless.toml":
            shutil.copy(source, store.root / source.name)
        else:
            store.write(f"memories/seamless/{source.name}", source.read_bytes())
    store.memory("good-neighbour", project="elsewhere", id="01K9ZZ0000000000000000G00D")


def test_every_fixture_case_is_listed():
    assert sorted(p.name for p in RULES.iterdir()) == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule(store, case):
    expected, indexed = CASES[case]
    load_case(store, case)
    summary = store.index()
    problems = store.rows("select path, line, severity, code from problems order by path, line")
    assert problems == [(f"memories/seamless/{f}", line, sev, code) for f, line, sev, code in expected]
    # the good neighbour is never lost
    assert store.rows("select name from memories where project = 'elsewhere'") == [("good-neighbour",)]
    case_rows = store.rows("select path from memories where path like 'memories/seamless/%'")
    errors = {f for f, _, sev, _ in expected if sev == "error"}
    assert len(case_rows) == len(list((RULES / case).glob("*.md"))) - len(errors)
    assert bool(case_rows) == indexed or errors
    assert summary.errors == len(errors)


def test_problem_lines_print_as_path_line_severity_code_message(store):
    load_case(store, "unknown-kind")
    (problem,) = store.index().problems
    assert problem.format("store") == (
        "store/memories/seamless/case.md:3: error unknown-kind: kind 'opinion' is not one of "
        "constraint, runbook, protocol, gotcha, decision, refuted, reference, stage"
    )


def test_name_no_is_kept_as_written(store):
    load_case(store, "yaml-trap-name-no")
    store.index()
    assert store.rows("select name from memories where path = 'memories/seamless/case.md'") == [("no",)]


def test_all_digit_id_is_kept_as_written(store):
    load_case(store, "yaml-trap-digit-id")
    store.index()
    assert store.rows("select id from memories where path = 'memories/seamless/case.md'") == [
        ("71234567890123456789012345",)
    ]


def test_timestamps_become_utc_text(store):
    load_case(store, "timestamps")
    store.index()
    assert store.rows("select created, updated, valid_from from memories where path = 'memories/seamless/case.md'") == [
        ("2026-07-10T00:00:00Z", "2026-07-10T18:00:00Z", "2026-07-10T00:00:00Z")
    ]


def test_a_tag_that_is_not_text_is_left_out(store):
    load_case(store, "bad-tags")
    store.index()
    assert store.rows("select tags from memories where path = 'memories/seamless/case.md'") == [('["chroma"]',)]


def test_an_unknown_setting_is_a_warning_at_its_line(store):
    store.write("seamless.toml", "[briefing]\nbudget_chars = 3000\nbudget_words = 500\n")
    store.memory("one")
    assert [(p.path, p.line, p.severity, p.code) for p in store.index().problems] == [
        ("seamless.toml", 3, "warning", "unknown-setting")
    ]
    assert store.rows("select value from settings where key = 'briefing.budget_chars'") == [(3000,)]


def test_bare_string_tag_becomes_one_tag(store):
    load_case(store, "tags-bare-string")
    store.index()
    (tags,) = store.rows("select tags from memories where path = 'memories/seamless/case.md'")[0]
    assert json.loads(tags) == ["chroma"]


def test_multiline_description_is_folded(store):
    load_case(store, "description-multiline")
    store.index()
    assert store.rows("select description from memories where path = 'memories/seamless/case.md'") == [
        ("first line second line",)
    ]


@pytest.mark.parametrize(
    "case, bom, body",
    [("crlf", False, "Status line\nbody\n"), ("utf8-bom", False, "body\n"), ("crlf", True, "Status line\nbody\n")],
)
def test_crlf_and_bom_come_out_right(store, case, bom, body):
    load_case(store, case)
    if bom:  # both at once: the CRLF file with a byte order mark
        store.write("memories/seamless/case.md", b"\xef\xbb\xbf" + (RULES / case / "case.md").read_bytes())
    store.index()
    assert store.rows("select body, name from memories where path = 'memories/seamless/case.md'") == [
        (body, "case-memory")
    ]


def test_duplicate_id_keeps_the_earliest_created(store):
    load_case(store, "duplicate-id")
    store.index()
    assert store.rows("select name from memories where project = 'seamless'") == [("first-of-two",)]


def test_unknown_stage_header_is_status_unknown(store):
    load_case(store, "stage-header")
    store.index()
    assert store.rows("select stage_status, pinned from memories where kind = 'stage'") == [("unknown", 0)]


def test_a_duplicate_without_created_dates_says_why_the_other_won(store):
    store.note("seamless/a.md", "---\nid: 01K9ZZ00000000000000000N01\n---\n# A\n")
    store.note("seamless/b.md", "---\nid: 01K9ZZ00000000000000000N01\n---\n# B\n")
    store.index()
    [(path, message)] = store.rows("select path, message from problems where code = 'duplicate-id'")
    assert path == "notes/seamless/b.md"
    assert message.endswith(
        "also used by notes/seamless/a.md and neither has a created date: the first path is indexed"
    )
