"""The flat-frontmatter fast path must read exactly what libyaml reads, or step aside."""

import re._constants as sre
import re._parser

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from yaml.constructor import ConstructorError
from yaml.resolver import Resolver

from indexer.store.flat_yaml import ALPHABETS, NOT_FLAT, load_flat
from indexer.store.parse import parse_bytes
from indexer.store.validate import memory_record
from indexer.store.yaml_loader import StoreLoader, Trap

KEYS = st.sampled_from(["id", "name", "kind", "tags", "yes", "null", "1", "a-b", "x_y", "<<", "key with space"])
TOKENS = st.sampled_from(
    [
        "no",
        "yes",
        "On",
        "off",
        "~",
        "null",
        "Null",
        "true",
        "12",
        "012",
        "0x1F",
        "1_000",
        "1.5",
        ".inf",
        "-.5",
        "1:20",
        "2026-07-10",
        "2026-07-10T18:00:00Z",
        "chroma-boot-race",
        "Chroma: boot",
        "a #b",
        "a#b",
        "C#",
        "'it''s'",
        '"dq"',
        '"a\\"b"',
        "[a, b]",
        "[]",
        "[yes, 1, x]",
        "[a, [b]]",
        "[a: b]",
        "{a: 1}",
        "&x a",
        "*x",
        "!!str 1",
        "|",
        ">",
        "- a",
        "-a",
        "?a",
        "%a",
        "@a",
        "`a",
        "x:",
        "a: b",
        "é",
        "\x07",
        "  padded  ",
        "",
        # the edges of YAML 1.1's resolvers: what the fast path's character check must leave to the regexes
        "0b1",
        "0b12",
        "0x_",
        "0o7",
        "08",
        "1:60",
        "1:20:30.5",
        "+1",
        "+.5",
        "+.inf",
        ".NaN",
        "._",
        "1.",
        "1e5",
        "1.0e+5",
        "12abc",
        "1_000.5",
        "Y",
        "n",
        "NULL",
        "OFF",
        "tls",
        "tidepool",
        "01KN4XTDAWY5HKTB84VS1PEF4J",
        "71234567890123456789012345",
        "2026-07-10t18:00:00",
        "\u0661\u0662",
        "a\tb",
        "\ufeff",
    ]
)


@st.composite
def frontmatter(draw):
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        sep = draw(st.sampled_from([": ", ":", ":\t", ":  "]))
        value = draw(TOKENS) if draw(st.booleans()) else draw(TOKENS) + " " + draw(TOKENS)
        prefix = draw(st.sampled_from(["", "", "", " ", "# "]))
        lines.append(f"{prefix}{draw(KEYS)}{sep}{value}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


def same(a, b) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, Trap) or isinstance(b, Trap):
        return type(a) is type(b) and a == b and same(a.read_as, b.read_as)
    if isinstance(a, float) and a != a:  # .nan
        return isinstance(b, float) and b != b
    return type(a) is type(b) and a == b


def check_against_libyaml(text):
    try:
        fast = load_flat(text, StoreLoader, Trap)
    except (ValueError, ConstructorError):  # a value YAML cannot construct (`0x_`, `=`): libyaml refuses it too
        with pytest.raises(yaml.YAMLError):
            yaml.load(text, Loader=StoreLoader)
        return
    if fast is NOT_FLAT:
        return
    reference = yaml.load(text, Loader=StoreLoader)  # must not raise: the fast path only takes valid YAML
    assert same(fast, reference), (text, fast, reference)


@settings(max_examples=300, deadline=None)
@given(frontmatter())
def test_fast_path_reads_what_libyaml_reads(text):
    check_against_libyaml(text)


def test_the_agents_frontmatter_takes_the_fast_path():
    text = (
        "id: 01K0AB2C3D4E5F6G7H8J9K0M1N\nkind: gotcha\nname: chroma-boot-race\n"
        'description: "Chroma: wait for the heartbeat"\nproject:\ncreated: 2026-07-10T18:00:00Z\n'
        "invalid_at: null\ntags: [chroma, startup]\n"
    )
    assert load_flat(text, StoreLoader, Trap) == yaml.load(text, Loader=StoreLoader)


def test_yaml_traps_come_back_as_traps():
    value = load_flat("name: no\nid: 71234567890123456789012345\n", StoreLoader, Trap)
    assert isinstance(value["name"], Trap) and value["name"] == "no" and value["name"].read_as is False
    assert value["id"].read_as == 71234567890123456789012345


# characters YAML 1.1's resolvers are made of, and a few they are not
RESOLVER_TEXT = st.text(alphabet="0123456789_.:+-bxoBXeEaAfFiInNyYsStTrRuUlL~<=KZG/", min_size=1, max_size=8)


@settings(max_examples=400, deadline=None)
@given(st.lists(RESOLVER_TEXT, min_size=1, max_size=4))
def test_plain_scalars_resolve_as_in_libyaml(values):
    lines = [f"k{i}: {value}" for i, value in enumerate(values)] + [f"tags: [{', '.join(values)}]"]
    check_against_libyaml("\n".join(lines))


def _characters(parsed) -> set[str]:
    """Every character a parsed regular expression can match (it must not match "any" character)."""
    chars = set()
    for op, arg in parsed:
        if op is sre.LITERAL:
            chars.add(chr(arg))
        elif op is sre.RANGE:
            chars.update(map(chr, range(arg[0], arg[1] + 1)))
        elif op is sre.IN:
            chars |= _characters(arg)
        elif op is sre.BRANCH:
            for branch in arg[1]:
                chars |= _characters(branch)
        elif op is sre.SUBPATTERN:
            chars |= _characters(arg[-1])
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            chars |= _characters(arg[2])
        else:
            assert op is sre.AT, f"{op} matches more than a known set of characters"
    return chars


