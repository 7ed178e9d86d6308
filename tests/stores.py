"""Generated stores and index invariants for the reliability tests (hostile input, crashes, concurrency).

Nothing here imports the indexer's own walk or validation: the invariants are checked
against the files on disk and the tables in SQLite, independently of the code under test.
"""

import os
import random
import stat
import subprocess
import sys
from pathlib import Path

from indexer.sqlite import sqlite3

KINDS = ("constraint", "runbook", "protocol", "gotcha", "decision", "refuted", "reference", "stage")
PROJECTS = ("seamless", "console", None)
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

TABLES = {
    "memories": "select * from memories order by id",
    "notes": "select * from notes order by path",
    "problems": "select path, line, severity, code, message from problems order by path, line, code, message",
    "settings": "select key, value from settings order by key",
    "memories_fts": "select m.id, f.name, f.description, f.tags, f.body from memories_fts f "
    "join memories m on m.rowid = f.rowid order by m.id",
    "notes_fts": "select n.path, f.title, f.body from notes_fts f join notes n on n.rowid = f.rowid order by n.path",
    # a row left behind by a memory that is gone has no id here; one that names another memory's rowid, its tags
    "memory_tags": "select m.id, t.tag from memory_tags t left join memories m on m.rowid = t.memory order by m.id, t.tag",
    "memory_tags_of_memories": "select m.id, j.value from memories m, json_each(m.tags) j order by m.id, j.value",
    "gardener_words": "select id, signature, hex(member) from gardener_words order by id",
    "gardener_groups": "select signature, scope, hex(terms) from gardener_groups order by signature",
    "gardener_terms": "select scope, term, signature from gardener_terms order by scope, term, signature",
    "gardener_common": "select scope, term, groups from gardener_common order by scope, term",
    "gardener_findings": "select rank, updated, ids, signature, other, evidence, since "
    "from gardener_findings order by rank, ids, signature, other",
    "gardener_pending": "select id from gardener_pending order by id",
}


def ulid(rng: random.Random) -> str:
    return "01K" + "".join(rng.choice(CROCKFORD) for _ in range(23))


def memory_text(rng: random.Random, n: int, memory_id: str, project: str | None, **extra) -> str:
    """A valid memory (its `extra` fields override), as an agent would write it."""
    kind = extra.pop("kind", rng.choice(KINDS))
    day = 1 + n % 28
    meta = {
        "id": memory_id,
        "kind": kind,
        "name": f"memory-{n}",
        "description": f'"Topic {n}: {rng.choice(["retry", "wait", "pin", "cache"])} before the {n % 7}th call"',
        "project": project or "",
        "created": f"2026-07-{day:02d}T18:00:00Z",
        "updated": f"2026-07-{day:02d}T19:00:00Z",
        "source_session": f"cc/{n:08x}",
        "model": "claude-fable-5",
        "tags": f"[topic{n % 5}, gen]",
    }
    meta.update(extra)
    body = f"Status: {rng.choice(['open', 'done', 'blocked'])}\n\n" if kind == "stage" else ""
    body += (
        f"Body of memory {n}: "
        + " ".join(rng.choice(["chroma", "queue", "port", "cache", "lock"]) for _ in range(rng.randint(5, 60)))
        + "\n"
    )
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in meta.items()) + "---\n" + body


def generate_store(root: Path, files: int, seed: int = 0) -> Path:
    """A store of `files` files: mostly valid memories and notes, with chains, duplicates and broken files."""
    rng = random.Random(seed)
    (root / "memories").mkdir(parents=True, exist_ok=True)
    (root / "notes").mkdir(parents=True, exist_ok=True)
    ids: list[str] = []
    for n in range(files):
        project = rng.choice(PROJECTS)
        folder = project or "_global"
        roll = rng.random()
        if roll < 0.15:
            topic = rng.choice(["chroma", "celery"])
            path, text = f"notes/{folder}/note-{n}.md", f"# Note {n}\n\nFindings about {topic}.\n"
        elif roll < 0.18:
            path, text = (
                f"memories/{folder}/broken-{n}.md",
                rng.choice(
                    ["---\nkind: [\n---\n", "", "no frontmatter\n", "---\nid: 12\n---\n", "---\n- a list\n---\n"]
                ),
            )
        elif roll < 0.21 and ids:
            # supersede an earlier memory (some links dangle or loop: warnings, still indexed)
            path = f"memories/{folder}/old-{n}.md"
            text = memory_text(
                rng, n, ulid(rng), project, invalid_at="2026-08-01T00:00:00Z", superseded_by=rng.choice(ids)
            )
        elif roll < 0.22 and ids:
            path, text = f"memories/{folder}/dup-{n}.md", memory_text(rng, n, rng.choice(ids), project)
        else:
            memory_id = ulid(rng)
            ids.append(memory_id)
            path, text = f"memories/{folder}/m-{n}.md", memory_text(rng, n, memory_id, project)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    return root


