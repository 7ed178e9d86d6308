"""Turning one parsed file into a memory or note record, checking every per-file rule (crossfile.py: the rest)."""

import json
import re
from pathlib import PurePosixPath

from indexer.store import rules, timestamps
from indexer.store.parse import ParsedFile
from indexer.store.problems import Problem, error, warning
from indexer.store.yaml_loader import Trap

# The whole heading line; closing spaces and #s are stripped in Python (see heading_text): a lazy `(.+?)` before
# `[ \t#]*$` retried the tail at every character, hours for `# a` and four megabytes of spaces before `x`.
HEADING = re.compile(r"^#[ \t]+(.+)$", re.MULTILINE)
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")  # a fenced code block opens or closes: a `#` line in it is code


class FieldReader:
    """Reads frontmatter fields of one file, collecting problems as it goes."""

    def __init__(self, parsed: ParsedFile):
        self.parsed = parsed
        self.meta = parsed.meta or {}
        self.problems: list[Problem] = list(parsed.problems)

    def error(self, key: str, code: str, message: str) -> None:
        self.problems.append(error(self.parsed.path, self.parsed.line_of(key), code, message))

    def warning(self, key: str, code: str, message: str) -> None:
        self.problems.append(warning(self.parsed.path, self.parsed.line_of(key), code, message))

    @property
    def failed(self) -> bool:
        return bool(self.problems) and any(p.severity == "error" for p in self.problems)

    def text(self, key: str) -> str | None:
        """A text field; a YAML trap is kept as written with a warning; None if absent."""
        value = self.meta.get(key)
        if type(value) is str:  # the usual case first
            return value
        if value is None:
            return None
        if isinstance(value, Trap):
            why = f"{key}: {value} is read by YAML as {value.read_as!r}; kept as the text {str(value)!r} (quote it)"
            self.warning(key, "yaml-trap", why)
            return str(value)
        if isinstance(value, str):
            return value
        self.error(key, "bad-field", f"{key} must be text, not a {type(value).__name__}")
        return None

    def timestamp(self, key: str) -> str | None:
        value = self.meta.get(key)
        if value is None:
            return None
        if type(value) is str and timestamps.CANONICAL.match(value):  # the usual case: already canonical
            return value
        if value == "":
            return None
        if not isinstance(value, str):
            self.error(key, "bad-timestamp", f"{key} must be an ISO 8601 timestamp, not a {type(value).__name__}")
            return None
        try:
            return timestamps.normalize(value)
        except ValueError as e:
            self.error(key, "bad-timestamp", f"{key}: {e}")
            return None

    def ulid(self, key: str, required: bool) -> str | None:
        value = self.meta.get(key)
        if type(value) is str and rules.ULID_TEXT.match(value):  # the usual case: a ULID as it is stored
            return value
        if value is not None:
            value = self.text(key)
        if value is None or not value.strip():
            if required:
                self.error(key, "missing-id", f"{key} is required (a ULID)")
            return None
        value = value.strip().upper()
        if rules.ULID_TEXT.match(value):
            return value
        self.error(key, "malformed-id", f"{key}: {value!r} is not a ULID (26 characters of Crockford base32)")
        return None

    def tags(self) -> str:
        """Tags as a JSON array of distinct strings, in their first order."""
        value = self.meta.get("tags")
        if value is None:
            return "[]"
        if isinstance(value, str):
            self.warning("tags", "tags-bare-string", f"tags should be a list; {value!r} was read as one tag")
            value = [value]
        if not isinstance(value, list):
            self.warning("tags", "bad-tags", f"tags must be a list of strings, not a {type(value).__name__}; ignored")
            return "[]"
        tags = []
        for item in value:
            if type(item) is str and item.strip():  # the usual case first
                tags.append(item.strip())
                continue
            if isinstance(item, Trap):
                self.warning("tags", "yaml-trap", f"tag {item} is read by YAML as {item.read_as!r}; kept as written")
            if isinstance(item, str) and item.strip():
                tags.append(str(item).strip())
            elif isinstance(item, str):
                self.warning("tags", "bad-tags", "an empty tag; ignored")
            elif item is not None:
                self.warning("tags", "bad-tags", f"a tag must be text, not a {type(item).__name__}; ignored")
        return json.dumps(list(dict.fromkeys(tags)), ensure_ascii=False)


def memory_record(parsed: ParsedFile) -> tuple[dict | None, list[Problem]]:
    """The `memories` row for a parsed file, or None when the file has an error."""
    if parsed.meta is None:
        if parsed.ok:
            return None, [error(parsed.path, 1, "no-frontmatter", "a memory needs YAML frontmatter between --- lines")]
        return None, list(parsed.problems)
    f = FieldReader(parsed)
    kind = _kind(f)
    memory_id = f.ulid("id", required=True)
    name = _name(f)
    description = _description(f)
    times = _times(f)
    project, tags = rules.scope(f.text("project")), f.tags()
    source_session, model = f.text("source_session"), f.text("model")
    if f.failed:
        return None, f.problems
    assert kind is not None  # _kind returns None only after recording an error, so f.failed above
    stage_status, stage_gate = _stage(parsed, kind, f)
    record = {
        "id": memory_id,
        "kind": kind,
        "name": name,
        "description": description,
        "project": project,
        "status": rules.status(times["invalid_at"], times["superseded_by"]),
        "stage_status": stage_status,
        "stage_gate": stage_gate,
        "pinned": int(rules.pinned(kind, stage_status)),
        **times,
        "source_session": source_session,
        "model": model,
        "tags": tags,
        "body": parsed.body,
        "path": parsed.path,
    }
    return record, f.problems


