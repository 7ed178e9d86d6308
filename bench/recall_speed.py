"""Recall's speed (SPEC section 13), for `python -m bench.recall`: questions in SQL on a generated store, and the CLI
as a whole process on examples/store.

In SQL, on the store `python -m bench` generates (indexed here from nothing): each 10-word question is asked in turn
with the plain OR of its words (FTS5's bm25 over every word but the stop words, the best 20: what recall would cost
if every word brought candidates), many times; each question's median, then the median over the questions of a kind.
Three kinds. The generated store has only 1,336 distinct words, each in 61 memories or more, and its ordinary words
are each in a fifth to four fifths of the memories: no question over it is quite like one over real notes. RARE
questions name something in particular (a tool, found in 126 to 142 memories), as a question about real notes
does, the rest of their words common; SPECIFIC ones hold a word just under recall_terms.COMMON_DOCS (907 to 991
memories), the rest common; COMMON ones hold only words found in more, so recall requires every one of them.
Each question's first ask (the statement prepared by the question before, its own terms not yet counted on the
connection) is given beside the median of the asks after it. CPU time is given beside wall time: on a machine
shared with others the wall clock also counts their turns.
"""

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from indexer.index.build import index_store
from indexer.query import queries, recall_terms

from .generate import ensure_store
from .measure import PYTHON, SEAMLESS, run

TARGET_MS = 5.0  # in-process p50, a 10-word question, 100,000 memories
CLI_TARGET_MS = 150.0  # the CLI's whole process on examples/store
RARE = [
    "why does billingctl time out when the redis cache restarts",
    "how do we configure the fts5client for the staging database",
    "what broke in the recallctl after the last schema migration",
    "who owns cdnclient and how do we rotate its key",
    "why does briefingcli print a warning about the config file",
]
SPECIFIC = [
    "why does the pgbouncer connection pool need review before merge",
    "who must review the chroma schema migration before we merge",
    "why did the garnet release branch drop the redis cache",
    "what did the juniper team change in the nginx config",
    "why does celery retry the webhooks job after 350 ms",
]
COMMON = [
    "why does the pgbouncer connection pool leak descriptors after restart",
    "how do we rotate the redis api key without restart",
    "why does the chroma health check hang when postgres restarts",
]
CLI_QUESTION = "what port does chroma listen on?"
CALLS = 15


def timed(function) -> tuple[float, float]:
    """Wall and CPU milliseconds of one call."""
    wall, cpu = time.perf_counter(), time.thread_time()
    function()
    return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def plain_or(conn, question: str) -> list:
    fts = " OR ".join(t.fts for t in recall_terms.terms(question))
    sql = "select rowid from memories_fts where memories_fts match ? order by bm25(memories_fts), rowid limit 20"
    return conn.execute(sql, (fts,)).fetchall()


def question_figures(db: Path, asked: list[str]) -> dict:
    """The median over `asked` of each question's median wall and CPU ms, recall's and the plain OR's, and of its
    first ask's CPU ms."""
    conn, _ = queries.connect(db)
    queries.recall(conn, "prepare the statement")
    per: dict[str, list[float]] = {"wall": [], "cpu": [], "first_cpu": [], "or_wall": [], "or_cpu": []}
    try:
        for question in asked:
            per["first_cpu"].append(timed(lambda q=question: queries.recall(conn, q))[1])
            plain_or(conn, question)
            mine, theirs = [], []
            for _ in range(CALLS):
                mine.append(timed(lambda q=question: queries.recall(conn, q)))
                theirs.append(timed(lambda q=question: plain_or(conn, q)))
            per["wall"].append(statistics.median(w for w, _ in mine))
            per["cpu"].append(statistics.median(c for _, c in mine))
            per["or_wall"].append(statistics.median(w for w, _ in theirs))
            per["or_cpu"].append(statistics.median(c for _, c in theirs))
    finally:
        conn.close()
    return {key: round(statistics.median(values), 2) for key, values in per.items()} | {"questions": len(asked)}


def cli_figures(work: Path, runs: int = 11) -> dict:
    """`seamless recall QUESTION` on examples/store as a whole process, in turn with `python -c pass`."""
    from .recall import EXAMPLE_STORE

    db = work / "example-cli.db"
    index_store(EXAMPLE_STORE, db, full=True)
    command = [SEAMLESS, "recall", CLI_QUESTION, "--db", db]
    run(command)  # warm the page cache
    ours, bare = [], []
    for _ in range(runs):
        ours.append(run(command))
        bare.append(run([PYTHON, "-c", "pass"]))
    return {
        "wall_ms": round(statistics.median(p.seconds for p in ours) * 1000, 1),
        "cpu_ms": round(statistics.median(p.cpu for p in ours) * 1000, 1),
        "python_wall_ms": round(statistics.median(p.seconds for p in bare) * 1000, 1),
        "python_cpu_ms": round(statistics.median(p.cpu for p in bare) * 1000, 1),
    }


def speed_figures(stores: Path, sizes: list[int], seed: int = 1) -> dict:
    work = Path(tempfile.mkdtemp(prefix="recall-speed-", dir=stores.parent))
    try:
        figures: dict = {"sql": [], "cli": cli_figures(work)}
        for size in sizes:
            db = work / f"{size}.db"
            index_store(ensure_store(stores, size, seed), db, full=True)
            for kind, asked in (("rare", RARE), ("specific", SPECIFIC), ("common", COMMON)):
                figures["sql"].append({"memories": size, "kind": kind, **question_figures(db, asked)})
            db.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return figures


def speed_table(figures: dict) -> str:
    lines = [
        "| recall of a 10-word question, in SQL | memories | p50 wall | p50 CPU | first ask: CPU "
        "| plain OR: wall, CPU | target |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for f in figures["sql"]:
        target = f"{TARGET_MS} ms" if f["memories"] == 100_000 else ""
        lines.append(
            f"| {f['kind']} words ({f['questions']} questions) | {f['memories']:,} | {f['wall']} ms | {f['cpu']} ms "
            f"| {f['first_cpu']} ms | {f['or_wall']} ms, {f['or_cpu']} ms | {target} |"
        )
    cli = figures["cli"]
    lines += [
        "",
        "| `seamless recall` on examples/store, whole process | wall | CPU | `python -c pass`: wall, CPU | target |",
        "| --- | --- | --- | --- | --- |",
        f"| `seamless recall {CLI_QUESTION!r}` | {cli['wall_ms']} ms | {cli['cpu_ms']} ms "
        f"| {cli['python_wall_ms']} ms, {cli['python_cpu_ms']} ms | {CLI_TARGET_MS} ms |",
    ]
    return "\n".join(lines)
