"""The merge rules for store files changed on two sides since their common base (SPEC section 10, rules 1-5): the
merge driver's (`merge`, each field's text kept as one side wrote it, the body merged by `git merge-file`) and
those a merge commit of `seamless sync` applies to whole files (`file_rules`). Every host gets the same answer
whichever side is "ours": ties go to the earlier time or the greater text, never to a side.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from indexer import git
from indexer.edit.frontmatter_edit import MEMORY_ORDER, NOTE_ORDER, Document, EditError
from indexer.store import crossfile, timestamps, yaml_loader
from indexer.store.parse import BOUNDARY, parse_bytes

LIFECYCLE = ("invalid_at", "superseded_by")
REPORT = "SEAMLESS_MERGE_REPORT"  # sync sets it: the driver appends one JSON line per file it merged
REPORT_FILE = "seamless-merge-report.jsonl"  # where sync has it written, in the git folder
MAX_BYTES = 64 * 1024 * 1024  # no limit of the store's own (index.max_file_bytes) applies to a merge

# the names `rules` uses, in SPEC order (docs/sync.md)
LIFECYCLE_RULE = "lifecycle"  # both sides ended the memory differently: the earliest invalid_at kept (rule 1)
FIELDS_RULE = "fields"  # each side changed other fields: both kept (rule 2)
LINES_RULE = "body-lines"  # both changed the body, on different lines: merged line by line (rule 2)
APPENDS_RULE = "appends"  # both appended to the body: both texts kept, in `updated` order (rule 2)
LATER_RULE = "later-updated"  # both changed one field: the later `updated` won it (rule 2, a concurrent edit)


class CannotMerge(Exception):
    """The file cannot be merged by the store's rules (the message says why): git's own merge takes it."""


class DifferentMemories(CannotMerge):
    """Two memories (two ids) at one path: no line of one may be merged into the other, so the driver leaves the
    whole file to a person (git's rename detection can pair a deleted memory with a new, similar one)."""


@dataclass
class Merged:
    """The merged file, and how it was made."""

    data: bytes
    id: str | None  # the memory's or note's id, when it has one
    rules: list[str] = field(default_factory=list)
    concurrent: bool = False  # a field went to the later side: a Seamless-Concurrent-Edit


@dataclass
class Side:
    """One version of the file: its document (None without frontmatter), field texts, values and body."""

    doc: Document | None
    texts: dict[str, str]
    values: dict
    body: str

    def text(self, key: str) -> str | None:
        """`key`'s value as written, without surrounding blanks; None when the key is absent."""
        value = self.texts.get(key)
        return None if value is None else value.strip()

    def time(self, key: str) -> str | None:
        """`key` as a canonical UTC time, None when absent, null or not a time."""
        value = self.values.get(key)
        if value is None or value == "":
            return None
        try:
            return timestamps.normalize(str(value))
        except ValueError:
            return None

    @property
    def id(self) -> str | None:
        return _ulid(self.values.get("id"))

    @property
    def lifecycle(self) -> tuple[str | None, str | None]:
        """(invalid_at, superseded_by) as values: when it ended, and what replaced it."""
        return self.time("invalid_at"), _ulid(self.values.get("superseded_by"))


def _ulid(value) -> str | None:
    return str(value).strip().upper() or None if value is not None else None


def read(data: bytes) -> Side:
    """One version's parts, or CannotMerge when it is not text with readable frontmatter (or none at all)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CannotMerge("it is not UTF-8 text") from None
    if "\x00" in text:
        raise CannotMerge("it contains NUL bytes")
    try:
        doc = Document.from_bytes(data)
    except EditError:
        plain = text.removeprefix("\ufeff").replace("\r\n", "\n")
        if BOUNDARY.match(plain):
            raise CannotMerge("its frontmatter is never closed") from None
        return Side(None, {}, {}, plain)  # a plain markdown note: all body
    try:
        texts = doc.value_texts()
        values = yaml_loader.load(doc.frontmatter)
    except (EditError, yaml.YAMLError, ValueError, TypeError, RecursionError, yaml_loader.TooDeep) as e:
        raise CannotMerge(f"its frontmatter cannot be read ({str(e).splitlines()[0] if str(e) else e})") from None
    values = {} if values is None else values
    if not isinstance(values, dict):
        raise CannotMerge("its frontmatter is not a mapping")
    return Side(doc, texts, values, doc.body)


def merge(base: bytes | None, ours: bytes, theirs: bytes, path: str = "") -> Merged:
    """Merge one file changed on both sides by SPEC 10's rules 1-3; `base` None (or empty, or unreadable) when
    the sides share no readable version. Raises CannotMerge for what the rules cannot merge: a side that
    cannot be read, or two different memories (ids) at one path."""
    o, t = read(ours), read(theirs)
    try:
        b = read(base) if base else None
    except CannotMerge:
        b = None  # a base git made from a conflicted merge of its own (criss-cross history): no common version
    if (o.doc is None) != (t.doc is None):
        raise CannotMerge("one side has frontmatter and the other has none")
    if o.id != t.id:
        raise DifferentMemories(f"two different memories at one path: ids {o.id} and {t.id}")
    if not base and o.id is None:
        raise CannotMerge("two different files at one path: no id")
    if b is not None and (b.doc is None) != (o.doc is None):
        b = None
    merged = Merged(b"", o.id)
    # the side whose `updated` is later wins what both changed; None: equal times, the greater text wins
    later = _later(o.time("updated"), t.time("updated"))
    body = _merge_body(b, o, t, later, merged)
    if o.doc is None:
        data = body.encode("utf-8")
        if ours.startswith(b"\xef\xbb\xbf"):
            data = b"\xef\xbb\xbf" + data
    else:
        doc = Document(o.doc.head, o.doc.frontmatter, o.doc.closing, body, o.doc.bom, o.doc.crlf)
        order = MEMORY_ORDER if "kind" in o.values or path.startswith("memories/") else NOTE_ORDER
        for key, text in _merge_fields(b, o, t, later, merged).items():
            if text is None:
                doc.remove(key)
            else:
                doc.set_text(key, text, order)
        data = doc.to_bytes()
    if not parse_bytes(path, data, MAX_BYTES).ok:  # never hand back what the indexer could not read
        raise CannotMerge("the merged frontmatter would not read back")
    merged.data = data
    return merged


def _later(ours: str | None, theirs: str | None) -> str | None:
    """'ours' or 'theirs', whichever `updated` is later (a missing one is earliest); None when equal."""
    if (ours or "") == (theirs or ""):
        return None
    return "ours" if (ours or "") > (theirs or "") else "theirs"


def _side(b: Side | None, o: Side, t: Side, key: str, later: str | None, merged: Merged) -> str:
    """Rule 2 for one field: the side whose text the result keeps ('ours' or 'theirs')."""
    mine, yours = o.text(key), t.text(key)
    if mine == yours:
        return "ours"
    if b is not None and mine == b.text(key):
        return "theirs"  # changed on their side only
    if b is not None and yours == b.text(key):
        return "ours"
    merged.concurrent = True  # changed on both: the later side wins, or at equal times the greater text
    _note(merged, LATER_RULE)
    if later is not None:
        return later
    return "ours" if (mine or "", mine is not None) > (yours or "", yours is not None) else "theirs"


def _merge_fields(b: Side | None, o: Side, t: Side, later: str | None, merged: Merged) -> dict[str, str | None]:
    """The frontmatter fields whose text in the result is theirs: key -> their text (None: removed)."""
    changes: dict[str, str | None] = {}
    keys = list(o.texts) + [k for k in t.texts if k not in o.texts]
    if any(o.text(key) != t.text(key) for key in keys if key not in LIFECYCLE and key != "updated"):
        _note(merged, FIELDS_RULE)
    for key in keys:
        if key not in LIFECYCLE and key != "updated" and _side(b, o, t, key, later, merged) == "theirs":
            changes[key] = t.texts.get(key)
    if _lifecycle(b, o, t, later, merged) == "theirs":
        changes.update({key: t.texts.get(key, " null" if key in o.texts else None) for key in LIFECYCLE})
    if later == "theirs":  # rule 3: `updated` is the later of the two
        changes["updated"] = t.texts.get("updated")
    return changes


def _lifecycle(b: Side | None, o: Side, t: Side, later: str | None, merged: Merged) -> str:
    """Rule 1, monotonic (once invalid, always invalid): the side whose invalid_at and superseded_by the result
    keeps. The earliest invalid_at wins; at equal times a successor beats none, then the smaller successor id."""
    mine, yours = o.lifecycle, t.lifecycle
    if mine == yours:
        return "ours"
    if mine[0] is None and yours[0] is None:  # a successor with no end on a side (hand-stamped): a plain field
        return _side(b, o, t, "superseded_by", later, merged)
    if b is None or b.lifecycle not in (mine, yours):
        _note(merged, LIFECYCLE_RULE)  # both sides ended it, differently
    ended = [(when, successor is None, successor or "", side) for side, (when, successor) in
             (("ours", mine), ("theirs", yours)) if when is not None]  # fmt: skip
    return min(ended)[3]


def _note(merged: Merged, rule: str) -> None:
    if rule not in merged.rules:
        merged.rules.append(rule)


def _merge_body(b: Side | None, o: Side, t: Side, later: str | None, merged: Merged) -> str:
    """Rule 2 for the body: one side's change, both appends in `updated` order, a clean line-by-line merge, or
    else the later side's body (equal times: the greater text)."""
    if o.body == t.body:
        return o.body
    if b is not None and o.body == b.body:
        return t.body
    if b is not None and t.body == b.body:
        return o.body
    if b is not None:
        mine, yours = _appended(b.body, o.body), _appended(b.body, t.body)
        if mine is not None and yours is not None:
            _note(merged, APPENDS_RULE)
            first, second = sorted([(o.time("updated") or "", mine), (t.time("updated") or "", yours)])
            text = b.body.rstrip("\n")
            for _, piece in (first, second):
                text = (text + "\n\n" if text.strip() else "") + piece
            return text + "\n"
    lines, clean = git.merge_file((b.body if b else "").encode(), o.body.encode(), t.body.encode())
    if clean:
        _note(merged, LINES_RULE)
        return lines.decode("utf-8")
    merged.concurrent = True
    _note(merged, LATER_RULE)
    if later is not None:
        return o.body if later == "ours" else t.body
    return max(o.body, t.body)


def _appended(base: str, body: str) -> str | None:
    """The text `body` adds at the end of `base` on lines of its own (as `seamless append` adds it), or None when
    `body` is not `base` plus more."""
    kept = base.rstrip("\n")
    tail = body[len(kept) :] if body.startswith(kept) else ""
    return (tail.strip("\n") or None) if tail.startswith("\n") or not kept else None


def whole_file_conflict(ours: bytes, theirs: bytes, why: str) -> bytes:
    """Both sides whole between git's conflict markers, the first marker saying why they were not merged."""
    mine, yours = (data if data.endswith(b"\n") or not data else data + b"\n" for data in (ours, theirs))
    return b"<<<<<<< ours (%s)\n%s=======\n%s>>>>>>> theirs\n" % (why.encode("utf-8"), mine, yours)


def run_driver(base: Path, ours: Path, theirs: Path, path: str) -> int:
    """What git runs for a `merge=seamless` file changed on both sides (`%O %A %B %P`): the merged file written over
    `ours`, 0 when clean. Two memories at one path are a conflict, each side whole between markers; a file the rules
    cannot read is left to git's own merge."""
    versions = [p.read_bytes() for p in (base, ours, theirs)]
    try:
        merged = merge(versions[0] or None, versions[1], versions[2], path)
    except DifferentMemories as e:
        # the whole of each side between markers, never a line merge of two memories; `seamless index` names the
        # markers (conflict-markers) and no commit or push of ours carries them
        ours.write_bytes(whole_file_conflict(versions[1], versions[2], str(e)))
        return 1
    except CannotMerge:
        data, clean = git.merge_file(*versions)
        ours.write_bytes(data)
        return 0 if clean else 1
    ours.write_bytes(merged.data)
    if report := os.environ.get(REPORT):
        line = {"path": path, "id": merged.id, "rules": merged.rules, "concurrent": merged.concurrent}
        with open(report, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
    return 0


class Unmerged(CannotMerge):
    """A file a merge left in conflict that the store's rules cannot settle: `path` (from the top of the work tree)
    and why; a person merges it."""

    def __init__(self, path: str, why: str):
        super().__init__(why)
        self.path = path


def driver_report(repo: git.Repo, report: Path) -> tuple[list[dict], list[str]]:
    """What the merge driver wrote to `report` (REPORT) as it merged, file by file: the rules it applied, as {id,
    path, rule}, and the memories (a note without an id: its path) whose fields went to the later side."""
    applied, concurrent = [], []
    for line in report.read_text("utf-8").splitlines() if report.exists() else []:
        entry = json.loads(line)
        path = repo.store_path(entry["path"]) or entry["path"]
        applied += [{"id": entry["id"], "path": path, "rule": r} for r in entry["rules"]]
        if entry["concurrent"]:
            concurrent.append(entry["id"] or path)
    return applied, concurrent


def file_rules(repo: git.Repo) -> list[dict]:
    """The rules a merge driver cannot apply (SPEC 10 rules 3-5), on the files a merge under way left unmerged: what
    was settled, as {id, path, rule}; anything else is Unmerged."""
    stages: dict[str, dict[int, str]] = {}  # path -> stage -> blob
    for entry in repo.run("ls-files", "-u", "-z").stdout.split("\0"):
        if entry:
            info, path = entry.split("\t", 1)
            _, blob, stage = info.split()
            stages.setdefault(path, {})[int(stage)] = blob
    resolved = []
    for path, blobs in sorted(stages.items()):
        present = set(blobs)
        store_path = repo.store_path(path)
        in_store = store_path is not None and store_path.startswith(("memories/", "notes/"))
        if not in_store or not path.endswith(".md"):
            raise Unmerged(path, f"{path} changed on both sides and git cannot merge it")
        if present == {1, 2} or present == {1, 3}:  # deleted on one side, edited on the other: kept
            repo.run("checkout", "--ours" if 2 in present else "--theirs", "--", path)
            repo.run("add", "--", path)
            kept = _id_of((repo.top / path).read_bytes())
            resolved.append({"id": kept, "path": store_path, "rule": "delete-vs-edit"})

        elif present == {2, 3}:
            resolved.append(_both_added(repo, path))
        elif (followed := _edit_follows_move(repo, path, blobs)) is not None:
            resolved.append(followed)
        else:
            raise Unmerged(
                path, f"{store_path} cannot be merged by the store's rules (a file git's own merge left in conflict)"
            )
    return resolved


def _edit_follows_move(repo: git.Repo, path: str, blobs: dict[int, str]) -> dict | None:
    """Rule 4 seen from a third host: one side kept another memory at `path` and moved this one, unchanged, to a
    `-N` path (`_both_added`), while the other side edited it at `path`. The edit goes where the memory went, and
    the other memory stays; None when the conflict is not that."""
    if set(blobs) != {1, 2, 3}:
        return None
    ids = {stage: _id_of(repo.run("cat-file", "blob", blob, text=False).stdout) for stage, blob in blobs.items()}
    if ids[1] is None or ids[2] == ids[3] or ids[1] not in (ids[2], ids[3]):
        return None
    mover, editor = (3, 2) if ids[2] == ids[1] else (2, 3)
    stem = path.removesuffix(".md")
    aside = [
        entry.split("\t", 1)[1]
        for entry in repo.run("ls-files", "-s", "-z", "--", f"{stem}-*.md").stdout.split("\0")
        if entry and entry.split()[1] == blobs[1]
    ]
    if len(aside) != 1:
        return None
    # git's index first, then the files (as `_both_added`)
    entries = [f"100644,{blobs[mover]},{path}", f"100644,{blobs[editor]},{aside[0]}"]
    repo.run("update-index", "--add", "--cacheinfo", entries[0], "--cacheinfo", entries[1])
    for where, stage in ((path, mover), (aside[0], editor)):
        (repo.top / where).write_bytes(repo.run("cat-file", "blob", blobs[stage], text=False).stdout)
    return {"id": ids[1], "path": repo.store_path(aside[0]), "rule": "edit-follows-move"}


def _both_added(repo: git.Repo, path: str) -> dict:
    """Rule 4: two new files at one path are both kept; the later-created one moves to the next free `-2` path."""
    ours = repo.run("cat-file", "blob", f":2:{path}", text=False).stdout
    theirs = repo.run("cat-file", "blob", f":3:{path}", text=False).stdout
    earlier, later = sorted([ours, theirs], key=lambda data: _earlier_first(path, data))
    stem = path.removesuffix(".md")
    n = 2
    while (repo.top / f"{stem}-{n}.md").exists() or repo.run("ls-files", "--", f"{stem}-{n}.md").stdout:
        n += 1
    moved = f"{stem}-{n}.md"
    # git's index first, then the files: killed in between, the merge's abort takes both away (a file written
    # first and not yet added would stay behind, and the next sync would commit it as a hand edit)
    entries = [f"100644,{_blob(repo, data)},{where}" for where, data in ((path, earlier), (moved, later))]
    repo.run("update-index", "--add", "--cacheinfo", entries[0], "--cacheinfo", entries[1])
    (repo.top / path).write_bytes(earlier)
    (repo.top / moved).write_bytes(later)
    return {"id": _id_of(later), "path": repo.store_path(moved), "rule": "add-add"}


def _blob(repo: git.Repo, data: bytes) -> str:
    return repo.run("hash-object", "-w", "--stdin", input=data, text=False).stdout.decode().strip()


def _earlier_first(path: str, data: bytes) -> tuple:
    """Rule 4's order, the indexer's (SPEC 5) for two files at one path: the earlier created stays and keeps the
    name; in one second, the smaller id (a ULID counts milliseconds), then the smaller text: on every host alike."""
    try:
        side = read(data)
        created, memory_id = side.time("created"), side.id or ""
    except CannotMerge:
        created, memory_id = None, ""
    return (*crossfile.precedence(created, path), memory_id, data)


def _id_of(data: bytes) -> str | None:
    try:
        return read(data).id
    except CannotMerge:
        return None
