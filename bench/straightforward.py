"""The straightforward pipeline, a reference for the benchmark: the way anyone would write it first.

python-frontmatter's `frontmatter.load` (its default YAML loader), sqlite-utils `insert_all` and
`enable_fts` with their defaults, into a fresh database. No validation, no incremental runs.

    python -m bench.straightforward STORE DB    # prints {"seconds": ...}, the time after imports
"""

import json
import sys
import time
from pathlib import Path

import frontmatter
import sqlite_utils

# The naive versions of the two queries, for the query latency references.
BRIEFING = """
select kind, name, description from memories
where (project = :project or project is null or project = 'global') and invalid_at is null
order by updated desc
"""
RECALL = """
select * from (
  select 'memory' as type, memories.name as title, memories_fts.rank from memories_fts
  join memories on memories.rowid = memories_fts.rowid where memories_fts match :q
  union all
  select 'note', notes.title, notes_fts.rank from notes_fts
  join notes on notes.rowid = notes_fts.rowid where notes_fts match :q
) order by rank limit 20
"""


def build(root: Path, db_path: Path) -> None:
    """Load every memory and note with python-frontmatter and insert them with sqlite-utils."""
    db = sqlite_utils.Database(db_path)
    fts = {"memories": ["name", "description", "tags", "body"], "notes": ["title", "tags", "body"]}
    for folder, columns in fts.items():
        rows = []
        for path in sorted(root.glob(f"{folder}/**/*.md")):
            post = frontmatter.load(path)
            rows.append({**post.metadata, "body": post.content, "path": str(path.relative_to(root))})
        if not rows:  # a notes-only store has no memories: no table to make searchable
            continue
        # alter=True: notes do not all have the same keys, and insert_all stops at the first new one
        db[folder].insert_all(rows, alter=True)
        db[folder].enable_fts(columns)
    db.close()


if __name__ == "__main__":
    started = time.perf_counter()
    build(Path(sys.argv[1]), Path(sys.argv[2]))
    print(json.dumps({"seconds": time.perf_counter() - started}))
