"""Every file is accounted for, whatever it holds: property-based tests over generated files and stores.

After any run, each *.md file under memories/ and notes/ is indexed (a row in memories or notes)
or has at least one error in `problems`; never both, never neither. Incremental runs after random
edits, deletes and renames give the same tables as a --full rebuild.
"""

import os
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores import assert_accounted_for, dump

from indexer.index.build import index_store
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record, note_record

# tmpfs when there is one: the same files and SQLite, without an fsync per example
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

KINDS = ["constraint", "runbook", "protocol", "gotcha", "decision", "refuted", "reference", "stage"]
IDS = [
    "01K0000000000000000000AAA1",
    "01K0000000000000000000AAA2",
    "01K0000000000000000000AAA3",
    "01k0000000000000000000aaa4",
]
TIMES = ["2026-07-10T18:00:00Z", "2026-07-11", "2026-07-12 09:30:00+02:00", "2026-08-01T00:00:00.5Z"]

# values written verbatim after `key: `: YAML traps, tags, anchors, block scalars, broken syntax
RAW = [
    "no",
    "yes",
    "On",
    "~",
    "null",
    "",
    "0123",
    "12",
    "1.5",
    ".inf",
    ".nan",
    "0x1F",
    "1_000",
    "1e400",
    "2026-07-10",
    "2026-07-10T18:00:00Z",
    "2026-13-45",
    "chroma-boot-race",
    "Chroma Boot",
    "a: b",
    "'it''s'",
    '"dq \\u00e9 \\x00"',
    "[a, b]",
    "[no, 1, [x]]",
    "[]",
    "{a: 1}",
    "&x a",
    "*x",
    "*undefined",
    "!!python/object/apply:os.system ['true']",
    "!!python/name:os.system",
    "!!int abc",
    "!!float x",
    "!!bool maybe",
    "!!timestamp x",
    "!!timestamp 2026-07-10",
    "!!binary aGk=",
    "!!binary %%%",
    "!!str 12",
    "!!set {a, b}",
    "!!omap [a]",
    "!custom x",
    "|\n  block\n  text",
    ">-\n  folded\n  text",
    "é✓ ünï",
    "a #comment",
    "- item",
    "? key",
    "%YAML 1.1",
    "@at",
    "`tick",
    "\ttab",
    "x" * 200,
    "line one\n  line two",
    "[" * 40,
    "{" * 40 + "}" * 40,
    "1" * 5000,
    "'unclosed",
    '"unclosed',
    "]",
    "}",
    ": :",
    "<<: *x",
]

# pieces of YAML run together into frontmatter that is mostly not YAML at all
YAML_PIECES = [
    "[",
    "]",
    "{",
    "}",
    ",",
    ": ",
    "- ",
    "? ",
    "&a ",
    "*a",
    "!!int ",
    "!!float ",
    "!!bool ",
    "!!timestamp ",
    "!!binary ",
    "!!set ",
    "!!omap ",
    "!!python/object:os.system ",
    "!!str ",
    "<<: ",
    "'",
    '"',
    "#",
    "|",
    ">",
    "\n",
    "  ",
    "abc",
    "1",
    "yes",
    "~",
    ".nan",
    "2026-07-10",
    "id: ",
    "kind: gotcha",
    "%",
    "@",
    "\t",
    "\\",
    "é",
    "---",
    "...",
]

BODIES = [
    "Body.\n",
    "Status: open\nGate: human\n\nWork.\n",
    "Status: done\n",
    "Status: maybe\n",
    "",
    "# A heading\n\ntext\n",
    "\n\n\n",
    "---\nnot frontmatter\n---\n",
    "\x07\x1b[31m red\n",
]

any_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
    st.dates(),
    st.datetimes(),
    st.binary(max_size=4),
    st.lists(st.text(max_size=4) | st.integers(), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "1"]), st.integers() | st.none(), max_size=2),
)

GOOD = {
    "id": st.sampled_from(IDS),
    "kind": st.sampled_from(KINDS),
    "name": st.sampled_from(["chroma-boot-race", "port-8000", "Not Kebab", "no"]),
    "description": st.text(min_size=1, max_size=40) | st.just("x " * 100) | st.just("two\nlines"),
    "project": st.sampled_from([None, "", "global", "seamless", "console"]),
    "created": st.sampled_from(TIMES),
    "updated": st.sampled_from(TIMES),
    "valid_from": st.sampled_from(TIMES),
    "invalid_at": st.sampled_from([None, *TIMES]),
    "superseded_by": st.sampled_from([None, None, *IDS]),
    "source_session": st.just("cc/test"),
    "model": st.just("claude-fable-5"),
    "tags": st.lists(st.sampled_from(["a", "b", "yes", ""]), max_size=3) | st.just("bare"),
    "title": st.text(max_size=20),
}


def yaml_line(key: str, value) -> str:
    return yaml.safe_dump({key: value}, allow_unicode=True, width=1_000_000).rstrip("\n")


@st.composite
def frontmatter(draw) -> str:
    """Frontmatter lines: mostly good values, some omitted, some any YAML value, some raw traps."""
    lines = []
    for key, good in GOOD.items():
        how = draw(st.sampled_from(["good", "good", "good", "omit", "value", "raw"]))
        if how == "good":
            lines.append(yaml_line(key, draw(good)))
        elif how == "value":
            lines.append(yaml_line(key, draw(any_value)))
        elif how == "raw":
            lines.append(f"{key}: {draw(st.sampled_from(RAW))}")
    return "\n".join(draw(st.permutations(lines)))