def test_the_alphabets_hold_every_character_their_resolver_matches():
    regexps = {tag: regexp for resolvers in Resolver.yaml_implicit_resolvers.values() for tag, regexp in resolvers}
    for tag, alphabet in ALPHABETS.items():
        matched = _characters(re._parser.parse(regexps[tag].pattern, regexps[tag].flags))
        assert matched <= set(alphabet), (tag, sorted(matched - set(alphabet)))


@pytest.mark.parametrize(
    "text, raises",
    [
        ("a: " + "1" * 5000 + "\nb: c", ValueError),  # an int past Python's digit limit
        ("a: 0x_\nb: c", ValueError),
        # every line is a `key: value` line: YAML reads the values in order, and `=` has no constructor (YAML's error)
        ("a: =\nnull: x", ConstructorError),
        ("a: [- y, =]", ConstructorError),
        ("a: =\nnot a line", None),  # not flat: libyaml reads it
        ("null: x\na: =", None),  # a key YAML reads as null comes first
        ("a: 0x_\nb: \x01", None),
    ],
)
def test_a_value_yaml_cannot_construct_is_raised_only_when_all_the_text_is_flat(text, raises):
    if raises:
        with pytest.raises(raises):
            load_flat(text, StoreLoader, Trap)
    else:
        assert load_flat(text, StoreLoader, Trap) is NOT_FLAT


@pytest.mark.parametrize("value", ["!!int", "!!float ", '!!int ""', "[!!float ]"])
def test_a_number_tag_on_no_number_is_a_yaml_error(value):
    parsed = parse_bytes("m.md", f"---\nkind: gotcha\nid: {value}\n---\nBody\n".encode(), 1 << 20)
    assert [(p.code, p.line) for p in parsed.problems] == [("yaml-error", 3)]
    assert "is not a valid" in parsed.problems[0].message


@pytest.mark.parametrize(
    "text, line, key",
    [
        ("kind: gotcha\nid: x\nkind: stage\n", 3, "kind"),  # flat: the fast path leaves it to libyaml
        ("kind: gotcha  # a comment\nid: x\n'kind': stage\n", 3, "kind"),  # not flat, and the key quoted
        ("kind: gotcha\nextra:\n  a: 1\n  a: 2\n", 4, "a"),  # in a nested mapping
    ],
)
def test_a_key_given_twice_is_a_yaml_error_at_its_second_line(text, line, key):
    parsed = parse_bytes("m.md", f"---\n{text}---\nBody\n".encode(), 1 << 20)
    assert [(p.code, p.line) for p in parsed.problems] == [("yaml-error", line + 1)]
    assert f"duplicate key {key!r}" in parsed.problems[0].message


def test_a_merged_key_may_be_overridden():
    assert yaml.load("base: &b {kind: gotcha}\n<<: *b\nkind: stage\n", Loader=StoreLoader)["kind"] == "stage"


@pytest.mark.parametrize(
    "text, line",
    [
        ('kind: gotcha\ndescription: "unclosed\nid: x\n', 2),  # found at the end of the frontmatter
        ("kind: gotcha\ntags: [a, b\nid: x\n", 2),  # found on the next key's line
        ("kind: gotcha\nid: {x: 1\n", 2),
        ("kind: gotcha\nno colon here\nid: x\n", 2),
        ("kind: gotcha\nid: x\n- a list item\n", 3),  # the block mapping's start is not the fault
        ("kind: gotcha\n\tid: x\n", 2),
        ("kind: gotcha\ndescription: a: b\n", 2),
    ],
)
def test_a_yaml_error_is_reported_on_the_line_of_the_fault(text, line):
    parsed = parse_bytes("m.md", f"---\n{text}---\nBody\n".encode(), 1 << 20)
    assert [(p.code, p.line) for p in parsed.problems] == [("yaml-error", line + 1)]


def verdict(frontmatter: str) -> tuple:
    """What the indexer makes of a memory with this frontmatter: its record's fields and its problem codes."""
    record, problems = memory_record(parse_bytes("memories/x.md", f"---\n{frontmatter}\n---\nBody.\n".encode(), 4096))
    return (record and {k: record[k] for k in ("name", "description")}, sorted(p.code for p in problems))


FLAT = "id: 01K0000000000000000000AAA1\nkind: gotcha\nname: a-name\ndescription: {}\ncreated: 2026-07-10"


@pytest.mark.parametrize("line_break", ["\u2028", "\u2029", "\x85"])
def test_a_line_break_libyaml_sees_gives_one_verdict_whichever_reader_runs(line_break):
    """libyaml breaks lines at U+2028, U+2029 and U+0085 too: the fast reader must not read past them."""
    value = f"before{line_break}after"
    flat = FLAT.format(value)
    not_flat = flat + "\ntags:\n  - a"  # a block list: libyaml reads the whole frontmatter
    assert load_flat(flat, StoreLoader, Trap) is NOT_FLAT
    assert verdict(flat) == verdict(not_flat)


@pytest.mark.parametrize("line_break", ["\u2028", "\u2029"])
def test_a_description_broken_by_a_unicode_line_separator_is_multiline(line_break):
    record, codes = verdict(FLAT.format(f'"first{line_break}second"'))
    assert record["description"] == "first second"
    assert "description-multiline" in codes
