"""The per-file shortcuts give exactly what the plain definitions they stand in for give."""

import datetime as dt

from frontmatter.default_handlers import YAMLHandler
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.store import rules, timestamps
from indexer.store.parse import ParsedFile, parse_bytes
from indexer.store.validate import FieldReader, first_heading
from indexer.store.walk import read_regular_file

BOUNDARIES = ["---", "----", "--- ", "---\t", "---  \t", "---\x0c", "---\x85", "---\u2028", "---\x1c", "-- -", "---x"]
GAPS = ["", "\n", "\n\n", "\n \n", "\n\t\n\n", "\n\r", "\n\x0b\n", "\n \x0c", "\n\u3000\n", " "]
PIECES = ["id: 1", "kind: stage", "a", " b", "\tc", "Status: open", "# T", "---", "\n", ""]


def split_as_python_frontmatter(text: str):
    """(frontmatter, body, frontmatter line, body line) as the indexer first worked them out; None if unclosed."""
    handler = YAMLHandler()
    if not handler.detect(text):
        return "", text, 1, 1
    try:
        fm, body = handler.split(text)
    except ValueError:
        return None
    fm_offset = text.find(fm, 3) if fm else 4
    body = body.lstrip("\n")
    return fm, body, text.count("\n", 0, fm_offset) + 1, text.count("\n", 0, len(text) - len(body)) + 1


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(BOUNDARIES + GAPS + PIECES), min_size=1, max_size=10))
def test_the_frontmatter_is_split_as_python_frontmatter_splits_it(pieces):
    text = "".join(pieces)
    if not text.strip():
        return
    parsed = parse_bytes("m.md", text.encode(), 1 << 20)
    expected = split_as_python_frontmatter(text.replace("\r\n", "\n"))
    if expected is None:
        assert [p.code for p in parsed.problems] == ["unclosed-frontmatter"]
    else:
        assert (parsed.fm_text, parsed.body, parsed.fm_line, parsed.body_line) == expected


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .\n\t\r\x0b\x1c\x85\xa0\u2028\u3000\x00"), min_size=1, max_size=12))
def test_a_description_is_folded_as_split_and_join_fold_it(description):
    assert rules.fold_description(description) == " ".join(description.split())


TIMES = st.one_of(
    st.builds("".join, st.lists(st.sampled_from("0123456789\u0661-T:Z "), min_size=18, max_size=22)),
    st.sampled_from(["2026-07-10T18:00:00Z", "2026-07-10", " 2026-07-10T18:00:00Z", "2026-07-10T18:00:00+02:00"]),
)


@settings(max_examples=500, deadline=None)
@given(TIMES)
def test_a_timestamp_is_read_as_normalize_reads_it(value):
    reader = FieldReader(ParsedFile("m.md", "", meta={"created": value}))
    try:
        expected = timestamps.normalize(value)
    except ValueError:
        expected = None
    assert reader.timestamp("created") == expected
    assert len(reader.problems) == (expected is None)


def canonical_by_the_calendar(text: str) -> str | None:
    """Canonical UTC text as datetime reads it (the plain definition), or None if it is no real time."""
    try:
        v = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}Z"


DIGIT_PAIRS = st.sampled_from(["00", "01", "09", "12", "13", "23", "24", "28", "29", "30", "31", "59", "60", "99"])


@settings(max_examples=500, deadline=None)
@given(
    st.builds(
        "{}{}-{}-{}T{}:{}:{}Z".format,
        st.sampled_from(["19", "20", "00"]),
        st.sampled_from(["00", "24", "26"]),
        DIGIT_PAIRS,
        DIGIT_PAIRS,
        DIGIT_PAIRS,
        DIGIT_PAIRS,
        DIGIT_PAIRS,
    )
)
def test_text_shaped_like_a_canonical_timestamp_is_taken_only_if_it_is_a_real_time(value):
    # `2026-02-30T00:00:00Z` or `...T25:00:00Z` were once stored as written and compared as text
    try:
        normalized = timestamps.normalize(value)
    except ValueError:
        normalized = None
    assert normalized == canonical_by_the_calendar(value)


@settings(max_examples=60, deadline=None)
@given(size=st.integers(0, 300), limit=st.integers(1, 400))
def test_a_file_is_read_whole_up_to_the_limit_with_sized_reads(tmp_path_factory, size, limit):
    path = tmp_path_factory.mktemp("read") / "f.md"
    data = bytes(i % 251 for i in range(size))
    path.write_bytes(data)
    assert read_regular_file(str(path), limit) == data[:limit]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["# Title", "#  Spaced #", "## Sub", "text", "", " # indented", "#nospace", "\t"]), max_size=6
    ).map("\n".join)
)
def test_a_heading_is_found_with_or_without_code_blocks_to_skip(body):
    # a body with no fence takes the one-regex path; with a code block after it, the line-by-line one
    assert first_heading(body + "\n```sh\n# a comment\n```\n") == first_heading(body)
