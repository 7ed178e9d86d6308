"""Bad input gets a one-line refusal and changes nothing; anything `write` accepts, the indexer reads back
field for field; edits keep every byte they were not asked to change."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from indexer.edit.frontmatter_edit import MEMORY_ORDER, Document, scalar
from indexer.edit.store_write import write_memory
from indexer.edit.write_input import WriteRefused
from indexer.front.cli import cli
from indexer.store import rules
from indexer.store.yaml_loader import Trap, load


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def refused(store, code: str, **fields) -> None:
    before = files(store.root)
    args = {"project": "seamless", "kind": "gotcha", "name": "boot-race", "description": "fine", "new_project": True}
    args |= fields
    with pytest.raises(WriteRefused) as e:
        write_memory(store.root, store.db_path, **args)
    assert e.value.code == code, e.value
    assert files(store.root) == before


@pytest.mark.parametrize(
    "fields, code",
    [
        ({"name": "boot\x00race"}, "name-not-kebab"),
        ({"name": "a/../b"}, "name-not-kebab"),
        ({"project": "sea\x00mless"}, "bad-project"),
        ({"project": "a" * 101}, "bad-project"),
        ({"tags": ["ok", 3]}, "bad-tags"),
        ({"tags": "chroma"}, "bad-tags"),
        ({"body": b"caf\xe9\n"}, "not-utf8"),
        ({"body": "ok\x00binary"}, "binary-file"),
        ({"description": None}, "missing-description"),
        ({"kind": None}, "missing-kind"),
    ],
)
def test_bad_input_is_refused_with_a_code_and_writes_nothing(store, fields, code):
    store.memory("existing")
    refused(store, code, **fields)


def test_a_body_that_is_not_utf8_on_standard_input_is_refused(store):
    result = CliRunner().invoke(
        cli,
        [
            "write",
            str(store.root),
            "--project",
            "p",
            "--kind",
            "gotcha",
            "--name",
            "n",
            "--description",
            "d",
            "--body",
            "-",
            "--db",
            str(store.db_path),
        ],
        input=b"\xff\xfe not text",
    )
    assert result.exit_code == 1 and "Error: not-utf8: the body is not UTF-8 text" in result.output
    assert files(store.root) == {}


def test_a_missing_store_is_refused(tmp_path):
    result = CliRunner().invoke(
        cli, ["archive", str(tmp_path / "nowhere"), "x", "--db", str(tmp_path / "x.db")], catch_exceptions=False
    )
    assert result.exit_code == 1 and "no-store: no store at" in result.output


def test_a_read_only_store_is_refused(store):
    store.memory("boot-race")
    before = files(store.root)
    if os.geteuid() != 0:
        os.chmod(store.root, 0o555)
        mounted = False
    else:  # root writes through permission bits: a read-only filesystem instead
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(store.root)]).returncode == 0
        if not mounted:
            pytest.skip("cannot make a read-only folder as root without mount")
        for path, data in before.items():
            (store.root / path).parent.mkdir(parents=True, exist_ok=True)
            (store.root / path).write_bytes(data)
        subprocess.run(["mount", "-o", "remount,ro", str(store.root)], check=True)
    try:
        with pytest.raises(WriteRefused) as e:
            write_memory(
                store.root,
                store.db_path,
                project="seamless",
                kind="gotcha",
                name="n",
                description="d",
                new_project=True,
            )
        assert e.value.code == "store-read-only"
        assert files(store.root) == before
    finally:
        if mounted:
            subprocess.run(["umount", str(store.root)], check=True)
        else:
            os.chmod(store.root, 0o755)


# YAML traps: every value comes back as written


@pytest.mark.parametrize(
    "value", ["no", "on", "yes", "0123", "2026-07-10", "a: b", "x # y", "*star", "&amp", "!bang", "- dash", "~", "1e3"]
)
def test_a_trap_value_is_quoted_and_read_back_exactly(value):
    assert scalar(value) != value
    assert load(f"description: {scalar(value)}\n") == {"description": value}


def test_an_edit_changes_only_the_fields_asked(store):
    text = (
        "\ufeff---\r\nid: 01KERV5K4652EXPT8KADGA8DF2\r\nkind: gotcha   # why this kind\r\nname: boot-race\r\n"
        "description: x\r\nextra:\r\n  nested: [1, 2]\r\ntags:\r\n- a\r\n---\r\nbody\r\n---\r\nstill body\r\n"
    )
    doc = Document.from_bytes(text.encode())
    doc.set("invalid_at", "2026-07-11T00:00:00Z", MEMORY_ORDER)
    doc.set("kind", "decision", MEMORY_ORDER)
    assert doc.to_bytes().decode() == text.replace("gotcha   #", "decision   #").replace(
        "description: x\r\n", "description: x\r\ninvalid_at: 2026-07-11T00:00:00Z\r\n"
    )


# The round trip: whatever write accepts, the index holds field for field

line_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60)
names = st.from_regex(rules.KEBAB.pattern, fullmatch=True).filter(lambda n: 0 < len(n) <= 60)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(rules.KINDS),
    name=names,
    description=line_text,
    project=st.sampled_from(["global", "seamless", "no", "0123", "on"]),
    tags=st.lists(line_text, max_size=4),
    session=st.none() | line_text,
    model=st.none() | line_text,
    body=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200),
)
def test_anything_write_accepts_the_indexer_reads_back_field_for_field(
    kind, name, description, project, tags, session, model, body
):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "store"
        root.mkdir()
        try:
            out = write_memory(
                root,
                Path(tmp) / "x.db",
                project=project,
                new_project=True,
                kind=kind,
                name=name,
                description=description,
                tags=tags,
                session_id=session,
                model=model,
                body=body,
            )
        except WriteRefused as e:
            assume(False)  # refused: nothing to read back (refusals have their own tests)
            raise AssertionError from e
        from indexer.sqlite import sqlite3

        conn = sqlite3.connect(Path(tmp) / "x.db")
        conn.row_factory = sqlite3.Row
        row = dict(conn.execute("select * from memories where id = ?", (out.id,)).fetchone())
        conn.close()
    assert (row["kind"], row["name"], row["project"]) == (kind, name, None if project == "global" else project)
    assert row["description"] == rules.fold_description(description.strip())
    assert json.loads(row["tags"]) == list(dict.fromkeys(t.strip() for t in tags))
    assert (row["source_session"], row["model"]) == (session, model)
    assert row["body"].strip() == body.replace("\r\n", "\n").strip()


TEMPLATE = (
    "---\nid: 01KERV5K4652EXPT8KADGA8DF2  # stable\nkind: gotcha\nname: boot-race\n"
    "description: 'old: text'\nreviewed_by: alice   # ours\ntags:\n  - a\n---\nBody\n---\nstill body\n"
)


@settings(max_examples=60, deadline=None)
@given(
    fields=st.dictionaries(
        st.sampled_from(["kind", "description", "invalid_at", "superseded_by", "model", "source_session"]),
        st.none() | st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
        min_size=1,
    ),
    tags=st.none() | st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=10), max_size=3),
)
def test_any_value_set_reads_back_and_nothing_else_changes(fields, tags):
    if tags is not None:
        fields["tags"] = tags
    doc = Document.from_bytes(TEMPLATE.encode())
    for key, value in fields.items():
        doc.set(key, value, MEMORY_ORDER)
    meta = load(doc.frontmatter)
    expected = load(Document.from_bytes(TEMPLATE.encode()).frontmatter) | fields
    assert meta == expected
    read = [meta[k] for k in fields]
    assert not [v for v in read + [t for v in read if isinstance(v, list) for t in v] if isinstance(v, Trap)]
    assert doc.body == "Body\n---\nstill body\n"
    assert "reviewed_by: alice   # ours\n" in doc.frontmatter and "  # stable\n" in doc.frontmatter


def test_a_symlinked_folder_in_the_store_is_never_written_through(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / "memories").mkdir(exist_ok=True)
    (store.root / "memories/seamless").symlink_to(outside)
    refused(store, "symlink-in-store")
    assert list(outside.iterdir()) == []