@st.composite
def damaged(draw, text: str) -> bytes:
    """`text` as bytes, sometimes damaged the way files get damaged."""
    data = text.encode("utf-8")
    damage = draw(st.sampled_from(["none"] * 6 + ["bom", "crlf", "cr", "nul", "latin1", "truncate", "bytes"]))
    if damage == "bom":
        data = b"\xef\xbb\xbf" + data
    elif damage == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif damage == "cr":
        data = data.replace(b"\n", b"\r")
    elif damage == "nul":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\x00" + data[at:]
    elif damage == "latin1":
        data = text.encode("latin-1", errors="replace") + b"caf\xe9"
    elif damage == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


@st.composite
def file_content(draw) -> bytes:
    """What might land in a store file: memories good and bad, notes, broken YAML, random bytes."""
    shape = draw(st.sampled_from(["memory"] * 5 + ["note", "plain", "junk", "binary", "text", "empty"]))
    if shape in ("memory", "note"):
        fm = draw(frontmatter())
        text = f"---\n{fm}\n---\n{draw(st.sampled_from(BODIES))}"
    elif shape == "plain":
        text = draw(st.sampled_from(BODIES))
    elif shape == "junk":
        text = "---\n" + "".join(draw(st.lists(st.sampled_from(YAML_PIECES), max_size=30))) + "\n---\nBody\n"
    elif shape == "binary":
        return draw(st.binary(max_size=200))
    elif shape == "text":
        text = draw(st.text(max_size=200))
    else:
        text = draw(st.sampled_from(["", " \n\t\n", "\n"]))
    return draw(damaged(text))


PATHS = st.sampled_from(
    [
        f"memories/{scope}/{name}.md"
        for scope in ("seamless", "console", "_global")
        for name in ("a", "b", "c", "deep/d")
    ]
    + ["notes/x.md", "notes/seamless/y.md", "notes/z.md"]
)


class Files:
    """Writes store files, giving every write its own mtime (a rewrite within one clock tick is
    the racy case tested in test_hostile_input.py; here every change must be seen)."""

    def __init__(self, root: Path):
        self.root = root
        self.clock = 1_800_000_000_000_000_000
        for top in ("memories", "notes"):
            (root / top).mkdir(parents=True, exist_ok=True)

    def write(self, path: str, data: bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.tick(path)

    def tick(self, path: str) -> None:
        self.clock += 1_000_000
        os.utime(self.root / path, ns=(self.clock, self.clock))

    def existing(self) -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*.md"))


@settings(SETTINGS, max_examples=150)
@given(file_content())
def test_one_file_is_a_record_or_an_error_never_both(data):
    """Per file: no exception, and a record exactly when there is no error problem."""
    parsed = parse_bytes("memories/x.md", data, 4096)
    for make in (memory_record, note_record):
        record, problems = make(parsed)
        has_error = any(p.severity == "error" for p in problems)
        assert (record is None) == has_error, (make.__name__, record, problems)
        assert all(p.line >= 1 and p.path == "memories/x.md" for p in problems)


@settings(SETTINGS, max_examples=25)
@given(st.dictionaries(PATHS, file_content(), min_size=1, max_size=8))
def test_every_file_is_indexed_or_has_an_error_after_a_full_run(files):
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        store = Files(Path(tmp) / "store")
        for path, data in files.items():
            store.write(path, data)
        db = Path(tmp) / "index.db"
        index_store(store.root, db, full=True)
        assert_accounted_for(store.root, db)
        before = dump(db)
        assert index_store(store.root, db).mode == "no-op"
        assert dump(db) == before


operation = st.one_of(
    st.tuples(st.just("write"), PATHS, file_content()),
    st.tuples(st.just("delete"), st.integers(0, 20)),
    st.tuples(st.just("rename"), st.integers(0, 20), PATHS),
    st.tuples(st.just("touch"), st.integers(0, 20)),
)


@settings(SETTINGS, max_examples=20)
@given(
    st.dictionaries(PATHS, file_content(), max_size=6),
    st.lists(st.lists(operation, min_size=1, max_size=5), min_size=1, max_size=3),
)
def test_incremental_runs_after_random_changes_match_a_full_rebuild(files, rounds):
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        store = Files(Path(tmp) / "store")
        for path, data in files.items():
            store.write(path, data)
        db = Path(tmp) / "index.db"
        index_store(store.root, db)
        for changes in rounds:
            for op in changes:
                existing = store.existing()
                if op[0] == "write":
                    store.write(op[1], op[2])
                elif existing and op[0] == "delete":
                    (store.root / existing[op[1] % len(existing)]).unlink()
                elif existing and op[0] == "rename":
                    source, target = existing[op[1] % len(existing)], op[2]
                    (store.root / target).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(store.root / source, store.root / target)
                elif existing and op[0] == "touch":
                    store.tick(existing[op[1] % len(existing)])
            index_store(store.root, db)
            assert_accounted_for(store.root, db)
        fresh = Path(tmp) / "fresh.db"
        index_store(store.root, fresh, full=True)
        assert dump(db) == dump(fresh)