def mutate_store(root: Path, changes: int, seed: int = 1) -> None:
    """Edit, break, delete, rename and add files, as a day of agents and people would."""
    rng = random.Random(seed)
    paths = sorted(p for p in root.rglob("*.md"))
    for n in range(changes):
        action = rng.choice(["edit", "break", "delete", "rename", "add", "touch"])
        if not paths:
            action = "add"
        if action == "add":
            target = root / "memories" / "seamless" / f"added-{seed}-{n}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(memory_text(rng, 100000 + n, ulid(rng), "seamless"), "utf-8")
            paths.append(target)
            continue
        path = paths.pop(rng.randrange(len(paths)))
        if action == "edit":
            text = path.read_text("utf-8", errors="replace")
            path.write_text(text.replace("Body of", "Edited body of") + "\nEdited.\n", "utf-8")
            paths.append(path)
        elif action == "break":
            path.write_bytes(rng.choice([b"---\nname: [\n---\n", b"\xff\xfe broken", b"\x00"]))
            paths.append(path)
        elif action == "delete":
            path.unlink()
        elif action == "rename":
            new = path.with_name(f"renamed-{seed}-{n}.md")
            path.rename(new)
            paths.append(new)
        elif action == "touch":
            os.utime(path, ns=(1_700_000_000_000_000_000 + n, 1_700_000_000_000_000_000 + n))
            paths.append(path)


def store_md_files(root: Path) -> set[str]:
    """Every `*.md` file the store holds: under memories/ or notes/, not hidden, not a symlink, regular."""
    found = set()
    for top in ("memories", "notes"):
        base = root / top
        if not base.is_dir() or base.is_symlink():
            continue
        for directory, dirs, names in os.walk(base, followlinks=False):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(directory, d))]
            for name in names:
                full = os.path.join(directory, name)
                if name.startswith(".") or not name.endswith(".md"):
                    continue
                if stat.S_ISREG(os.lstat(full).st_mode):
                    found.add(Path(full).relative_to(root).as_posix())
    return found


def accounting(root: Path, db_path) -> dict[str, set[str]]:
    """Which files are indexed, which have an error, and what the two sets get wrong."""
    files = store_md_files(root)
    with sqlite3.connect(db_path) as conn:
        memories = {r[0] for r in conn.execute("select path from memories")}
        notes = {r[0] for r in conn.execute("select path from notes")}
        errors = {r[0] for r in conn.execute("select path from problems where severity = 'error'")}
        problem_paths = {r[0] for r in conn.execute("select path from problems")}
    indexed = memories | notes
    return {
        "both": indexed & errors,
        "neither": files - indexed - errors,
        "phantom": (indexed | problem_paths) - files - {"seamless.toml"},
        "memory outside memories/": {p for p in memories if not p.startswith("memories/")},
        "note outside notes/": {p for p in notes if not p.startswith("notes/")},
        "in both tables": memories & notes,
    }


def assert_accounted_for(root: Path, db_path) -> None:
    """Each store file is indexed or has an error, never both, never neither; no row for anything else."""
    wrong = {k: v for k, v in accounting(root, db_path).items() if v}
    assert not wrong, wrong


def dump(db_path) -> dict:
    """The index's user-visible tables, FTS included (after FTS5's own integrity check)."""
    conn = sqlite3.connect(db_path)
    try:
        for fts in ("memories_fts", "notes_fts"):
            conn.execute(
                f"insert into {fts}({fts}, rank) values ('integrity-check', 1)"
            )  # rank 1: against the content too
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        conn.close()


def integrity(db_path) -> str:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("pragma integrity_check").fetchone()[0]
    finally:
        conn.close()


SCRIPT = Path(sys.executable).parent / "seamless"  # the installed console script


def seamless_command(*args) -> list[str]:
    """The argv of the real `seamless` command line (the installed script, else the same entry point)."""
    if SCRIPT.is_file():
        return [sys.executable, str(SCRIPT), *map(str, args)]
    return [sys.executable, "-c", "from indexer.front.cli import main; main()", *map(str, args)]


def seamless(*args, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """Run `seamless` in a child process and wait for it."""
    return subprocess.run(seamless_command(*args), capture_output=True, text=True, timeout=timeout, **kwargs)
