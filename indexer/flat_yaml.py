"""A fast reader for flat frontmatter: the `key: value` lines agents write, and nothing else.

libyaml builds a Python node, with marks, for every scalar; for a store of
100,000 files that is most of the indexing time. Most frontmatter is a flat
mapping of plain or simply quoted scalars and flow lists of plain scalars, which
this module reads with a few regular expressions and YAML's own implicit
resolvers, giving exactly what `yaml_loader.StoreLoader` gives. Anything else
(block scalars, nesting, anchors, escapes, comments, blank lines) returns
`NOT_FLAT` and goes to libyaml.
"""

import re

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode

NOT_FLAT = object()

LINE = re.compile(r"^([A-Za-z_][\w-]*):(?:[ \t]+(.*))?$", re.MULTILINE)
DOUBLE_QUOTED = re.compile(r'"([^"\\]*)"\Z')
SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'\Z")
FLOW_LIST = re.compile(r"\[([^\[\]{}'\"#]*)\]\Z")
# a plain scalar starting with one of these, or holding a comment or a `: `, needs YAML's full rules
INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# characters YAML does not allow in a document (it would raise; libyaml reports them)
NOT_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"
_constructor = SafeConstructor()
_scalars: dict[str, object] = {}  # plain scalars YAML might resolve (null, bools, numbers) -> value
_keys: set[str] = set()  # keys already known to be plain strings


def load_flat(text: str, loader: type[yaml.SafeLoader], trap: type[str]) -> object:
    """Parse `text` like `loader` would, or return NOT_FLAT when it is not flat frontmatter.

    `loader` supplies the implicit resolvers (which scalars are null, bools,
    numbers); a bool or number is returned as `trap(text)` with `read_as` set.
    """
    text = text.strip("\n")
    lines = LINE.findall(text)
    if len(lines) != text.count("\n") + 1 or NOT_PRINTABLE.search(text):
        return NOT_FLAT
    if len(_scalars) > 100_000:
        _scalars.clear()
    mapping: dict = {}
    for key, raw in lines:
        if key not in _keys:
            if _plain(key, loader, trap) != key:
                return NOT_FLAT
            _keys.add(key)
        raw = raw.rstrip(" \t")
        if not raw:
            value = None
        elif raw[0] == '"':
            m = DOUBLE_QUOTED.match(raw)
            value = m.group(1) if m else NOT_FLAT
        elif raw[0] == "'":
            m = SINGLE_QUOTED.match(raw)
            value = m.group(1).replace("''", "'") if m else NOT_FLAT
        elif raw[0] == "[":
            value = _flow_list(raw, loader, trap)
        else:
            value = _plain(raw, loader, trap)
        if value is NOT_FLAT:
            return NOT_FLAT
        mapping[key] = value
    return mapping or None


def _flow_list(raw: str, loader, trap) -> object:
    m = FLOW_LIST.match(raw)
    if not m:
        return NOT_FLAT
    inner = m.group(1).strip()
    if not inner:
        return []
    items = [_plain(item.strip(), loader, trap) for item in inner.split(",")]
    return NOT_FLAT if any(item is NOT_FLAT for item in items) else items


def _plain(text: str, loader, trap) -> object:
    """The value of a plain scalar, as YAML resolves it."""
    if (not text or text[0] in INDICATORS or text[-1] == ":"
            or " #" in text or "\t#" in text or ": " in text or ":\t" in text):
        return NOT_FLAT
    resolvers = loader.yaml_implicit_resolvers.get(text[0])
    if not resolvers:
        return text
    value = _scalars.get(text, _scalars)
    if value is not _scalars:
        return value
    tag = next((tag for tag, regexp in resolvers if regexp.match(text)), STR)
    if tag == STR:
        value = text
    elif tag == NULL:
        value = None
    else:
        value = trap(text)
        value.read_as = _constructor.yaml_constructors[tag](_constructor, ScalarNode(tag, text))
    _scalars[text] = value
    return value
