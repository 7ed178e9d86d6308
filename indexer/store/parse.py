"""Reading one store file: bytes to text, frontmatter to a mapping, with line numbers; whatever can go wrong with a
single file's text or YAML is a Problem. Nothing here knows what a memory or a note means."""

import errno
import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import yaml
from frontmatter.default_handlers import YAMLHandler

from indexer.store import conflict_markers, yaml_loader
from indexer.store.problems import Problem, error
from indexer.store.walk import FolderFds

BOUNDARY = YAMLHandler.FM_BOUNDARY  # a line of 3 or more dashes: python-frontmatter's split
# frontmatter is a few fields; megabytes of YAML nodes take minutes to load and hold up every run
MAX_FRONTMATTER_BYTES = 65536
_SHA1 = hashlib.sha1()
TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:", re.MULTILINE)


@dataclass
class ParsedFile:
    """A file's frontmatter (None when it has none), body and where each part starts."""

    path: str
    digest: str
    meta: dict | None = None
    body: str = ""
    fm_line: int = 1
    body_line: int = 1
    fm_text: str = ""
    problems: list[Problem] = field(default_factory=list)

    @cached_property
    def key_lines(self) -> dict[str, int]:
        """The file line of each top-level frontmatter key (worked out only when a problem needs it)."""
        return {
            m.group(1): self.fm_line + self.fm_text.count("\n", 0, m.start())
            for m in TOP_LEVEL_KEY.finditer(self.fm_text)
        }

    def line_of(self, key: str) -> int:
        """The file line where top-level `key` is written (the frontmatter's start if absent)."""
        return self.key_lines.get(key, self.fm_line)

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


def digest(data: bytes) -> str:
    """The content hash used to tell a touched file from an edited one: git's id of the bytes as a blob (SHA-1 of
    `blob SIZE\\0` and the bytes), so the revisions know a committed file the index has read by it
    (indexer/index/revision_rows.py). Faster than blake2b on files of a few kilobytes (2.6 against 4.2 µs)."""
    hasher = _SHA1.copy()  # cheaper than setting up a new one
    hasher.update(b"blob %d\0" % len(data))
    hasher.update(data)
    return hasher.hexdigest()


def read_store_file(root: Path | str, path: str, max_bytes: int, folders: FolderFds | None = None) -> ParsedFile:
    """Read and parse `root/path` (through `folders`, a run's open folders of `root`); never raises for bad content
    (FileNotFoundError aside)."""
    data = read_store_bytes(root, path, max_bytes, folders)
    return data if isinstance(data, ParsedFile) else parse_bytes(path, data, max_bytes)


def read_store_bytes(
    root: Path | str, path: str, max_bytes: int, folders: FolderFds | None = None
) -> bytes | ParsedFile:
    """The bytes of `root/path` (at most `max_bytes` + 1, through `folders`), or, for a file that cannot be read,
    a ParsedFile holding its `unreadable` error; FileNotFoundError for a file that is gone."""
    try:
        if folders is None:
            with FolderFds(str(root)) as once:
                return once.read(path, max_bytes + 1)
        return folders.read(path, max_bytes + 1)
    except FileNotFoundError:
        raise
    except OSError as e:
        linked = e.errno in (errno.ELOOP, errno.ENOTDIR)
        reason = "it or a folder on its path is a symbolic link, never followed" if linked else e.strerror or e
        return _failed(ParsedFile(path, ""), 1, "unreadable", f"cannot read the file: {reason}")


def parse_bytes(path: str, data: bytes, max_bytes: int) -> ParsedFile:
    """Parse a store file's bytes into a ParsedFile, reporting every fault as a problem."""
    parsed = ParsedFile(path, digest(data))
    if len(data) > max_bytes:
        return _failed(parsed, 1, "too-large", f"file is larger than index.max_file_bytes ({max_bytes} bytes)")
    if not data or data.isspace():
        return _failed(parsed, 1, "empty-file", "file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return _failed(parsed, line, "not-utf8", f"not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start}")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return _failed(parsed, line, "binary-file", "contains NUL bytes: not a text file")
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    conflicts = conflict_markers.find(text)
    if conflicts:  # not YAML to read, nor a body to index: a merge a person has to finish
        message = f"conflict markers left by a git merge: {conflict_markers.describe(conflicts)}; "
        return _failed(parsed, conflicts[0].start, "conflict-markers", message + conflict_markers.RESOLVE)
    return split_frontmatter(parsed, text)


