"""A fast reader for flat frontmatter: the `key: value` lines agents write, and nothing else.

Why it stays beside libyaml: `seamless index --full` of the 100k bench store takes 15.5 s of CPU with it, 27.6 without.

It reads a flat mapping of plain or simply quoted scalars and flow lists with a few regular expressions and YAML's
own implicit resolvers, giving exactly what `yaml_loader.StoreLoader` gives; anything else is `NOT_FLAT`, for libyaml.
"""

import re

from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.reader import Reader
from yaml.resolver import Resolver

NOT_FLAT = object()

LINE = re.compile(r"^([A-Za-z_][\w-]*):(?:[ \t]+(.*))?$", re.MULTILINE)  # every line of flat frontmatter
KEY = re.compile(r"[A-Za-z_][\w-]*\Z")
SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'\Z")
FLOW_LIST = re.compile(r"\[([^\[\]{}'\"#]*)\]\Z")
# a plain scalar starting with one of these, or holding a comment or a `: `, needs YAML's full rules
INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
NOT_PRINTABLE = Reader.NON_PRINTABLE  # characters YAML does not allow in a document (libyaml reports them)
ASCII_PRINTABLE = b"\t\n\r" + bytes(range(0x20, 0x7F))  # the ASCII part of what NOT_PRINTABLE allows
# YAML's line breaks besides \n: this reader splits lines at \n only, so text holding one goes to libyaml
OTHER_LINE_BREAKS = re.compile("[\r\x85\u2028\u2029]")

STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"
# every character PyYAML's own YAML 1.1 resolver for a tag can match (tests/test_flat_yaml.py checks
# this against the regexes): a scalar holding any other character is text without running them
ALPHABETS = {
    "tag:yaml.org,2002:bool": "yesYESnoNOtrueTRUEfalseFALSEonON",
    "tag:yaml.org,2002:null": "~nulNUL",
    "tag:yaml.org,2002:int": "0123456789_:+-bxabcdefABCDEF",
    "tag:yaml.org,2002:float": "0123456789_:+-.eEinfINFaA",
    "tag:yaml.org,2002:merge": "<",
    "tag:yaml.org,2002:value": "=",
    "tag:yaml.org,2002:yaml": "!&*",
}
_PYYAML = {tag: regexp for resolvers in Resolver.yaml_implicit_resolvers.values() for tag, regexp in resolvers}
# most cached scalars are seen once (ids, names, times): a small cache stays in the CPU's cache, and the
# values that recur come back at once (docs/performance.md)
MAX_CACHED = 5_000
_constructor = SafeConstructor()
_keys: set[str] = set()  # keys already known to be plain strings
_readers: dict[tuple, tuple[dict, dict]] = {}  # (loader, trap) -> (see _reader, plain scalar -> value)


def load_flat(text: str, loader: type[Resolver], trap: type[str]) -> object:
    """Parse `text` like `loader` would (its implicit resolvers; a bool or number as `trap(text)` with `read_as`
    set), or return NOT_FLAT when it is not flat frontmatter."""
    text = text.strip("\n")
    if not _printable(text) or ("\r" in text if text.isascii() else OTHER_LINE_BREAKS.search(text)):
        return NOT_FLAT
    reader = _readers.get((loader, trap)) or _reader(loader, trap)
    if len(reader[1]) > MAX_CACHED:
        reader[1].clear()
    try:
        return _mapping(text, reader, trap)
    except Exception:  # a value YAML cannot construct: its error only if every line is flat (it reads them all first)
        if len(LINE.findall(text)) != text.count("\n") + 1:
            return NOT_FLAT
        raise


