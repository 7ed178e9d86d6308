"""The store's small rules, as pure functions: names, ids, scope, status, stage headers, pins."""

import re

KINDS = ("constraint", "runbook", "protocol", "gotcha", "decision", "refuted", "reference", "stage")
STAGE_STATUSES = ("open", "in_progress", "blocked", "done")
LIVE_STAGE_STATUSES = ("open", "in_progress", "blocked")
GATES = ("human", "ai")
DESCRIPTION_MAX = 150

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
STATUS_LINE = re.compile(r"status[ \t]*:[ \t]*([A-Za-z_]+)[ \t]*(.*)\Z", re.IGNORECASE)
GATE_TEXT = re.compile(r"[ \t|,;]*gate[ \t]*:[ \t]*([A-Za-z]+)[ \t]*\Z", re.IGNORECASE)
# a ULID as text: 26 characters of Crockford base32, the first at most 7 so it fits 128 bits
ULID_TEXT = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}\Z")


def is_kebab_case(name: str) -> bool:
    """`chroma-boot-race` yes; `Chroma_Boot` or `boot race` no."""
    return bool(KEBAB.match(name))


def scope(project: str | None) -> str | None:
    """The project a memory belongs to; None means global (empty, null or the word `global`)."""
    if project is None:
        return None
    project = project.strip()
    return None if project in ("", "global") else project


def status(invalid_at: str | None, superseded_by: str | None) -> str:
    """`active`, `superseded` or `archived`, from the lifecycle fields."""
    if superseded_by:
        return "superseded"
    return "archived" if invalid_at else "active"


def stage_header(body: str) -> tuple[str, str | None] | None:
    """A stage body's header, its first non-blank line `Status: X`, optionally `Gate: Y` (on that line or the next),
    as (status, gate or None); None when the header is missing or unparseable."""
    lines = body.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    m = STATUS_LINE.match(lines[first].strip())
    if not m or m.group(1).lower() not in STAGE_STATUSES:
        return None
    rest = m.group(2)
    if rest:
        gate = GATE_TEXT.match(rest)
    elif first + 1 < len(lines):
        gate = GATE_TEXT.match(lines[first + 1].strip())
    else:
        gate = None
    if gate and gate.group(1).lower() not in GATES:
        return None
    if rest and not gate:
        return None
    return m.group(1).lower(), gate.group(1).lower() if gate else None


def pinned(kind: str, stage_status: str | None) -> bool:
    """Every constraint, and a stage whose status is open, in_progress or blocked."""
    return kind == "constraint" or (kind == "stage" and stage_status in LIVE_STAGE_STATUSES)


def spans_lines(text: str) -> bool:
    """Whether `text` holds a line break YAML keeps in a value: \\n, U+2028 or U+2029."""
    return "\n" in text or (not text.isascii() and ("\u2028" in text or "\u2029" in text))


def fold_description(description: str) -> str:
    """A description on several lines, folded onto one."""
    # printable text has no whitespace but the space: single spaces inside are already folded
    if description.isprintable() and "  " not in description and description.strip(" ") == description:
        return description
    return " ".join(description.split())


FRONTMATTER_ID = re.compile(rb"^id[ \t]*:[ \t]*['\"]?([0-9A-Za-z]{26})['\"]?[ \t]*(?:#.*)?\r?$", re.MULTILINE)


def frontmatter_id(data: bytes) -> str | None:
    """The id a file's frontmatter names, as `memory_record` reads it, found without YAML (the revisions read
    one for each file of each commit); None when there is no such line or it is no ULID."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data.startswith(b"---"):
        return None
    end = data.find(b"\n---", 3)
    found = FRONTMATTER_ID.search(data, 3, end if end >= 0 else len(data))
    value = found.group(1).decode("ascii").upper() if found else None
    return value if value and ULID_TEXT.match(value) else None
