"""The generated parts of the docs (the rules table, the CLI reference) match the code they come from."""

import re
from pathlib import Path

import pytest

from docs import generate

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("page", sorted(generate.PARTS))
def test_the_generated_docs_are_up_to_date(page):
    committed = (generate.DOCS / page).read_text()
    assert committed == generate.generated(page), (
        f"docs/{page} differs from what the code gives: run `python -m docs.generate` (or `make docs`) and commit it"
    )


def test_the_rules_table_has_a_row_per_registered_code():
    from indexer.store.problems import RULES

    rows = generate.rules_table().splitlines()[2:]
    assert [row.split(" | ")[1].strip("`") for row in rows] == [rule.code for rule in RULES]


def test_the_cli_reference_has_every_command():
    import click

    from indexer.front.cli import COMMANDS, cli

    reference = generate.cli_reference()
    with click.Context(cli) as ctx:
        names = cli.list_commands(ctx)
    assert set(COMMANDS) == set(names)
    for name in names:
        assert f"### seamless {name}\n" in reference
        assert f"Usage: seamless {name} [OPTIONS]" in reference


def test_a_part_is_replaced_between_its_markers_only():
    text = "hand\n<!-- generated: x -->\nold\n<!-- end generated: x -->\nhand too\n"
    assert generate.fill(text, "x", "new") == "hand\n<!-- generated: x -->\nnew\n<!-- end generated: x -->\nhand too\n"


def test_a_page_without_its_markers_is_refused():
    with pytest.raises(ValueError, match="no '<!-- generated: x -->'"):
        generate.fill("no markers here\n", "x", "new")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.DOTALL | re.MULTILINE)  # no headings in code
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.MULTILINE)}


PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_between_the_pages_leads_somewhere(page):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in _anchors(linked)):
            broken.append(target)
    assert broken == [], f"{page.relative_to(ROOT)} links to what is not there"
