"""The layers' shape: data flows one way, each fact has one source, library code leaves output to the CLI."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from indexer import sql
from indexer.parse import parse_bytes
from indexer.validate import memory_record, note_record

INDEXER = Path(__file__).resolve().parent.parent / "indexer"
MEMORY = b"---\nid: 01K0000000000000000000AAA1\nkind: stage\nname: a-name\ndescription: d\n---\nStatus: open\n"


def imported_by(module: str) -> set[str]:
    code = f"import sys, {module}; print(' '.join(m for m in sys.modules if m.startswith('indexer')))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


def test_opening_the_index_does_not_import_the_queries():
    """database -> views -> queries -> database was a cycle: the writer ensures the views, not the database."""
    assert not imported_by("indexer.database") & {"indexer.views", "indexer.queries", "indexer.build"}
    assert not imported_by("indexer.queries") & {"indexer.database", "indexer.build"}


def test_a_record_has_the_columns_of_its_table():
    """schema.sql is the one list of the columns: validation makes records with exactly those keys."""
    memory, _ = memory_record(parse_bytes("memories/x.md", MEMORY, 4096))
    note, _ = note_record(parse_bytes("notes/x.md", b"# Title\n", 4096))
    assert tuple(memory) == sql.columns("memories")
    assert set(note) == set(sql.columns("notes"))


# the modules data flows through, files to index to queries (commands such as cli.py and watch.py print)
LIBRARY = (
    "walk parse flat_yaml yaml_loader validate rules prepare write crossfile build changes database fts queries views"
)


def test_the_library_does_not_print():
    """Library code reports through return values and callbacks (progress, waiting for the lock)."""
    for path in (INDEXER / f"{name}.py" for name in LIBRARY.split()):
        tree = ast.parse(path.read_text("utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        imports = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "print" not in names and "click" not in imports | modules, path.name


def test_the_validity_test_and_the_recall_ranking_are_written_once():
    """In indexer/sql/shared.sql; every other source names them, and runs them written out."""
    sources = {p.name: p.read_text("utf-8") for p in [*(INDEXER / "sql").glob("*.sql"), INDEXER / "views.py"]}
    for fact in ("m.invalid_at IS NULL OR", "bm25(memories_fts, ", "bm25(notes_fts, "):
        assert [name for name, text in sources.items() if fact in text] == ["shared.sql"], fact
    for name in ("recall", "briefing_ledger", "gardener", "recall_superseded"):
        expanded = sql.source(name)
        assert "VALID_AT" not in expanded and "_RANK" not in expanded
    assert "(m.invalid_at IS NULL OR m.invalid_at > (SELECT now FROM recall_scope))" in sql.source("recall")


def test_a_shared_expression_takes_its_arguments_whatever_they_hold():
    assert sql.expand("VALID_AT(t, f(a, (b)))") == (
        "(coalesce(t.valid_from, '') <= f(a, (b)) AND (t.invalid_at IS NULL OR t.invalid_at > f(a, (b))))"
    )
    assert sql.expand("x.VALID_AT_NOT, MEMORY_RANKS") == "x.VALID_AT_NOT, MEMORY_RANKS"  # whole names only


def test_settings_defaults_are_not_repeated_in_sql():
    """indexer/settings.py holds the defaults, and every run writes them to the settings table: SQL reads
    that, with no fallback value of its own."""
    fallback = re.compile(r"FROM settings WHERE key = '[^']+'\)\s*,\s*\d+")
    for path in [*(INDEXER / "sql").glob("*.sql"), INDEXER / "queries.py", INDEXER / "views.py"]:
        assert not fallback.search(path.read_text("utf-8")), path.name
