"""`seamless import claude-code` (docs/agents.md): a Claude Code auto-memory folder brought into a store through the
write path, each topic file a memory written with `source_session: import/claude-code`, MEMORY.md a note. Never
overwritten: a memory of the same name this import did not write, or one of its own the store archived since.
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from indexer.edit import store_write
from indexer.edit.session import session
from indexer.edit.write_input import Content, WriteRefused, known_project, scope_of, text_of, written_body
from indexer.store import claude_code
from indexer.store.settings import load_settings

SOURCE = "import/claude-code"
TAG = "claude-code"
NOTE_TITLE = "Claude Code memory index (MEMORY.md)"


@dataclass
class Outcome:
    """What the import did with one file (or, with dry_run, would do): created, updated, unchanged, noted,
    skipped (with the reason), or warning (a MEMORY.md line that leads nowhere)."""

    file: str
    action: str
    id: str | None = None
    name: str | None = None
    kind: str | None = None
    path: str | None = None
    reason: str | None = None

    def as_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


def import_folder(
    folder: Path, store: Path, db_path, project: str, dry_run: bool = False, new_project: bool = False
) -> list[Outcome]:
    """Import the auto-memory folder `folder` into `project` of `store` (index at `db_path`); every file's outcome.
    WriteRefused when none can be (no such folder, a project unknown without `new_project`, another store's index)."""
    scope = scope_of(project)
    folder = Path(folder)
    if not folder.is_dir():
        raise WriteRefused("no-folder", f"no folder at {folder}: give Claude Code's memory folder (with MEMORY.md)")
    max_bytes = load_settings(Path(store))[0]["index.max_file_bytes"]
    outcomes, topics, index_text = [], [], None
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix != ".md" or path.is_dir():
            continue
        try:
            if path.is_symlink():
                raise claude_code.Unreadable("a symbolic link, never followed")
            data = _read(path, max_bytes)
            if path.name == claude_code.INDEX_FILE:
                index_text = text_of(data, "MEMORY.md")
            else:
                topics.append(claude_code.read_topic(path.name, data, max_bytes))
        except (claude_code.Unreadable, WriteRefused, OSError) as e:
            reason = e.message if isinstance(e, WriteRefused) else getattr(e, "strerror", None) or str(e)
            outcomes.append(Outcome(path.name, "skipped", reason=reason))
    if not topics and index_text is None and not outcomes and (folder / "memory").is_dir():
        raise WriteRefused(
            "no-memory-files", f"no memory files in {folder}: Claude Code keeps them in {folder / 'memory'}"
        )
    topics = _one_per_name(topics, outcomes)
    plans = _plan(store, db_path, scope, topics, index_text, new_project)
    for topic in topics:
        outcomes.append(_memory(store, db_path, project, topic, plans[topic.file], dry_run, new_project))
    if index_text is not None:
        outcomes.append(_note(store, db_path, project, index_text, plans[claude_code.INDEX_FILE], dry_run, new_project))
        present = {p.name for p in folder.iterdir()}
        for title, file, _ in claude_code.index_links(index_text):
            if "://" not in file and file not in present:
                reason = f"the line [{title}]({file}) leads to no file in {folder}"
                outcomes.append(Outcome(claude_code.INDEX_FILE, "warning", reason=reason))
    return sorted(outcomes, key=lambda o: (o.action == "warning", o.file))


def _read(path: Path, max_bytes: int) -> bytes:
    with path.open("rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise claude_code.Unreadable(f"larger than index.max_file_bytes ({max_bytes} bytes)")
    return data


def _one_per_name(topics: list, outcomes: list[Outcome]) -> list:
    """The topics whose name no other file of the folder takes (two would update one memory in turn)."""
    files: dict[str, list[str]] = {}
    for topic in topics:
        files.setdefault(topic.name, []).append(topic.file)
    for name, clash in files.items():
        if len(clash) > 1:
            for file in clash:
                others = ", ".join(f for f in clash if f != file)
                outcomes.append(Outcome(file, "skipped", name=name, reason=f"{others} also becomes {name!r}"))
    return [t for t in topics if len(files[t.name]) == 1]


def content(topic) -> Content:
    """What the memory of `topic` holds, as the write path compares it."""
    return Content.of(topic.kind, topic.description, [TAG, topic.type], topic.body)


def _plan(store, db_path, scope, topics, index_text, new_project: bool) -> dict[str, tuple[str, dict | None]]:
    """For each file, from the index brought in step for the paths concerned: what the write would be (create,
    update, unchanged, skip) and the store's memory (or note) it concerns. A project the store does not have is
    refused here, before any file is written, unless `new_project`."""
    folder = f"memories/{scope or '_global'}"
    plans = {}
    with session(store, db_path) as s:
        s.open_index([path for t in topics for path in s.candidates(folder, t.name)])
        known_project(s.conn, scope, new_project)
        for topic in topics:
            rows = s.rows(
                "select * from memories where name = ? and project is ? order by status = 'active' desc, updated desc",
                (topic.name, scope),
            )
            active = [r for r in rows if r["status"] == "active"]
            ours = [r for r in rows if r["source_session"] == SOURCE]
            if any(r["source_session"] != SOURCE for r in active):
                plans[topic.file] = ("skip", active[0])
            elif active:
                plans[topic.file] = ("unchanged" if content(topic).equals(active[0]) else "update", active[0])
            elif any(content(topic).equals(r) for r in ours):  # archived or superseded in the store since
                plans[topic.file] = ("kept-inactive", ours[0])
            else:
                plans[topic.file] = ("create", None)
        if index_text is not None:
            notes = s.rows(
                "select * from notes where title = ? and project is ? order by created, path", (NOTE_TITLE, scope)
            )
            body = written_body(index_text)  # as the write path writes a body
            step = "create" if not notes else "unchanged" if notes[0]["body"] == body else "update"
            plans[claude_code.INDEX_FILE] = (step, notes[0] if notes else None)
    return plans


def _memory(
    store, db_path, project: str, topic, plan: tuple[str, dict | None], dry_run: bool, new_project: bool
) -> Outcome:
    step, row = plan[0], plan[1] or {}
    outcome = Outcome(topic.file, "", name=topic.name, kind=topic.kind, id=row.get("id"), path=row.get("path"))
    if step == "skip":
        outcome.action = "skipped"
        outcome.reason = f"the store's memory {row['id']} is named {topic.name!r} and was not imported from Claude Code"
        return outcome
    if step == "kept-inactive":
        outcome.action = "unchanged"
        outcome.reason = f"the store made it {row['status']}; it is not brought back while the file says the same"
        return outcome
    if dry_run:
        outcome.action = {"create": "created", "update": "updated"}.get(step, step)
        return outcome
    try:
        written = store_write.write_memory(
            store,
            db_path,
            project=project,
            kind=topic.kind,
            name=topic.name,
            description=topic.description,
            tags=[TAG, topic.type],
            session_id=SOURCE,
            body=topic.body,
            new_project=new_project,
        )
    except WriteRefused as e:
        outcome.action, outcome.reason = "skipped", str(e)
        return outcome
    outcome.action, outcome.id, outcome.path = written.action, written.id, written.path
    return outcome


def _note(
    store, db_path, project: str, text: str, plan: tuple[str, dict | None], dry_run: bool, new_project: bool
) -> Outcome:
    step, row = plan[0], plan[1] or {}
    outcome = Outcome(claude_code.INDEX_FILE, "", id=row.get("id"), path=row.get("path"))
    if dry_run:
        outcome.action = {"create": "noted", "update": "updated"}.get(step, step)
        return outcome
    # unchanged too: the write path answers it, and commits the note if a killed run left it uncommitted
    try:
        if row:
            written = store_write.update_note(store, db_path, row["path"], text)
        else:
            written = store_write.write_note(
                store, db_path, project=project, title=NOTE_TITLE, tags=[TAG], body=text, new_project=new_project
            )
    except WriteRefused as e:
        outcome.action, outcome.reason = "skipped", str(e)
        return outcome
    outcome.action, outcome.id, outcome.path = written.action, written.id, written.path
    return outcome


def summary(outcomes: list[Outcome]) -> str:
    """`2 created, 1 unchanged, 1 skipped`: how many files had each outcome."""
    actions = [o.action for o in outcomes]
    order = ("created", "updated", "noted", "unchanged", "skipped")
    return ", ".join(f"{actions.count(a)} {a}" for a in order if a in actions) or "nothing to import"


def as_json(outcomes: list[Outcome]) -> str:
    return json.dumps([o.as_json() for o in outcomes], indent=2, ensure_ascii=False)
