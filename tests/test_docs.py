"""The generated parts of the docs (the rules table, the CLI reference) match the code they come from."""

import pytest

from docs import generate


@pytest.mark.parametrize("page", sorted(generate.PARTS))
def test_the_generated_docs_are_up_to_date(page):
    committed = (generate.DOCS / page).read_text()
    assert committed == generate.generated(page), (
        f"docs/{page} differs from what the code gives: run `python -m docs.generate` (or `make docs`) and commit it"
    )


def test_the_rules_table_has_a_row_per_registered_code():
    from indexer.problems import RULES

    rows = generate.rules_table().splitlines()[2:]
    assert [row.split(" | ")[1].strip("`") for row in rows] == [rule.code for rule in RULES]


def test_the_cli_reference_has_every_command():
    from indexer.cli import cli

    reference = generate.cli_reference()
    for name in cli.commands:
        assert f"### seamless {name}\n" in reference
        assert f"Usage: seamless {name} [OPTIONS]" in reference


def test_a_part_is_replaced_between_its_markers_only():
    text = "hand\n<!-- generated: x -->\nold\n<!-- end generated: x -->\nhand too\n"
    assert generate.fill(text, "x", "new") == "hand\n<!-- generated: x -->\nnew\n<!-- end generated: x -->\nhand too\n"


def test_a_page_without_its_markers_is_refused():
    with pytest.raises(ValueError, match="no '<!-- generated: x -->'"):
        generate.fill("no markers here\n", "x", "new")
