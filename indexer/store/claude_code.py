"""Claude Code's auto-memory files, read as the memories they become in a store (SPEC 11). Pure: no store, no index.
A project's folder holds `MEMORY.md` (lines `- [Title](file.md) — hook`) and a topic file per memory (`name`,
`description`, `type`), which becomes a memory of the kind its type maps to.
"""

import json
import re
import unicodedata
from dataclasses import dataclass

from indexer.store import rules
from indexer.store.parse import parse_bytes

INDEX_FILE = "MEMORY.md"
KINDS = {"user": "protocol", "feedback": "protocol", "project": "decision", "reference": "reference"}
NAME_MAX = 80  # a name is also a file name; Claude Code's names are a few words
ELLIPSIS = "…"
# `- [Title](file.md) — hook` (any dash, or none with no hook)
INDEX_LINE = re.compile(r"^\s*[-*+]\s+\[(?P<title>[^\]]*)\]\((?P<file>[^)\s]+)\)\s*(?:[—–-]+\s*(?P<hook>.*))?$")


class Unreadable(ValueError):
    """A topic file that cannot become a memory; the message says why, in a few words."""


@dataclass
class Topic:
    """One topic file, as the memory it becomes: the body keeps a cut description whole at its top."""

    file: str
    type: str
    kind: str
    name: str
    description: str
    body: str


def kebab(text: str) -> str:
    """`Testing preferences`, `feedback_testing` or `userRole` as `testing-preferences`, `feedback-testing`,
    `user-role`: ASCII letters and digits (accents dropped), at most NAME_MAX characters, cut between words."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    name = "-".join(re.findall(r"[a-z0-9]+", text.lower()))
    if len(name) > NAME_MAX:
        name = name[: NAME_MAX + 1].rsplit("-", 1)[0] if "-" in name[:NAME_MAX] else name[:NAME_MAX]
    return name


def cut_description(text: str, limit: int = rules.DESCRIPTION_MAX) -> tuple[str, bool]:
    """`text` on one line, within `limit` characters: cut at a word boundary and ended with an ellipsis when
    longer; and whether it was cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text, False
    head = text[: limit - len(ELLIPSIS)]
    if text[len(head)] != " " and " " in head:  # never half a word
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:.-") + ELLIPSIS, True


def read_topic(file: str, data: bytes, max_bytes: int) -> Topic:
    """The memory a topic file becomes; Unreadable when it is not one (the indexer's own reading of its bytes
    and YAML: not UTF-8, a YAML error, no frontmatter; then an unknown type, no description)."""
    parsed = parse_bytes(file, data, max_bytes)
    if errors := [p for p in parsed.problems if p.severity == "error"]:
        raise Unreadable(f"line {errors[0].line}: {errors[0].message}")
    if parsed.meta is None:
        raise Unreadable("no frontmatter: a topic file opens with name, description and type between --- lines")
    meta = parsed.meta
    given_type = memory_type(meta)
    kind = KINDS[given_type]
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise Unreadable("no description: the one line an index shows")
    given = meta.get("name")
    name = kebab(given) if isinstance(given, str) else ""
    name = name or kebab(file.removesuffix(".md"))
    if not name:
        raise Unreadable("no name to make kebab-case from: neither `name:` nor the file name has a letter or digit")
    short, cut = cut_description(description)
    body = parsed.body
    if cut:  # the whole text stays, at the top of the body
        body = " ".join(description.split()) + "\n\n" + body.lstrip("\n")
    return Topic(file, given_type, kind, name, short, body)


def memory_type(meta: dict) -> str:
    """The topic's type, one of KINDS: `type:` at the top of the frontmatter (the first layout), or under
    `metadata:` (the layout Claude Code writes now); Unreadable when neither gives one, or the two disagree."""
    nested = meta.get("metadata")
    given = {"type": meta.get("type"), "metadata: type": nested.get("type") if isinstance(nested, dict) else None}
    found = {where: value for where, value in given.items() if value is not None}
    if not found:
        where = "in the frontmatter, or under `metadata:` as Claude Code writes it now"
        raise Unreadable(f"no type: give `type:` ({', '.join(KINDS)}) {where}")
    if len(set(map(repr, found.values()))) > 1:
        top, nested = _shown(given["type"]), _shown(given["metadata: type"])
        raise Unreadable(f"`type: {top}` and `metadata: type: {nested}` disagree")
    value = next(iter(found.values()))
    if not isinstance(value, str) or value not in KINDS:
        raise Unreadable(f"type {_shown(value)} is not one of {', '.join(KINDS)}")
    return value


def _shown(value) -> str:
    """A frontmatter value as a message shows it: a text quoted, anything else as YAML writes it (never Python's
    `None` or `True`)."""
    if isinstance(value, str):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def index_links(text: str) -> list[tuple[str, str, str]]:
    """The `- [Title](file.md) — hook` lines of MEMORY.md, as (title, file, hook)."""
    return [(m["title"], m["file"], m["hook"] or "") for m in map(INDEX_LINE.match, text.splitlines()) if m]
