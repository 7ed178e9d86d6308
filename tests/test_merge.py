"""The merge rules for one file changed on two hosts (SPEC section 10, rules 1-3): indexer.edit.merge."""

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.edit.frontmatter_edit import MEMORY_ORDER
from indexer.edit.merge import CannotMerge, merge, run_driver
from indexer.git import merge_file
from indexer.store import conflict_markers
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record

X = "01K00000000000000000000XXX"
M1, M2 = "01K000000000000000000000M1", "01K000000000000000000000M2"


def memory(description="Chroma listens on 8000", updated="2026-07-10T18:00:00Z", body="Seen on boot.\n", **more):
    fields = {
        "id": X,
        "kind": "decision",
        "name": "chroma-port",
        "description": description,
        "project": "seamless",
        "created": "2026-07-10T18:00:00Z",
        "updated": updated,
        "valid_from": "2026-07-10T18:00:00Z",
        "invalid_at": "null",
        "superseded_by": "null",
        "tags": "[chroma]",
    }
    fields.update(more)
    # in the seed's order, as the write path keeps them (unknown keys last)
    keys = sorted(fields, key=lambda k: MEMORY_ORDER.index(k) if k in MEMORY_ORDER else len(MEMORY_ORDER))
    return ("---\n" + "".join(f"{k}: {fields[k]}\n" for k in keys) + "---\n" + body).encode()


def record(data: bytes) -> dict:
    found, problems = memory_record(parse_bytes("memories/seamless/chroma-port.md", data, 1 << 20))
    assert found is not None, problems
    return found


def both_ways(base, ours, theirs):
    """The merge from each host's side: it must come out the same."""
    one, other = (
        merge(base, ours, theirs, "memories/seamless/x.md"),
        merge(base, theirs, ours, "memories/seamless/x.md"),
    )
    assert one.data == other.data
    assert (one.rules, one.concurrent) == (other.rules, other.concurrent)
    return one


def test_two_supersedes_at_once_keep_the_earliest_and_its_successor():
    base = memory()
    ours = memory(invalid_at="2026-07-11T09:00:00Z", superseded_by=M1)
    theirs = memory(invalid_at="2026-07-11T10:00:00Z", superseded_by=M2)
    merged = both_ways(base, ours, theirs)
    assert (record(merged.data)["invalid_at"], record(merged.data)["superseded_by"]) == ("2026-07-11T09:00:00Z", M1)
    assert merged.rules == ["lifecycle"] and not merged.concurrent


def test_once_invalid_always_invalid_archive_against_an_edit():
    base = memory()
    archived = memory(invalid_at="2026-07-11T09:00:00Z")
    edited = memory(description="Chroma listens on 8001", updated="2026-07-12T00:00:00Z")
    merged = record(both_ways(base, archived, edited).data)
    assert (merged["status"], merged["invalid_at"]) == ("archived", "2026-07-11T09:00:00Z")
    assert (merged["description"], merged["updated"]) == ("Chroma listens on 8001", "2026-07-12T00:00:00Z")


def test_an_archive_earlier_than_a_supersede_wins_without_a_successor():
    base = memory()
    merged = both_ways(
        base, memory(invalid_at="2026-07-11T08:00:00Z"), memory(invalid_at="2026-07-11T09:00:00Z", superseded_by=M1)
    )
    assert (record(merged.data)["status"], record(merged.data)["superseded_by"]) == ("archived", None)
    # at the same second, the successor is kept
    merged = both_ways(
        base, memory(invalid_at="2026-07-11T09:00:00Z"), memory(invalid_at="2026-07-11T09:00:00Z", superseded_by=M1)
    )
    assert record(merged.data)["superseded_by"] == M1


def test_fields_changed_on_one_side_each_keep_both():
    base = memory()
    ours = memory(description="Chroma listens on 8001", updated="2026-07-11T00:00:00Z")
    theirs = memory(tags="[chroma, ports]", updated="2026-07-12T00:00:00Z", model="claude-fable-5")
    merged = both_ways(base, ours, theirs)
    got = record(merged.data)
    assert (got["description"], got["tags"], got["model"]) == (
        "Chroma listens on 8001",
        '["chroma", "ports"]',
        "claude-fable-5",
    )
    assert got["updated"] == "2026-07-12T00:00:00Z"  # rule 3: the later of the two
    assert merged.rules == ["fields"] and not merged.concurrent


def test_a_field_changed_on_both_sides_goes_to_the_later_update():
    base = memory()
    earlier = memory(description="Chroma listens on 8001", updated="2026-07-11T00:00:00Z")
    later = memory(description="Chroma listens on 9000", updated="2026-07-12T00:00:00Z")
    merged = both_ways(base, earlier, later)
    assert record(merged.data)["description"] == "Chroma listens on 9000"
    assert merged.concurrent and "later-updated" in merged.rules


def test_at_equal_updated_the_greater_text_wins_on_every_host():
    base = memory()
    merged = both_ways(base, memory(description="A port 8001"), memory(description="B port 9000"))
    assert record(merged.data)["description"] == "B port 9000" and merged.concurrent


