"""The layers' shape: data flows one way, each fact has one source, library code leaves output to the CLI."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from indexer import sql
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record, note_record

INDEXER = Path(__file__).resolve().parent.parent / "indexer"
MEMORY = b"---\nid: 01K0000000000000000000AAA1\nkind: stage\nname: a-name\ndescription: d\n---\nStatus: open\n"


def imported_by(module: str) -> set[str]:
    code = f"import sys, {module}; print(' '.join(m for m in sys.modules if m.startswith('indexer')))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


# The layers, bottom first (docs/development.md#layout-the-folders-are-the-layers): a module imports its own
# layer and those below it, never one above. indexer.sqlite and indexer.sql sit at the bottom, where every layer
# may read them.
LAYERS = ("sqlite sql", "store", "git", "gardener", "index", "query", "edit", "front", "__main__")
RANK = {part: rank for rank, names in enumerate(LAYERS) for part in names.split()}


def indexer_imports(path: Path) -> set[str]:
    """The indexer modules and packages `path` imports, lazily imported ones too (`from indexer import x` as
    indexer.x)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "indexer"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "indexer":
            found |= {f"{node.module}.{a.name}" if node.module == "indexer" else node.module for a in node.names}
    return found


def layer(module: str) -> str:
    """The layer a dotted indexer module belongs to (indexer.index.build: index)."""
    return module.split(".")[1]


def test_each_layer_imports_only_its_own_and_those_below():
    upward = []
    for path in sorted(INDEXER.rglob("*.py")):
        here = path.relative_to(INDEXER).parts[0].removesuffix(".py")
        if here == "__init__":
            continue
        if path.name == "__main__.py":  # a program (`python -m indexer.gardener`), above every layer
            here = "__main__"
        upward += [
            f"{path.relative_to(INDEXER)} imports {m}" for m in indexer_imports(path) if RANK[layer(m)] > RANK[here]
        ]
    assert not upward, upward


def test_every_module_sits_in_a_layer():
    """A new module goes into the folder of the lowest layer that has everything it needs."""
    loose = {p.name for p in INDEXER.glob("*.py")} - {"__init__.py", "__main__.py", "sqlite.py"}
    assert not loose
    assert {p.name for p in INDEXER.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == set(RANK) - {
        "sqlite",
        "__main__",
    }
    for package in INDEXER.glob("*/__init__.py"):
        assert ast.get_docstring(ast.parse(package.read_text("utf-8"))), f"{package} says what its layer owns"


def test_the_explorer_reads_and_never_imports_the_write_path():
    """plugins/ import the query layer and below (the index for the database's name), never edit or a front end."""
    plugins = Path(__file__).resolve().parent.parent / "plugins"
    for path in plugins.glob("*.py"):
        for module in indexer_imports(path):
            assert RANK[layer(module)] <= RANK["query"], f"{path.name} imports {module}"


def test_opening_the_index_does_not_import_the_queries():
    """database -> views -> queries -> database was a cycle: an index run installs the views, not the database."""
    assert not imported_by("indexer.index.database") & {
        "indexer.sql.views",
        "indexer.query.queries",
        "indexer.index.build",
    }
    assert not imported_by("indexer.query.queries") & {"indexer.index.database", "indexer.index.build"}


def test_a_record_has_the_columns_of_its_table():
    """schema.sql is the one list of the columns: validation makes records with exactly those keys."""
    memory, _ = memory_record(parse_bytes("memories/x.md", MEMORY, 4096))
    note, _ = note_record(parse_bytes("notes/x.md", b"# Title\n", 4096))
    assert tuple(memory) == sql.columns("memories")
    assert set(note) == set(sql.columns("notes"))


# the modules data flows through, files to index to queries (commands such as cli.py and watch.py print)
LIBRARY = (
    "store/walk store/parse store/flat_yaml store/yaml_loader store/validate store/rules index/prepare index/writer "
    "store/crossfile index/plan index/build index/database index/fts query/queries sql/canned sql/views"
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
    sources = {p.name: p.read_text("utf-8") for p in [*(INDEXER / "sql").glob("*.sql"), INDEXER / "sql" / "views.py"]}
    for fact in ("m.invalid_at IS NULL OR", "bm25(memories_fts, ", "bm25(notes_fts, "):
        assert [name for name, text in sources.items() if fact in text] == ["shared.sql"], fact
    for name in ("recall", "briefing_ledger", "gardener", "recall_superseded"):
        expanded = sql.source(name)
        assert "VALID_AT" not in expanded and "_RANK" not in expanded
    assert "(m.invalid_at IS NULL OR m.invalid_at > (SELECT as_of FROM recall_scope))" in sql.source("recall")


def test_a_shared_expression_takes_its_arguments_whatever_they_hold():
    assert sql.expand("VALID_AT(t, f(a, (b)))") == (
        "(coalesce(t.valid_from, '') <= f(a, (b)) AND (t.invalid_at IS NULL OR t.invalid_at > f(a, (b))))"
    )
    assert sql.expand("x.VALID_AT_NOT, MEMORY_RANKS") == "x.VALID_AT_NOT, MEMORY_RANKS"  # whole names only


def test_settings_defaults_are_not_repeated_in_sql():
    """indexer/store/settings.py holds the defaults, and every run writes them to the settings table: SQL reads
    that, with no fallback value of its own."""
    fallback = re.compile(r"FROM settings WHERE key = '[^']+'\)\s*,\s*\d+")
    for path in [*(INDEXER / "sql").glob("*.sql"), INDEXER / "sql" / "canned.py", INDEXER / "sql" / "views.py"]:
        assert not fallback.search(path.read_text("utf-8")), path.name