def _kind(f: FieldReader) -> str | None:
    """The kind, one of rules.KINDS (an error otherwise)."""
    kind = f.text("kind")
    if kind is None or not kind.strip():
        f.error("kind", "missing-kind", f"kind is required: one of {', '.join(rules.KINDS)}")
    elif kind.strip() not in rules.KINDS:
        f.error("kind", "unknown-kind", f"kind {kind!r} is not one of {', '.join(rules.KINDS)}")
    else:
        return kind.strip()
    return None


def _name(f: FieldReader) -> str | None:
    """The name (an error when missing, a warning when not kebab-case)."""
    name = f.text("name")
    if name is None or not name.strip():
        f.error("name", "missing-name", "name is required (kebab-case, unique in its project)")
        return None
    if not rules.is_kebab_case(name.strip()):
        f.warning("name", "name-not-kebab", f"name {name!r} is not kebab-case (like chroma-boot-race)")
    return name.strip()


def _description(f: FieldReader) -> str | None:
    """The description folded onto one line (an error when missing, warnings when on several lines or long)."""
    description = f.text("description")
    if description is None or not description.strip():
        f.error("description", "missing-description", "description is required: the one line every index shows")
        return None
    if rules.spans_lines(description.strip()):
        f.warning("description", "description-multiline", "description spans several lines; folded onto one")
    description = rules.fold_description(description)
    if len(description) > rules.DESCRIPTION_MAX:
        why = f"description is {len(description)} characters; at most {rules.DESCRIPTION_MAX} are shown well"
        f.warning("description", "description-too-long", why)
    return description


def _times(f: FieldReader) -> dict[str, str | None]:
    """created, updated, valid_from, invalid_at, superseded_by (set only with invalid_at) and supersedes."""
    created = f.timestamp("created")
    times = {
        "created": created,
        "updated": f.timestamp("updated") or created,
        "valid_from": f.timestamp("valid_from") or created,
        "invalid_at": f.timestamp("invalid_at"),
        "superseded_by": f.ulid("superseded_by", required=False),
        # the other end of a supersession, written by the supersede path (SPEC section 10: forks)
        "supersedes": f.ulid("supersedes", required=False),
    }
    if times["superseded_by"] and not times["invalid_at"]:
        why = "superseded_by is set but invalid_at is not: only the supersede path may set them, together"
        f.error("superseded_by", "hand-stamped", why)
    return times


def _stage(parsed: ParsedFile, kind: str, f: FieldReader) -> tuple[str | None, str | None]:
    """A stage's status and gate from its body's header (status unknown, with a warning, without one)."""
    if kind != "stage":
        return None, None
    header = rules.stage_header(parsed.body)
    if header is not None:
        return header
    first = next((i for i, line in enumerate(parsed.body.split("\n")) if line.strip()), 0)
    why = "a stage body must open with `Status: open|in_progress|blocked|done` (then optionally `Gate: human|ai`)"
    f.problems.append(warning(parsed.path, parsed.body_line + first, "stage-header", why + "; shown as status unknown"))
    return "unknown", None


def note_title(meta_title: str | None, body: str, path: str) -> str:
    """A note's title: its frontmatter title, else its first `# heading`, else its file name."""
    if meta_title and meta_title.strip():
        return meta_title.strip()
    return first_heading(body) or PurePosixPath(path).stem


def first_heading(body: str) -> str | None:
    """The text of the body's first `# heading` outside fenced code blocks (a shell comment is no title)."""
    if "```" not in body and "~~~" not in body:  # the usual case: no code block to skip
        heading = HEADING.search(body)
        return heading_text(heading) if heading else None
    fence = ""
    for line in body.splitlines():
        mark = FENCE.match(line)
        if fence:  # inside a block: only a bare fence of the same kind, at least as long, closes it
            if mark and mark[1][0] == fence[0] and len(mark[1]) >= len(fence) and not line[mark.end() :].strip():
                fence = ""
        elif mark:
            fence = mark[1]
        elif heading := HEADING.match(line):
            return heading_text(heading)
    return None


def heading_text(heading: re.Match) -> str:
    """A HEADING's text without its closing spaces and #s (a heading of #s only keeps its first)."""
    text = heading.group(1)
    return (text.rstrip(" \t#") or text[:1]).strip()


def note_record(parsed: ParsedFile) -> tuple[dict | None, list[Problem]]:
    """The `notes` row for a parsed file (frontmatter optional), or None when it has an error."""
    if not parsed.ok:
        return None, list(parsed.problems)
    f = FieldReader(parsed)
    record = {
        "path": parsed.path,
        "id": f.ulid("id", required=False),
        "title": note_title(f.text("title"), parsed.body, parsed.path),
        "project": rules.scope(f.text("project")),
        "created": f.timestamp("created"),
        "updated": None,
        "tags": f.tags(),
        "body": parsed.body,
    }
    record["updated"] = f.timestamp("updated") or record["created"]
    if f.failed:
        return None, f.problems
    return record, f.problems