def _mapping(text: str, reader, trap) -> object:
    """The mapping of `text`'s lines, read as LINE reads them, or NOT_FLAT at the first that is not flat."""
    scalars = reader[1]
    mapping: dict = {}
    for line in text.split("\n"):
        key, colon, raw = line.partition(": ")
        if not colon or key not in _keys:  # not the usual `known-key: value`: read it as LINE does
            key, colon, raw = line.partition(":")
            if not colon or raw[:1] not in ("", " ", "\t"):
                return NOT_FLAT
            if key not in _keys:
                if not KEY.match(key) or _plain(key, reader, trap) != key:
                    return NOT_FLAT
                _keys.add(key)
        # the usual case: a plain scalar read before (the cache holds neither blanks around one nor a "")
        value = scalars.get(raw, scalars)
        if value is scalars:
            raw = raw.strip(" \t")
            first = raw[:1]
            if not first:
                value = None
            elif first == '"':  # "([^"\\]*)"
                value = raw[1:-1] if raw[-1] == '"' and raw.count('"') == 2 and "\\" not in raw else NOT_FLAT
            elif first == "'":
                m = SINGLE_QUOTED.match(raw)
                value = m.group(1).replace("''", "'") if m else NOT_FLAT
            elif first == "[":
                value = _flow_list(raw, reader, trap)
            else:
                value = _plain(raw, reader, trap)
            if value is NOT_FLAT:
                return NOT_FLAT
        if key in mapping:  # a key given twice: libyaml's loader reports it
            return NOT_FLAT
        mapping[key] = value
    return mapping or None


def _printable(text: str) -> bool:
    """Whether YAML allows every character of `text` (see NOT_PRINTABLE)."""
    if text.isascii():
        return not text.encode().translate(None, ASCII_PRINTABLE)
    return not NOT_PRINTABLE.search(text)


def _reader(loader, trap) -> tuple[dict, dict]:
    """By first character NOT_FLAT (an indicator) or (alphabet or None, resolvers); and an empty cache."""
    firsts = dict.fromkeys(INDICATORS | {""}, NOT_FLAT)
    for first, resolvers in loader.yaml_implicit_resolvers.items():
        if resolvers and first not in firsts:
            known = all(tag in ALPHABETS and regexp == _PYYAML.get(tag) for tag, regexp in resolvers)
            firsts[first] = ("".join(ALPHABETS[tag] for tag, _ in resolvers) if known else None, resolvers)
    reader = _readers[loader, trap] = (firsts, {})
    return reader


def _flow_list(raw: str, reader, trap) -> object:
    if not (m := FLOW_LIST.match(raw)):
        return NOT_FLAT
    inner = m.group(1).strip()
    if not inner:
        return []
    scalars = reader[1]
    texts = [item.strip() for item in inner.split(",")]
    items = [scalars.get(text, scalars) for text in texts]
    if scalars in items:  # resolve the ones not read before, in order (one may raise, as in YAML)
        items = [_plain(text, reader, trap) if item is scalars else item for text, item in zip(texts, items)]
    return NOT_FLAT if NOT_FLAT in items else items


def _plain(text: str, reader, trap) -> object:
    """The value of a plain scalar as YAML resolves it, or NOT_FLAT (a value is remembered in the cache)."""
    firsts, scalars = reader
    entry = firsts.get(text[:1])  # NOT_FLAT for an indicator or no text; None if no resolver reads it
    if entry is NOT_FLAT or (
        (":" in text or "#" in text)
        and (text[-1] == ":" or " #" in text or "\t#" in text or ": " in text or ":\t" in text)
    ):
        return NOT_FLAT
    if entry is None:
        value = text  # no resolver for its first character
    else:
        alphabet, resolvers = entry
        if alphabet is not None and text.rstrip(alphabet):
            value = text  # a character none of the resolvers matches
        else:
            tag = next((tag for tag, regexp in resolvers if regexp.match(text)), STR)
            if tag == STR:
                value = text
            elif tag == NULL:
                value = None
            else:
                value = trap(text)
                # construct_object, as YAML does: a tag with no constructor (`=`, the value tag) is YAML's own error
                value.read_as = _constructor.construct_object(ScalarNode(tag, text))
    scalars[text] = value
    return value