def test_appends_on_both_sides_keep_both_in_updated_order():
    base = memory(body="Seen on boot.\n")
    first = memory(body="Seen on boot.\n\nAlso on CI.\n", updated="2026-07-11T00:00:00Z")
    second = memory(body="Seen on boot.\n\nAnd in prod.\n", updated="2026-07-12T00:00:00Z")
    merged = both_ways(base, second, first)
    assert record(merged.data)["body"] == "Seen on boot.\n\nAlso on CI.\n\nAnd in prod.\n"
    assert merged.rules == ["appends"] and not merged.concurrent
    # equal updated: the smaller text first
    merged = both_ways(base, memory(body="Seen on boot.\n\nzeta\n"), memory(body="Seen on boot.\n\nalpha\n"))
    assert record(merged.data)["body"] == "Seen on boot.\n\nalpha\n\nzeta\n"


def test_body_edits_on_different_lines_merge_line_by_line():
    base = memory(body="one\ntwo\nthree\nfour\nfive\n")
    ours = memory(body="ONE\ntwo\nthree\nfour\nfive\n", updated="2026-07-11T00:00:00Z")
    theirs = memory(body="one\ntwo\nthree\nfour\nFIVE\n", updated="2026-07-12T00:00:00Z")
    merged = both_ways(base, ours, theirs)
    assert record(merged.data)["body"] == "ONE\ntwo\nthree\nfour\nFIVE\n"
    assert "body-lines" in merged.rules and not merged.concurrent


def test_body_edits_of_one_line_go_to_the_later_update():
    base = memory(body="one\n")
    merged = both_ways(
        base,
        memory(body="uno\n", updated="2026-07-12T00:00:00Z"),
        memory(body="eins\n", updated="2026-07-11T00:00:00Z"),
    )
    assert record(merged.data)["body"] == "uno\n"
    assert merged.concurrent and b"<<<<<<<" not in merged.data


def test_every_other_byte_of_our_file_is_kept():
    base = memory(extra_key="kept")
    ours = base.replace(b"tags: [chroma]\n", b"tags:\n  - chroma\n  - ports\n# a comment\n")
    theirs = memory(extra_key="kept", description="Chroma listens on 8001")
    merged = merge(base, ours, theirs, "memories/seamless/x.md").data
    assert merged == ours.replace(b"Chroma listens on 8000", b"Chroma listens on 8001")


def test_supersedes_added_on_one_side_lands_after_superseded_by():
    base = memory()
    theirs = memory(supersedes=M1)
    merged = merge(base, memory(description="other"), theirs, "memories/seamless/x.md").data
    assert b"superseded_by: null\nsupersedes: " + M1.encode() + b"\ntags:" in merged


def test_two_new_memories_at_one_path_are_not_merged():
    other = memory().replace(X.encode(), M1.encode())
    with pytest.raises(CannotMerge, match="two different memories"):
        merge(None, memory(), other)
    with pytest.raises(CannotMerge):  # plain notes with no id: no way to tell they are one note
        merge(None, b"# A\n\nfirst\n", b"# A\n\nsecond\n")


@pytest.mark.parametrize(
    "broken",
    [b"---\nid: [\n---\nbody\n", b"---\nid: x\n", b"\xff\xfe not utf-8\n", b"---\nid: a\nid: b\n---\n"],
    ids=["yaml-error", "unclosed", "not-utf8", "duplicate-key"],
)
def test_a_side_that_cannot_be_read_is_left_to_git(broken):
    with pytest.raises(CannotMerge):
        merge(memory(), broken, memory(description="edited"))


def test_the_driver_falls_back_to_gits_own_merge(tmp_path):
    base, ours, theirs = tmp_path / "O", tmp_path / "A", tmp_path / "B"
    base.write_bytes(b"---\nid: [\n---\none\n2\n3\n4\nfive\n")
    ours.write_bytes(b"---\nid: [\n---\nONE\n2\n3\n4\nfive\n")
    theirs.write_bytes(b"---\nid: [\n---\none\n2\n3\n4\nFIVE\n")
    assert run_driver(base, ours, theirs, "memories/x.md") == 0  # git's merge is clean: so is the driver
    assert ours.read_bytes() == b"---\nid: [\n---\nONE\n2\n3\n4\nFIVE\n"
    theirs.write_bytes(b"---\nid: [\n---\n1\n2\n3\n4\nFIVE\n")
    assert run_driver(base, ours, theirs, "memories/x.md") == 1  # a conflict: git records it as any other
    assert b"<<<<<<< ours" in ours.read_bytes()


