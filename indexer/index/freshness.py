"""How fresh the index is: when it was last brought in step, and whether a watcher follows the store, from
sql/freshness.sql, in the words `seamless status`, the explorer's banner and /-/freshness.json all use."""

import functools

from indexer.sql import source as sql_source

ALIVE_SECONDS = 15  # SPEC 9: a watcher whose heartbeat is older is not alive
PARAMETERS = {"alive_seconds": ALIVE_SECONDS}


@functools.cache
def statement() -> str:
    """sql/freshness.sql, read (and its shared expressions written out) when first asked for."""
    return sql_source("freshness")


def read(conn) -> dict:
    """The freshness row of the index open on `conn` (a sqlite3 connection)."""
    cursor = conn.execute(statement(), PARAMETERS)
    return dict(zip([column[0] for column in cursor.description], cursor.fetchone()))


def run_text(row: dict) -> str:
    """When the index was last brought in step, as one phrase."""
    if row["last_run"] is None:
        return "never indexed"
    text = f"last indexed {row['last_run']} ({ago(row['last_run_age'])}, {row['last_run_mode']})"
    if row["watching"] and row["last_batch"] and row["last_batch"] > row["last_run"]:
        text += f"; last change applied {row['last_batch']} ({row['last_batch_size']} paths)"
    return text


def watcher_text(row: dict) -> str:
    """Whether a watcher follows the store, as one phrase that starts with `watching` or `not watching`."""
    if row["watching"]:
        return (
            f"watching: pid {row['watcher_pid']} on {row['watcher_host']} since {row['watching_since']}, "
            f"heartbeat {row['heartbeat']} ({ago(row['heartbeat_age'])})"
        )
    if row["heartbeat"] is None:
        return "not watching: no watcher has followed this index (run `seamless watch STORE`)"
    if row["watcher_stopped"]:
        return f"not watching: the last watcher stopped at {row['watcher_stopped']}"
    return (
        f"not watching: the last watcher's heartbeat was {ago(row['heartbeat_age'])} ({row['heartbeat']}); "
        "it was killed or is stuck"
    )


def ago(seconds: int | None) -> str:
    """`seconds` as a short age: `4 s ago`, `12 min ago`, `3 h ago`, `2 days ago`."""
    if seconds is None:
        return "at an unknown time"
    seconds = max(seconds, 0)
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"
