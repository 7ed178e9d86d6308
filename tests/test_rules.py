"""The small rules of the store, each on its own, with the seed's own examples."""

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ulid import ULID

from indexer.edit.ids import new_id
from indexer.store import rules
from indexer.store.rules import ULID_TEXT


@pytest.mark.parametrize(
    "body, header",
    [
        ("Status: open\nGate: human\n\nWaiting for a decision.", ("open", "human")),
        ("\n\nStatus: in_progress | Gate: ai", ("in_progress", "ai")),
        ("Status: blocked", ("blocked", None)),
        ("status: done\ngate: AI", ("done", "ai")),
        ("Status: done\nThe gate line is optional.", ("done", None)),
        ("X landed last week.", None),  # "a milestone breadcrumb ... is a note or a finding, not a stage"
        ("Status: maybe", None),
        ("Status: open Gate: robot", None),
        ("", None),
    ],
)
def test_a_stage_body_opens_with_its_status_and_optional_gate(body, header):
    assert rules.stage_header(body) == header


@pytest.mark.parametrize(
    "kind, stage_status, pinned",
    [
        ("constraint", None, True),  # "constraint and stage are pinned"
        ("stage", "open", True),
        ("stage", "in_progress", True),
        ("stage", "blocked", True),
        ("stage", "done", False),  # "Status: done unpins it immediately"
        ("stage", "unknown", False),  # the grace window competes like any other memory
        ("gotcha", None, False),
        ("reference", None, False),
    ],
)
def test_the_pin_belongs_to_constraints_and_live_stages(kind, stage_status, pinned):
    assert rules.pinned(kind, stage_status) is pinned


@pytest.mark.parametrize(
    "invalid_at, superseded_by, status",
    [
        (None, None, "active"),
        ("2026-08-01T00:00:00Z", "01K0AB2C3D4E5F6G7H8J9K0M1N", "superseded"),
        ("2026-08-01T00:00:00Z", None, "archived"),
    ],
)
def test_status_follows_the_lifecycle(invalid_at, superseded_by, status):
    assert rules.status(invalid_at, superseded_by) == status


@pytest.mark.parametrize(
    "project, scope",
    [
        ("seamless", "seamless"),
        (" seamless ", "seamless"),
        ("", None),
        (None, None),
        ("global", None),
    ],
)
def test_an_empty_project_or_the_word_global_is_global(project, scope):
    assert rules.scope(project) == scope


@pytest.mark.parametrize(
    "name, ok",
    [
        ("chroma-boot-race", True),
        ("x", True),
        ("v2-api", True),
        ("Chroma_Boot", False),
        ("boot race", False),
        ("-leading", False),
        ("double--dash", False),
    ],
)
def test_names_are_kebab_case(name, ok):
    assert rules.is_kebab_case(name) is ok


def test_a_description_on_several_lines_is_folded_onto_one():
    assert rules.fold_description("Console: a trailing note\n  inside a .card h2") == (
        "Console: a trailing note inside a .card h2"
    )


CROCKFORD_AND_MORE = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz-"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=CROCKFORD_AND_MORE, min_size=24, max_size=27))
def test_the_id_check_agrees_with_python_ulid(text):
    try:
        ULID.from_str(text.upper())
        valid = True
    except ValueError:
        valid = False
    assert bool(ULID_TEXT.match(text.upper())) is valid


def test_fresh_ulids_are_accepted():
    assert all(ULID_TEXT.match(str(ULID())) for _ in range(100))


def test_a_new_id_is_a_ulid_of_its_time():
    """The write path's ids, read back by python-ulid: the moment they were made, then 80 random bits."""
    before = time.time_ns() // 1_000_000
    ids = [new_id() for _ in range(200)]
    after = time.time_ns() // 1_000_000
    assert len(set(ids)) == len(ids)
    for text in ids:
        assert ULID_TEXT.match(text)
        assert before <= ULID.from_str(text).milliseconds <= after
        assert str(ULID.from_str(text)) == text


@pytest.mark.parametrize(
    "text, title",
    [
        ("---\ntitle: Deploy checklist\n---\n# Heading\n", "Deploy checklist"),  # the frontmatter's title first
        ("Intro.\n\n# Deploy checklist\n", "Deploy checklist"),  # else the first `# heading`
        (
            "```bash\n# install deps\npip install .\n```\n\n# Deploy checklist\n",
            "Deploy checklist",
        ),  # not a comment in code
        ("~~~\n# a comment\n~~~\n## Only a subheading\n", "deploy"),  # else the file name
    ],
)
def test_a_notes_title_is_its_frontmatter_title_then_its_first_heading_then_its_name(store, text, title):
    store.note("seamless/deploy.md", text)
    store.index()
    assert store.rows("select title from notes") == [(title,)]
