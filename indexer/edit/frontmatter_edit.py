"""Writing frontmatter text: YAML-safe values, a new file's text, and edits that keep every other byte. A value is
written plain only when the indexer's loader and PyYAML's both read it back as the same text, else double-quoted: so
`no`, `0123`, a date or `a: b` come back as written, whatever YAML reader opens the file.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from indexer.store import timestamps, yaml_loader
from indexer.store.flat_yaml import NOT_PRINTABLE
from indexer.store.parse import BOUNDARY, _closing_boundary

# the seed's field order: a new file is written in it, and a field added to a file goes where it belongs
MEMORY_ORDER = ("id", "kind", "name", "description", "project", "created", "updated", "valid_from", "invalid_at",
                "superseded_by", "supersedes", "source_session", "model", "tags")  # fmt: skip
NOTE_ORDER = ("id", "title", "project", "created", "updated", "tags")
ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}
FLOW_INDICATORS = re.compile(r"[,\[\]{}]")

# what a field written into frontmatter may hold: text, None (`null`) or a list of texts
FieldValue = str | list[str] | None

# what YAML 1.2 readers take for a number, bool or null although YAML 1.1 reads text (`1e3`, `0o17`, `.5`)
YAML12_NOT_TEXT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|"
    r"\.(?:nan|NaN|NAN)|true|True|TRUE|false|False|FALSE|null|Null|NULL|~",
)


class EditError(ValueError):
    """The file's frontmatter cannot be edited in place (the message says why)."""


def quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar (always read back exactly)."""
    out = []
    for ch in text:
        if ch in ESCAPES:
            out.append(ESCAPES[ch])
        elif ch < " " or NOT_PRINTABLE.match(ch) or ch in "\x85\u2028\u2029":
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _reads_back(text: str, value: object) -> bool:
    """Whether `key: text` is read as `value` by the indexer's loader and by PyYAML's safe loader."""
    source = f"key: {text}\n"
    try:
        ours = yaml_loader.load(source)
        theirs = yaml.safe_load(source)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, yaml_loader.TooDeep):
        return False
    if not (isinstance(ours, dict) and isinstance(theirs, dict)):
        return False
    mine = ours.get("key")
    if isinstance(mine, yaml_loader.Trap):
        return False
    return mine == value and theirs.get("key") == value and type(theirs.get("key")) is type(value)


def scalar(value: str | None) -> str:
    """The YAML text of one frontmatter value: `null`, plain when that is safe, else double-quoted."""
    if value is None:
        return "null"
    if timestamps.CANONICAL.match(value):
        return value  # as the seed writes them: the indexer reads timestamps as text, other readers as times
    if value and value.isprintable() and not YAML12_NOT_TEXT.fullmatch(value) and _reads_back(value, value):
        return value
    return quoted(value)


def sequence(values: list[str]) -> str:
    """A flow list of texts, each plain when that is safe inside brackets."""
    items = [
        v if v and not FLOW_INDICATORS.search(v) and scalar(v) == v and _reads_back(f"[{v}]", [v]) else quoted(v)
        for v in values
    ]
    text = "[" + ", ".join(items) + "]"
    return text if _reads_back(text, list(values)) else "[" + ", ".join(map(quoted, values)) + "]"


def value_text(value: FieldValue) -> str:
    """The YAML text of a field's value (text, None or a list of texts); empty for a global project."""
    return sequence(value) if isinstance(value, list) else scalar(value)


def new_text(fields: Mapping[str, FieldValue], body: str, order: tuple[str, ...]) -> str:
    """A whole file: frontmatter with `fields` in `order` (None written as `null`, "" as empty), then `body`."""
    lines = []
    for key in order:
        if key in fields:
            value = fields[key]
            text = "" if value == "" else value_text(value)
            lines.append(f"{key}: {text}".rstrip(" ") + "\n")
    return "---\n" + "".join(lines) + "---\n" + body


