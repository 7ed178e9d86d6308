"""How well `similar` separates a restated fact from a new one, on the example store, threshold by threshold.

    python -m bench.similar

Each case writes one memory into a copy of examples/store with the real write path: restatements
(an existing active memory said again in other words, as an agent that did not look would write
it) and new facts (true, distinct things about the same project). For a restatement, the score of
the memory it restates is a hit if it reaches the threshold; any other memory reaching it is a
false alarm. indexer/query/similar.py's SIMILAR_AT was chosen from this table (docs/writing.md).
"""

import shutil
import tempfile
from pathlib import Path

from indexer.edit.store_write import write_memory
from indexer.query.similar import scored
from indexer.sqlite import sqlite3

STORE = Path(__file__).resolve().parent.parent / "examples" / "store"
# (project, restated memory or None for a new fact, kind, name, description)
CASES = [
    ("seamless", "mcp-stdout-is-protocol", "gotcha", "mcp-no-print-stdout",
     "Never print to stdout from the MCP stdio server: stdout carries JSON-RPC, logs go to stderr"),
    ("seamless", "files-are-source-of-truth", "constraint", "db-is-rebuildable",
     "seamless.db is only an index: the markdown files are the truth and the db must rebuild with index --full"),
    ("seamless", "gardener-watch-moved-events", "gotcha", "editors-save-by-rename",
     "Watcher misses vim and JetBrains saves because they write a temp file and rename it: handle on_moved too"),
    ("seamless", "console-recall-fts-quoting", "gotcha", "fts-hyphen-no-such-column",
     "Recall in the console fails with no such column on hyphenated words; escape the query with escape_fts for MATCH"),
    ("seamless", "release-to-pypi", "runbook", "publish-release",
     "To release: bump the version in pyproject.toml, update the CHANGELOG, tag vX.Y.Z, push; CI publishes to PyPI"),
    ("seamless", "no-hand-stamped-supersession", "constraint", "supersede-via-memory-write",
     "Do not edit superseded_by or invalid_at by hand; use memory_write with supersedes so the index follows"),
    ("tidepool", "money-in-integer-cents", "constraint", "amounts-as-minor-units",
     "Store money as integer minor units (cents) with an ISO currency code, never as float or Decimal"),
    ("tidepool", "stripe-events-out-of-order", "gotcha", "stripe-webhook-ordering",
     "Stripe subscription events can arrive out of order, so re-fetch the subscription from the API on each event"),
    ("tidepool", "pgbouncer-server-side-cursors", "gotcha", "pgbouncer-iterator-cursor",
     "Django .iterator() fails with InvalidCursorName behind pgbouncer transaction pooling: disable server side cursors"),
    ("tidepool", "celery-visibility-timeout-redelivery", "gotcha", "celery-redis-duplicate-tasks",
     "Long Celery tasks ran twice: the Redis broker redelivers acks_late tasks after visibility_timeout; raised to 4 h"),
    (None, "bsd-sed-in-place-suffix", "gotcha", "macos-sed-i",
     "On macOS, sed -i needs an empty suffix argument: sed -i '' 's/a/b/' file (BSD sed), or use perl -pi -e"),
    (None, "git-stash-includes-untracked", "refuted", "stash-skips-untracked",
     "Refuted: git stash does not include untracked files; use git stash -u to save them"),
    ("seamless", None, "gotcha", "sqlite-wal-on-nfs",
     "SQLite WAL mode corrupts on NFS mounts: keep seamless.db on a local disk, the store may live anywhere"),
    ("seamless", None, "decision", "console-dark-mode",
     "Console gets a dark mode through prefers-color-scheme only, no toggle; CSS variables in static/theme.css"),
    ("seamless", None, "runbook", "rotate-mcp-logs",
     "Rotate the MCP server's logs: logrotate weekly on ~/.seamless/logs/*.log with copytruncate, keep 8"),
    ("seamless", None, "reference", "watchdog-docs",
     "watchdog docs at python-watchdog.readthedocs.io: observers, event handlers, on_moved and inotify limits"),
    ("seamless", None, "gotcha", "gardener-oom-large-store",
     "Gardener was OOM-killed at 400k memories loading every body at once; it now streams rows in batches of 1000"),
    ("tidepool", None, "decision", "email-provider-postmark",
     "Transactional email goes through Postmark, not SES: better deliverability for statements; templates in Postmark"),
    ("tidepool", None, "gotcha", "timezone-statement-dates",
     "Statement dates were a day off for Pacific customers: render in the account's timezone, store UTC"),
    ("tidepool", None, "runbook", "rotate-stripe-keys",
     "Rotate Stripe API keys: create a restricted key, deploy it via the vault path, then roll the old key in the dashboard"),
    ("tidepool", None, "constraint", "feature-flags-default-off",
     "Every new feature flag defaults to off in production and has an owner and a removal date in flags.yaml"),
    (None, None, "gotcha", "bash-arrays-in-sh",
     "Arrays are a bash feature: scripts with #!/bin/sh fail on dash with Syntax error: ( unexpected; use bash or loops"),
    (None, None, "reference", "conventional-comments",
     "Conventional Comments for code review at conventionalcomments.org: labels like nitpick, suggestion, issue"),
    (None, None, "refuted", "python-dict-order-random",
     "Refuted: dicts are not unordered in Python 3.7+; insertion order is guaranteed by the language"),
]  # fmt: skip


def measure() -> list[dict]:
    """Per case: the score of the restated memory (None for a new fact) and the best score of any other."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for project, restates, kind, name, description in CASES:
            root = Path(tmp) / "store"
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(STORE, root)
            db = Path(tmp) / "index.db"
            db.unlink(missing_ok=True)
            written = write_memory(root, db, project=project or "global", kind=kind, name=name, description=description)
            conn = sqlite3.connect(db)
            rows = scored(conn, written.id)
            conn.close()
            target = next((r["score"] for r in rows if r["name"] == restates), 0.0) if restates else None
            others = max((r["score"] for r in rows if r["name"] != restates), default=0.0)
            results.append({"name": name, "restates": restates, "target": target, "other": others})
    return results


def main() -> None:
    results = measure()
    for r in results:
        target = "-" if r["target"] is None else f"{r['target']:.2f}"
        print(f"{r['name']:32} restates {r['restates'] or '-':38} target {target:>5}  best other {r['other']:.2f}")
    restated = [r for r in results if r["restates"]]
    print(f"\n{len(restated)} restatements, {len(results) - len(restated)} new facts")
    for threshold in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6):
        hits = sum(r["target"] >= threshold for r in restated)
        alarms = sum(r["other"] >= threshold for r in results)
        print(
            f"threshold {threshold:.2f}: {hits}/{len(restated)} restatements named, false alarms in {alarms}/{len(results)} writes"
        )


if __name__ == "__main__":
    main()