def test_the_driver_never_merges_two_memories_line_by_line(tmp_path):
    """git's rename detection can hand the driver a deleted memory and a new, similar one as one file: a line merge
    would come out clean and lay one memory's edit onto the other. Both stay whole, between markers, a conflict."""
    base, ours, theirs = tmp_path / "O", tmp_path / "A", tmp_path / "B"
    base.write_bytes(memory())
    other = memory(description="Redis listens on 6379").replace(X.encode(), M1.encode())
    ours.write_bytes(other)  # the new memory git took for the old one, renamed
    theirs.write_bytes(memory(body="Seen on boot.\nStill held on b.\n"))  # an append to the old one
    assert merge_file(base.read_bytes(), other, theirs.read_bytes())[1]  # git's own line merge would be clean
    assert run_driver(base, ours, theirs, "memories/seamless/redis-port.md") == 1
    data = ours.read_bytes()
    assert data.startswith(f"<<<<<<< ours (two different memories at one path: ids {M1} and {X})\n".encode())
    assert (
        other in data
        and theirs.read_bytes() in data
        and data.endswith(b"=======\n" + theirs.read_bytes() + b">>>>>>> theirs\n")
    )
    (conflict,) = conflict_markers.find_bytes(data)  # the index names the markers' lines: the error conflict-markers
    assert (conflict.start, conflict.middle, conflict.end) == (1, other.count(b"\n") + 2, data.count(b"\n"))


def test_the_driver_writes_the_merge_and_reports_it(tmp_path, monkeypatch):
    base, ours, theirs, report = tmp_path / "O", tmp_path / "A", tmp_path / "B", tmp_path / "report"
    base.write_bytes(memory())
    ours.write_bytes(memory(description="A"))
    theirs.write_bytes(memory(description="B"))
    monkeypatch.setenv("SEAMLESS_MERGE_REPORT", str(report))
    assert run_driver(base, ours, theirs, "memories/seamless/chroma-port.md") == 0
    assert record(ours.read_bytes())["description"] == "B"
    assert report.read_text() == (
        '{"path": "memories/seamless/chroma-port.md", "id": "' + X + '", "rules": ["fields", "later-updated"], '
        '"concurrent": true}\n'
    )


def test_the_driver_command_runs_without_path(tmp_path):
    """What git runs: the interpreter's absolute path, `-m indexer merge-driver %O %A %B %P`, no PATH needed."""
    import sys

    base, ours, theirs = tmp_path / "O", tmp_path / "A", tmp_path / "B"
    base.write_bytes(memory())
    ours.write_bytes(memory(description="A", updated="2026-07-12T00:00:00Z"))
    theirs.write_bytes(memory(tags="[x]"))
    done = subprocess.run(
        [sys.executable, "-m", "indexer", "merge-driver", base, ours, theirs, "memories/seamless/a b.md"],
        env={"HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (record(ours.read_bytes())["description"], record(ours.read_bytes())["tags"]) == ("A", '["x"]')


# Any two sets of edits of one memory, as the write path makes them, merge the same way on both hosts, keep
# every appended text, never un-end a memory, and never leave a conflict marker.
EDITS = st.lists(
    st.one_of(
        st.tuples(st.just("describe"), st.sampled_from(["port 8001", "port 9000", "port 7000"])),
        st.tuples(st.just("append"), st.sampled_from(["alpha", "beta", "gamma"])),
        st.tuples(st.just("end"), st.sampled_from(["2026-07-11T00:00:00Z", "2026-07-12T00:00:00Z"]),
                  st.sampled_from([None, M1, M2])),
        st.tuples(st.just("tag"), st.sampled_from(["[a]", "[b]", "[a, b]"])),
        st.tuples(st.just("line"), st.sampled_from(["first", "second"])),
    ),
    max_size=4,
)  # fmt: skip


def edited(edits, clock: int) -> tuple[bytes, list[str]]:
    fields, body, appended = {}, "Seen on boot.\nSecond line.\n", []
    for edit in edits:
        fields["updated"] = f"2026-07-1{clock}T00:00:00Z"
        if edit[0] == "describe":
            fields["description"] = edit[1]
        elif edit[0] == "append":
            body = body.rstrip("\n") + "\n\n" + edit[1] + "\n"
            appended.append(edit[1])
        elif edit[0] == "end" and "invalid_at" not in fields:
            fields["invalid_at"] = edit[1]
            if edit[2]:
                fields["superseded_by"] = edit[2]
        elif edit[0] == "tag":
            fields["tags"] = edit[1]
        elif edit[0] == "line":
            body = body.replace("Seen on boot.", edit[1], 1)
    return memory(body=body, **fields), appended


@settings(max_examples=150, deadline=None)
@given(EDITS, EDITS, st.sampled_from([(3, 4), (4, 3), (5, 5)]))
def test_any_two_histories_merge_the_same_on_both_hosts(mine, yours, clocks):
    base = memory(body="Seen on boot.\nSecond line.\n")
    ours, our_texts = edited(mine, clocks[0])
    theirs, their_texts = edited(yours, clocks[1])
    if ours == theirs:
        return
    merged = both_ways(base, ours, theirs)
    got = record(merged.data)
    assert b"<<<<<<<" not in merged.data and b">>>>>>>" not in merged.data
    ends = [r["invalid_at"] for r in (record(ours), record(theirs)) if r["invalid_at"]]
    assert got["invalid_at"] == (min(ends) if ends else None)
    assert got["updated"] == max(record(ours)["updated"], record(theirs)["updated"])
    if not merged.concurrent:
        for text in our_texts + their_texts:
            assert text in got["body"]