def _failed(parsed: ParsedFile, line: int, code: str, message: str) -> ParsedFile:
    parsed.problems.append(error(parsed.path, line, code, message))
    return parsed


def split_frontmatter(parsed: ParsedFile, text: str) -> ParsedFile:
    """Fill `parsed` with the frontmatter mapping and body of `text`."""
    opening = BOUNDARY.match(text)
    if not opening:
        parsed.body = text
        return parsed
    closing = _closing_boundary(text, opening.end())
    if not closing:
        return _failed(parsed, 1, "unclosed-frontmatter", "frontmatter opened with --- is never closed by a --- line")
    fm = text[opening.end() : closing.start()]
    # where the frontmatter's text is first found (usually right after the opening `---`)
    fm_offset = 4 if not fm else 3 if opening.end() == 3 else text.find(fm, 3)
    parsed.fm_line = text.count("\n", 0, fm_offset) + 1
    # the closing line's `\s*$` took every blank line but the last one's newline: the body starts after it
    parsed.body = text[closing.end() + 1 :]
    parsed.body_line = text.count("\n", 0, len(text) - len(parsed.body)) + 1
    parsed.fm_text = fm
    if len(fm) > MAX_FRONTMATTER_BYTES:
        why = f"frontmatter is over {MAX_FRONTMATTER_BYTES} characters; keep fields short and put long text in the body"
        return _failed(parsed, parsed.fm_line, "frontmatter-too-large", why)
    try:
        meta = yaml_loader.load(fm)
    except yaml.YAMLError as e:
        line = parsed.fm_line + _fault_line(e)
        if isinstance(e, yaml.reader.ReaderError):  # a bad character: libyaml gives its byte offset
            line = parsed.fm_line + fm.encode("utf-8").count(b"\n", 0, e.position)
        reason = getattr(e, "problem", None) or str(e).splitlines()[0]
        return _failed(parsed, line, "yaml-error", f"YAML syntax error: {reason}")
    except (RecursionError, yaml_loader.TooDeep) as e:
        return _failed(parsed, parsed.fm_line + getattr(e, "line", 0), "yaml-error", "YAML is nested too deeply")
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as e:
        # PyYAML's constructors raise plain Python errors for a value its tag cannot hold:
        # `!!int abc`, `!!timestamp 2026-13-45`, an integer of 5,000 digits
        return _failed(parsed, parsed.fm_line, "yaml-error", f"YAML value cannot be read: {e}")
    meta = {} if meta is None else meta
    if not isinstance(meta, dict):
        why = f"frontmatter must be a mapping of keys to values, not a {type(meta).__name__}"
        return _failed(parsed, parsed.fm_line, "not-a-mapping", why)
    parsed.meta = meta
    return parsed


def _closing_boundary(text: str, start: int) -> re.Match | None:
    """The first BOUNDARY line at or after `start`, as python-frontmatter's split finds it, trying only lines that start `---`."""
    at = text.find("\n---", start - 1)
    while at >= 0:
        if m := BOUNDARY.match(text, at + 1):
            return m
        at = text.find("\n---", at + 1)
    return None


# An unclosed quote or bracket, or a key with no colon, is only noticed lines later (at the next key or the
# end of the frontmatter): libyaml's context mark says where it starts, which is where the fault is. For
# anything else its problem mark is the place (the context of a bad block is where the mapping began).
OPENED = ("quoted scalar", "flow sequence", "flow mapping", "simple key")


def _fault_line(e: yaml.YAMLError) -> int:
    """The line of the frontmatter (from 0) where the YAML fault `e` is."""
    context_mark = getattr(e, "context_mark", None)
    if context_mark and (getattr(e, "context", None) or "").endswith(OPENED):
        return context_mark.line
    mark = getattr(e, "problem_mark", None) or context_mark
    return mark.line if mark else 0