@dataclass
class Document:
    """An existing file split where the indexer splits it: before the frontmatter, the frontmatter, the
    closing line, the body. Its BOM and CRLF line endings are put back when it is written out."""

    head: str
    frontmatter: str
    closing: str
    body: str
    bom: bool = False
    crlf: bool = False

    @classmethod
    def from_bytes(cls, data: bytes) -> "Document":
        text = data.decode("utf-8")
        bom = text.startswith("\ufeff")
        text = text.removeprefix("\ufeff")
        crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
        if crlf:
            text = text.replace("\r\n", "\n")
        opening = BOUNDARY.match(text)
        closing = _closing_boundary(text, opening.end()) if opening else None
        if not closing:
            raise EditError("the file has no frontmatter between --- lines")
        assert opening is not None  # closing is only looked for after an opening boundary
        head, frontmatter, body_start = text[: opening.end()], text[opening.end() : closing.start()], closing.end() + 1
        return cls(head, frontmatter, text[closing.start() : body_start], text[body_start:], bom, crlf)

    def to_bytes(self) -> bytes:
        text = self.head + self.frontmatter + self.closing + self.body
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return (("\ufeff" if self.bom else "") + text).encode("utf-8")

    def set(self, key: str, value: FieldValue, order: tuple[str, ...]) -> None:
        """Set top-level `key` to `value`, changing only that value's text (added in `order` when absent)."""
        text = value_text(value)
        self.set_text(key, " " + text if text else "", order)

    def value_texts(self) -> dict[str, str]:
        """Each top-level key's value as written: the text after its colon (a block value's lines included)."""
        return {key: self.frontmatter[start:end] for key, (start, end) in self._spans().items()}

    def set_text(self, key: str, text: str, order: tuple[str, ...]) -> None:
        """Set top-level `key` to the value written `text` (as value_texts gives it, of this file or another),
        changing only that value's text (added in `order` when absent)."""
        spans = self._spans()
        text = text.rstrip("\n")
        fm = self.frontmatter
        if key in spans:
            start, end = spans[key]
            tail = "\n" if fm[start:end].endswith("\n") else ""  # a block value ends at the next line
            self.frontmatter = fm[:start] + text + tail + fm[end:]
            return
        before = [k for k in order[: order.index(key)] if k in spans] if key in order else []
        if before:
            at = spans[before[-1]][1]
            at = at if at == 0 or fm[at - 1] == "\n" else _line_end(fm, at)
        else:
            if not fm.endswith("\n"):
                fm += "\n"
            at = len(fm)
        self.frontmatter = fm[:at] + f"{key}:{text}".rstrip(" ") + "\n" + fm[at:]

    def remove(self, key: str) -> None:
        """Take top-level `key` and its value out of the frontmatter (nothing when it is absent)."""
        entries = self._entries()
        if key not in entries:
            return
        key_start, _, end = entries[key]
        fm = self.frontmatter
        line_start = fm.rfind("\n", 0, key_start) + 1
        end = end if end == 0 or fm[end - 1] == "\n" else _line_end(fm, end)
        self.frontmatter = fm[:line_start] + fm[end:]

    def _spans(self) -> dict[str, tuple[int, int]]:
        """Each top-level key's value, as (start, end) in the frontmatter: from just after its colon."""
        return {key: (start, end) for key, (_, start, end) in self._entries().items()}

    def _entries(self) -> dict[str, tuple[int, int, int]]:
        """Each top-level key as (where the key starts, where its value starts: just after the colon, where the
        value ends) in the frontmatter."""
        try:
            root = yaml.compose(self.frontmatter, Loader=yaml.SafeLoader)
        except yaml.YAMLError as e:
            raise EditError(f"its frontmatter is not valid YAML ({getattr(e, 'problem', e)})") from None
        if root is None:
            return {}
        if not isinstance(root, yaml.MappingNode) or root.flow_style:
            raise EditError("its frontmatter is not a block mapping of `key: value` lines")
        spans = {}
        for key_node, value_node in root.value:
            if isinstance(key_node, yaml.ScalarNode):
                colon = self.frontmatter.index(":", key_node.end_mark.index)
                spans[key_node.value] = (
                    key_node.start_mark.index,
                    colon + 1,
                    max(value_node.end_mark.index, colon + 1),
                )
        return spans


def _line_end(text: str, at: int) -> int:
    """The position just after the end of the line holding `at`."""
    newline = text.find("\n", at)
    return len(text) if newline < 0 else newline + 1
