"""The flat-frontmatter fast path must read exactly what libyaml reads, or step aside."""

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.flat_yaml import NOT_FLAT, load_flat
from indexer.yaml_loader import StoreLoader, Trap

KEYS = st.sampled_from(["id", "name", "kind", "tags", "yes", "null", "1", "a-b", "x_y", "<<", "key with space"])
TOKENS = st.sampled_from([
    "no", "yes", "On", "off", "~", "null", "Null", "true", "12", "012", "0x1F", "1_000", "1.5", ".inf", "-.5",
    "1:20", "2026-07-10", "2026-07-10T18:00:00Z", "chroma-boot-race", "Chroma: boot", "a #b", "a#b", "C#",
    "'it''s'", '"dq"', '"a\\"b"', "[a, b]", "[]", "[yes, 1, x]", "[a, [b]]", "[a: b]", "{a: 1}", "&x a", "*x",
    "!!str 1", "|", ">", "- a", "-a", "?a", "%a", "@a", "`a", "x:", "a: b", "é", "\x07", "  padded  ", "",
])


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
        return type(a) is type(b) and a == b and a.read_as == b.read_as and type(a.read_as) is type(b.read_as)
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(frontmatter())
def test_fast_path_reads_what_libyaml_reads(text):
    fast = load_flat(text, StoreLoader, Trap)
    if fast is NOT_FLAT:
        return
    reference = yaml.load(text, Loader=StoreLoader)  # must not raise: the fast path only takes valid YAML
    assert same(fast, reference), (text, fast, reference)


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
