"""The gardener's proposals measured (SPEC section 12): precision and recall of each kind on the labelled set, and
what the gardener costs on a generated store.

    python -m bench.gardener [--sizes "100000"] [--out DIR] [--quality-only] [--splits A,B] [--loso]

Quality: each store of tests/fixtures/gardener/pairs.yaml is written as memory files, indexed by the real
indexer, and asked the `gardener` canned query; a proposal's pairs (every two memories it names) are compared
with the labels. A predicted pair that is not labelled counts as wrong (every memory of a store is there on
purpose), so precision is over everything the gardener proposes. The descriptions of descriptions.yaml are
indexed as one project's memories and their vague-description proposals compared with the labels. Both are
given for each split, in the order the fixture files first name them (`splits()`): a split added to the files is
measured with no change here. Which splits the rules were written on, and which were measured once, is in
docs/queries.md; `--splits` measures some only.

With every split (or `--loso`), the pair rules are also measured leaving one split out at a time: their limits,
and which rules are kept, chosen on the other splits and measured on the one left out (bench/gardener_loso.py).

Cost, on the store `python -m bench` generates (issue 30): `seamless index` from nothing as a whole process, in
turn with its floor (bench/index_floor.py: walk, read, parse, insert, FTS), with its peak RSS, and how long after
it returned the gardener's findings were in step (their settle runs in the background); the database before and
after the settle, and the gardener's tables over the rest (dbstat); the settle on its own, as a process, with its
RSS, and after a full run over an unchanged store; the `gardener` canned query whole and its first 1,001 rows; the
pages that show the findings through `seamless serve`, each beside `select 1`, and the home page under 8 requests
at once; a new memory's index update with its findings, and its write-time hints.
"""

import argparse
import contextlib
import functools
import itertools
import json
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from indexer.index.build import index_store
from indexer.query import queries
from indexer.sqlite import sqlite3

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "gardener"
AS_OF = "2027-01-01"  # after every labelled memory was written
# every kind on, whatever the defaults: the rules are measured, not the settings that pick which are shown
EVERY_KIND = "[gardener]\nduplicates = true\ncontradictions = true\nstale_memories = true\n"
KINDS = ("duplicate", "contradiction", "vague-description", "archive-stage", "archive-stale")
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


@dataclass
class Score:
    """One kind's figures on one split."""

    kind: str
    split: str
    labelled: int = 0  # positives in the labels
    proposed: int = 0  # pairs (or descriptions) the gardener named as this kind
    right: int = 0  # of those, labelled so
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.right / self.proposed if self.proposed else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.labelled if self.labelled else 1.0

    def line(self) -> str:
        return (
            f"{self.kind:18} {self.split:11} precision {self.precision:.2f} ({self.right}/{self.proposed})  "
            f"recall {self.recall:.2f} ({self.right}/{self.labelled})"
        )


@functools.cache
def _fixture(name: str) -> list[dict]:
    """A labelled file, read once (by the callers below, which do not change it)."""
    return yaml.load((FIXTURES / name).read_text("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def labelled_stores(split: str | None = None) -> list[dict]:
    """The stores of pairs.yaml (those of `split`, or all)."""
    return [s for s in _fixture("pairs.yaml") if split is None or s["split"] == split]


def labelled_descriptions(split: str | None = None) -> list[dict]:
    return [s for s in _fixture("descriptions.yaml") if split is None or s["split"] == split]


def labelled_archives(split: str | None = None) -> list[dict]:
    """The stores of archives.yaml: each memory labelled `archive` (a reviewer would archive it on `as_of`)."""
    if not (FIXTURES / "archives.yaml").exists():
        return []
    return [s for s in _fixture("archives.yaml") if split is None or s["split"] == split]


def ulid_for(day: str, n: int) -> str:
    """A ULID whose time is midnight of `day`, its randomness the counter `n` (deterministic, sortable by day)."""
    ms = int(time.mktime(time.strptime(day, "%Y-%m-%d")) - time.timezone) * 1000
    value = (ms << 80) | n
    return "".join(CROCKFORD[(value >> (5 * i)) & 31] for i in reversed(range(26)))


def write_store(root: Path, stores: list[dict]) -> dict[str, dict]:
    """Write the memories of `stores` under `root`; return name -> frontmatter (with `id`). Names are unique."""
    written: dict[str, dict] = {}
    counter = itertools.count(1)
    ids = {}
    for store in stores:
        for name, memory in store["memories"].items():
            ids[name] = ulid_for(str(memory["created"]), next(counter))
    for store in stores:
        scope = store["scope"]
        for name, memory in store["memories"].items():
            created = f"{memory['created']}T09:00:00Z"
            successor = memory.get("superseded_by")
            meta = {
                "id": ids[name],
                "kind": memory["kind"],
                "name": name,
                "description": memory["description"],
                "project": "" if scope == "global" else scope,
                "created": created,
                "updated": created,
                "valid_from": created,
                "invalid_at": f"{store['memories'][successor]['created']}T09:00:00Z" if successor else None,
                "superseded_by": ids[successor] if successor else None,
                "source_session": "cc/bench-gardener",
                "model": "claude-fable-5",
                "tags": [],
            }
            folder = root / "memories" / ("_global" if scope == "global" else scope)
            if successor:
                folder = folder / "superseded"
            folder.mkdir(parents=True, exist_ok=True)
            status = memory.get("status", "done") if memory["kind"] == "stage" else None  # None: a stage without one
            body = f"Status: {status}\n" if status else "Written for the gardener's labelled set.\n"
            text = "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n" + body
            (folder / f"{name}.md").write_text(text, "utf-8")
            written[name] = meta
    (root / "notes").mkdir(exist_ok=True)
    (root / "seamless.toml").write_text(EVERY_KIND, "utf-8")
    return written


def proposals(db: Path, as_of: str = AS_OF) -> list[dict]:
    return queries.run(db, "gardener", as_of=as_of)


def pair_scores(split: str, work: Path) -> list[Score]:
    """Precision and recall of duplicate and contradiction proposals on the labelled stores of `split`."""
    stores = labelled_stores(split)
    root = work / f"pairs-{split}"
    shutil.rmtree(root, ignore_errors=True)
    written = write_store(root, stores)
    db = work / f"pairs-{split}.db"
    db.unlink(missing_ok=True)
    index_store(root, db, full=True)
    name_of = {meta["id"]: name for name, meta in written.items()}
    labels = {frozenset(p[:2]): p[2] for store in stores for p in store["pairs"]}
    scores = []
    rows = proposals(db)
    for kind in ("duplicate", "contradiction"):
        score = Score(kind, split, labelled=sum(label == kind for label in labels.values()))
        predicted = {
            frozenset((name_of[a], name_of[b]))
            for row in rows
            if row["proposal"] == kind
            for a, b in itertools.combinations(json.loads(row["ids"]), 2)
        }
        score.proposed = len(predicted)
        for pair in predicted:
            if labels.get(pair) == kind:
                score.right += 1
            else:
                score.wrong.append(f"{' / '.join(sorted(pair))} (labelled {labels.get(pair, 'different')})")
        score.misses = [
            " / ".join(sorted(pair)) for pair, label in labels.items() if label == kind and pair not in predicted
        ]
        scores.append(score)
    return scores


def vague_score(split: str, work: Path) -> Score:
    """Precision and recall of vague-description proposals on the labelled descriptions of `split`."""
    sets = labelled_descriptions(split)
    vague = [d for s in sets for d in s["vague"]]
    concrete = [d for s in sets for d in s["concrete"]]
    memories = {
        f"description-{n:03d}": {"kind": "gotcha", "created": "2026-06-01", "description": d}
        for n, d in enumerate(vague + concrete, 1)
    }
    root = work / f"descriptions-{split}"
    shutil.rmtree(root, ignore_errors=True)
    written = write_store(root, [{"scope": "descriptions", "memories": memories}])
    db = work / f"descriptions-{split}.db"
    db.unlink(missing_ok=True)
    index_store(root, db, full=True)
    text_of = {meta["id"]: meta["description"] for meta in written.values()}
    flagged = {
        text_of[i] for row in proposals(db) if row["proposal"] == "vague-description" for i in json.loads(row["ids"])
    }
    score = Score("vague-description", split, labelled=len(vague), proposed=len(flagged))
    score.right = len(flagged & set(vague))
    score.misses = sorted(set(vague) - flagged)
    score.wrong = sorted(flagged - set(vague))
    return score


def archive_scores(split: str, work: Path) -> list[Score]:
    """Precision and recall of archive proposals on the labelled stores of `split`, each asked on its own `as_of`:
    of stages (`archive-stage`, by gardener.stale_stage_days) and of other memories (`archive-stale`, by
    gardener.stale_days). A stage's `status` becomes its body's header (none: a stage without one)."""
    scores = {kind: Score(kind, split) for kind in ("archive-stage", "archive-stale")}
    for n, store in enumerate(labelled_archives(split)):
        root = work / f"archives-{split}-{n}"
        shutil.rmtree(root, ignore_errors=True)
        memories = {name: {"kind": m["kind"], "created": m["updated"], "description": m["description"],
                           "status": m.get("status")} for name, m in store["memories"].items()}  # fmt: skip
        written = write_store(root, [{"scope": store["scope"], "memories": memories}])
        name_of = {meta["id"]: name for name, meta in written.items()}
        db = work / f"archives-{split}-{n}.db"
        db.unlink(missing_ok=True)
        index_store(root, db, full=True)
        flagged = {
            name_of[i] for row in proposals(db, str(store["as_of"])) if row["proposal"] == "archive"
            for i in json.loads(row["ids"])
        }  # fmt: skip
        for name, memory in store["memories"].items():
            score = scores["archive-stage" if memory["kind"] == "stage" else "archive-stale"]
            score.labelled += memory["archive"]
            score.proposed += name in flagged
            score.right += memory["archive"] and name in flagged
            if memory["archive"] and name not in flagged:
                score.misses.append(name)
            elif name in flagged and not memory["archive"]:
                score.wrong.append(name)
    return list(scores.values())


def splits() -> list[str]:
    """The labelled splits, in the order the fixture files first name them: those with a labelled pair or
    description (the cross-scope store, which the tests use, has none)."""
    found = [s["split"] for s in labelled_stores() if s["pairs"]]
    found += [s["split"] for s in labelled_descriptions() if s["vague"] or s["concrete"]]
    found += [s["split"] for s in labelled_archives()]
    return list(dict.fromkeys(found))


def quality(names: list[str] | tuple[str, ...] | None = None) -> list[Score]:
    """Every kind's score on each split of `names` (all of them when None): the pair kinds where the split has
    labelled pairs, vague descriptions where it has labelled descriptions, archives where it has archives.yaml's."""
    found = []
    with tempfile.TemporaryDirectory(prefix="gardener-quality-") as tmp:
        for split in names or splits():
            if any(store["pairs"] for store in labelled_stores(split)):
                found += pair_scores(split, Path(tmp))
            if any(s["vague"] or s["concrete"] for s in labelled_descriptions(split)):
                found.append(vague_score(split, Path(tmp)))
            if labelled_archives(split):
                found += archive_scores(split, Path(tmp))
    return found


# What it costs


TARGETS = {"ratio": 1.35, "rss": 300.0, "tables": 0.10, "home": 150.0, "write": 0.05}  # issue 30 at 100,000 memories
CONCURRENT = 8  # requests at once, for the load figure
PAGES = {  # the pages that show the gardener's findings, as HTML through `seamless serve`
    "home page (needs a human, a card per project)": "/",
    "the gardener's proposals, first page of 100 (/-/needs-human)": "/-/needs-human?section=proposal",
    "the gardener's proposals, page 500 (rows 49,901-50,000)": "/-/needs-human?section=proposal&page=500",
    "the `gardener` canned query, HTML (its first 1,000 rows)": "/seamless/gardener",
}


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - started, result


def wait_settled(db: Path, said: str = "", timeout: float = 900.0) -> float:
    """Seconds until the index's findings are in step and the settle `seamless index` started has ended (its pid
    read from what the command `said` on stderr), polled: what the bench does next must not meet it."""
    import re

    from indexer import gardener

    started = time.perf_counter()
    found = re.search(r"settle in the background \(pid (\d+)\)", said)
    while time.perf_counter() - started < timeout:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            settled = gardener.in_step(conn)
        if settled:
            seconds = time.perf_counter() - started
            while found and _alive(int(found[1])) and time.perf_counter() - started < timeout:
                time.sleep(0.05)
            return seconds
        time.sleep(0.1)
    raise RuntimeError(f"the gardener's findings of {db} did not settle in {timeout:.0f} s")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][:1] != "Z"  # a zombie has ended
    except OSError:
        return False


def unsettle(db: Path) -> None:
    """Leave the index as `seamless index` leaves a store indexed from nothing: no finding, every memory pending."""
    from indexer.gardener import findings

    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        for table in findings.TABLES:
            conn.execute(f"delete from {table}")
        conn.execute("delete from index_meta where key like 'gardener%'")
        conn.execute("insert into gardener_pending (id) values ('*')")
    checkpoint(db)


def checkpoint(db: Path) -> None:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("pragma wal_checkpoint(truncate)")


def table_sizes(db: Path) -> tuple[float, float] | None:
    """(the gardener's tables and indexes, everything else) in MB, from SQLite's dbstat; None where the SQLite at
    hand has no dbstat (pysqlite3's wheels)."""
    import sqlite3 as sqlite  # the system's library usually has dbstat

    try:
        with sqlite.connect(f"file:{db}?mode=ro", uri=True) as conn:
            rows = conn.execute("select name, sum(pgsize) from dbstat group by name").fetchall()
    except sqlite.Error:
        return None
    ours = sum(size for name, size in rows if "gardener" in name)
    return ours / 1e6, (sum(size for _, size in rows) - ours) / 1e6


def cost(store: Path, work: Path, repeat: int = 3) -> list[tuple[str, float, str, str]]:
    """(figure, value, unit, note) for the gardener on the generated `store` (indexed into `work`)."""
    import gc

    from indexer.edit.store_write import write_memory
    from indexer.gardener import findings, hints
    from indexer.index import database
    from indexer.sql.canned import NEEDS_HUMAN_PAGE, QUERIES

    from .generate import NOW, PROJECTS
    from .measure import PYTHON, SEAMLESS, db_size_mb, remove_db, run

    figures = []
    db, floor_db = work / "gardener.db", work / "floor.db"

    # The index from nothing, whole processes, in turn with the floor (bench/index_floor.py); each `seamless index`
    # leaves the findings to a settle of their own, waited for before the next run
    floors, indexes, settled_after, before = [], [], [], 0.0
    for _ in range(repeat):
        remove_db(floor_db)
        floors.append(run([PYTHON, "-m", "bench.index_floor", store, floor_db]))
        remove_db(db)
        indexes.append(run([SEAMLESS, "index", store, "--db", db]))
        before = db_size_mb(db)
        settled_after.append(wait_settled(db, indexes[-1].stderr))
    remove_db(floor_db)
    checkpoint(db)
    after = db_size_mb(db)
    ratios = [i.seconds / f.seconds for i, f in zip(indexes, floors)]
    figures += [
        ("index from nothing, whole `seamless index` process", median(i.seconds for i in indexes), "s",
         f"CPU {median(i.cpu for i in indexes):.1f} s; the findings left to a settle of their own"),
        ("the index floor, whole process (walk, read, parse, insert, FTS)", median(f.seconds for f in floors), "s",
         f"CPU {median(f.cpu for f in floors):.1f} s (one thread: the index's FTS has a second); bench/index_floor.py, "
         "in turn with the index"),
        ("index from nothing / its floor", median(ratios), "×",
         f"each run over the floor run before it: {', '.join(f'{r:.2f}' for r in ratios)}; target ≤ {TARGETS['ratio']}"),
        ("peak RSS, `seamless index` from nothing", max(i.rss_mb for i in indexes), "MB",
         f"the floor's {max(f.rss_mb for f in floors):.0f} MB; target ≤ {TARGETS['rss']:.0f} MB"),
        ("the findings in step, after `seamless index` returned", median(settled_after), "s",
         "its settle in the background, waited for (polled)"),
        ("database, before the settle / after", after, "MB", f"before: {before:.1f} MB"),
    ]  # fmt: skip
    sizes = table_sizes(db)
    if sizes:
        ours, rest = sizes
        figures.append(("the gardener's tables and indexes / the rest", ours / rest, "×",
                        f"{ours:.1f} MB of {rest:.1f} MB (dbstat); target ≤ {TARGETS['tables']}"))  # fmt: skip

    # The settle on its own: the process `seamless index` starts, in the foreground, over an index left unsettled
    settles = []
    for _ in range(repeat):
        unsettle(db)
        settles.append(run([PYTHON, "-m", "indexer.gardener", db]))
    conn = database.open_db(db)
    active = conn.execute("select count(*) from memories where status = 'active'").fetchone()[0]
    figures += [
        ("settle every memory from nothing, whole process", median(s.seconds for s in settles), "s",
         f"CPU {median(s.cpu for s in settles):.1f} s; {active:,} active memories"),
        ("peak RSS, the settle", max(s.rss_mb for s in settles), "MB", "the settle's process"),
    ]  # fmt: skip

    def settle_in_run() -> float:
        """What a full run over an unchanged store pays the gardener, as the index run settles: in its transaction,
        without the cycle collector."""
        with conn.atomic():
            gc.disable()
            try:
                return timed(findings.settle, conn, None, None)[0]
            finally:
                gc.enable()

    unchanged = [settle_in_run() for _ in range(repeat)]
    home = [sql for name, sql in NEEDS_HUMAN_PAGE.items() if name.startswith(("size_", "window_"))]
    home += [NEEDS_HUMAN_PAGE["unsettled"], NEEDS_HUMAN_PAGE["findings"]]  # (the home page's, at this store)
    window = {"as_of": NOW, "skip": 0, "take": 20}
    queried, first, windows = [], [], []
    for _ in range(repeat):
        seconds, rows = timed(lambda: queries.run(conn, "gardener", as_of=NOW))
        queried.append(seconds)
        first.append(timed(lambda: conn.execute(QUERIES["gardener"], {"as_of": NOW}).fetchmany(1001))[0])
        windows.append(timed(lambda: [conn.execute(sql, window).fetchall() for sql in home])[0])
    counts = {kind: sum(r["proposal"] == kind for r in rows) for kind in KINDS}
    conn.close()
    figures += [
        ("settle after a full run over an unchanged store (in the run)", median(unchanged), "s", ""),
        ("the `gardener` canned query, every row", median(queried), "s",
         ", ".join(f"{n:,} {k}" for k, n in counts.items())),
        ("the `gardener` canned query, its first 1,001 rows (what Datasette reads)", median(first) * 1000, "ms", ""),
        ("the home page's queries of what needs a human, one after another", median(windows) * 1000, "ms",
         "every section's size and first 20 (needs_human_page.sql)"),
    ]  # fmt: skip
    figures += pages(db)

    # a new memory written, as an agent would: its index update (with the gardener's share) and its hints
    written, hint_times, write_times = [], [], []
    try:
        for n in range(repeat):
            description = f"Chroma server for bench run {n} listens on localhost:{8700 + n} (CHROMA_PORT={8700 + n})"
            seconds, result = timed(
                lambda d=description, n=n: write_memory(
                    store, db, project=PROJECTS[0], kind="reference", name=f"bench-gardener-{n}", description=d
                )
            )
            write_times.append(seconds)
            written.append(store / result.path)
            with sqlite3.connect(db) as read:
                hint_times.append(timed(hints, read, result.id)[0])
    finally:
        for path in written:
            path.unlink(missing_ok=True)
        index_store(store, db)
    figures += [
        ("write a new memory, in-process (index update and hints included)", median(write_times), "s",
         "target near 0.044 s (issue 30)"),
        ("write-time hints (the gardener's findings for the memory)", median(hint_times) * 1000, "ms", ""),
    ]  # fmt: skip
    return figures


def pages(db: Path) -> list[tuple[str, float, str, str]]:
    """The pages that show the findings, through `seamless serve`: each one's median beside the server's floor
    (Datasette answering `select 1`), in turn; then the home page under CONCURRENT requests at once."""
    from concurrent.futures import ThreadPoolExecutor

    from .measure import PAGE_FLOOR, PAGE_REQUESTS, SEAMLESS, paired_latency_ms, serving

    figures = []
    with serving([SEAMLESS, "serve", "--db", db, "--port"]) as get:
        for label, path in PAGES.items():
            value, floor = paired_latency_ms(lambda path=path: get(path), lambda: get(PAGE_FLOOR), PAGE_REQUESTS)
            note = f"floor (`select 1` through the server) {floor:.1f} ms" + (
                f"; target ≤ {TARGETS['home']:.0f} ms" if path == "/" else ""
            )
            figures.append((f"page: {label}", value, "ms", note))
        port = get.port  # type: ignore[attr-defined]

        def one(_) -> tuple[int, float]:
            import http.client

            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            started = time.perf_counter()
            conn.request("GET", "/")
            response = conn.getresponse()
            response.read()
            conn.close()
            return response.status, time.perf_counter() - started

        answers = []
        with ThreadPoolExecutor(CONCURRENT) as pool:
            for _ in range(3):  # three rounds of CONCURRENT at once
                answers += list(pool.map(one, range(CONCURRENT)))
    ok = sum(status == 200 for status, _ in answers)
    times = sorted(seconds for _, seconds in answers)
    figures.append(
        (f"home page, {CONCURRENT} requests at once (3 rounds): answered 200", ok, f"of {len(answers)}",
         f"median {median(times) * 1000:.0f} ms, slowest {times[-1] * 1000:.0f} ms; target: every one a 200")
    )  # fmt: skip
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gardener", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="memories in the generated store(s) to time")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--verbose", action="store_true", help="list every miss and every wrong proposal")
    parser.add_argument("--quality-only", action="store_true", help="the labelled set's figures only")
    parser.add_argument("--splits", help="the labelled splits to measure, comma-separated (default: all of them)")
    parser.add_argument(
        "--loso",
        action="store_true",
        help="the pair rules' leave-one-split-out estimate (printed anyway when every split is measured)",
    )
    parser.add_argument("--libraries", type=int, default=10000, help="memories to compare libraries on (0: none)")
    args = parser.parse_args(argv)
    print("### The gardener's proposals on the labelled set (tests/fixtures/gardener)\n")
    scores = quality(args.splits.split(",") if args.splits else None)
    for score in scores:
        print(score.line())
        if args.verbose:
            for miss in score.misses:
                print(f"    missed: {miss}")
            for wrong in score.wrong:
                print(f"    wrong:  {wrong}")
    print("\n" + table(scores), flush=True)
    if args.loso or not args.splits:
        from . import gardener_loso

        names = list(dict.fromkeys(score.split for score in scores if score.kind in ("duplicate", "contradiction")))
        print("\n### Leaving one split out: the pair rules' limits chosen on the others, measured on it\n")
        print(gardener_loso.report(names) if len(names) > 1 else "(one split: nothing to leave out)", flush=True)
    if args.quality_only:
        return
    from .generate import ensure_store

    for memories in sorted({int(s) for s in args.sizes.replace(",", " ").split()}):
        print(f"\n### The gardener at {memories:,} memories (median of {args.repeat})\n", flush=True)
        store = ensure_store(args.out / "stores", memories, 1)
        work = Path(tempfile.mkdtemp(prefix="gardener-", dir=args.out))
        try:
            for label, value, unit, note in cost(store, work, args.repeat):
                print(f"| {label} | {value:,.3f} {unit} | {note} |", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if args.libraries:
        print(f"\n### Libraries against our own code at {args.libraries:,} memories\n", flush=True)
        store = ensure_store(args.out / "stores", args.libraries, 1)
        work = Path(tempfile.mkdtemp(prefix="gardener-", dir=args.out))
        try:
            index_store(store, work / "libraries.db", full=True)
            for label, value, unit, note in libraries(work / "libraries.db"):
                print(f"| {label} | {value:.3f} {unit} | {note} |", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def table(scores: list[Score]) -> str:
    """The scores as a markdown table: a row per kind, a column per split, each cell precision / recall."""
    names = list(dict.fromkeys(s.split for s in scores))
    cell = {(s.kind, s.split): f"{s.precision:.2f} ({s.right}/{s.proposed}) / {s.recall:.2f} ({s.right}/{s.labelled})"
            for s in scores}  # fmt: skip
    lines = ["| kind | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    lines += [f"| {kind} | " + " | ".join(cell.get((kind, n), "not labelled") for n in names) + " |" for kind in KINDS]
    return "\n".join(lines)


def median(values) -> float:
    return statistics.median(values)


def libraries(db: Path) -> list[tuple[str, float, str, str]]:
    """The well-kept alternatives, measured on the same index: datasketch's MinHash LSH against the gardener's own
    term postings to find the pairs to compare, and SQLite's fts5vocab against gardener/reading.py to list words."""
    from collections import Counter, defaultdict

    from indexer.gardener import reading, rules
    from indexer.gardener.findings import COMMON, TOGETHER, terms

    conn = sqlite3.connect(db)
    rows = conn.execute(
        "select id, coalesce(project, ''), name, description from memories where status = 'active'"
    ).fetchall()
    figures = []
    seconds, readings = timed(lambda: {r[0]: reading.read(r[2], r[3]) for r in rows})
    figures.append(("read every name and description (gardener/reading.py)", seconds, "s", f"{len(rows):,} memories"))
    vocab_sql = (
        "select count(*) from (select v.term, v.doc from memories_vocab as v join memories as m on m.rowid = v.doc "
        "where m.status = 'active' and v.col in ('name', 'description'))"
    )
    conn.execute("create virtual table temp.memories_vocab using fts5vocab(main, 'memories_fts', 'instance')")
    seconds, (count,) = timed(lambda: conn.execute(vocab_sql).fetchone())
    figures.append(("list their words with fts5vocab (porter stems, no values)", seconds, "s", f"{count:,} instances"))
    scope_of = {r[0]: r[1] for r in rows}

    def postings():
        found = set()
        by_scope: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        mine = {i: terms(w) for i, w in readings.items()}
        for i, ts in mine.items():
            for t in ts:
                by_scope[scope_of[i]][t].append(i)
        for i, ts in mine.items():
            shared: Counter[str] = Counter()
            for t in ts:
                holders = by_scope[scope_of[i]][t]
                if len(holders) <= COMMON:
                    shared.update(holders)
            found |= {(i, o) for o, n in shared.items() if n >= TOGETHER and o > i}
        return found

    seconds, ours = timed(postings)
    figures.append(("pairs to compare: own term postings", seconds, "s", f"{len(ours):,} pairs"))
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        figures.append(("pairs to compare: datasketch MinHash LSH", float("nan"), "s", "datasketch not installed"))
    else:

        def lsh():
            found = set()
            by_scope: dict[str, MinHashLSH] = {}
            for i, w in readings.items():
                m = MinHash(num_perm=64)
                m.update_batch([t.encode() for t in w.words])
                index = by_scope.setdefault(scope_of[i], MinHashLSH(threshold=rules.SAME_WORDS, num_perm=64))
                found |= {(min(i, o), max(i, o)) for o in index.query(m)}
                index.insert(i, m)
            return found

        seconds, theirs = timed(lsh)
        figures.append(
            ("pairs to compare: datasketch MinHash LSH (64 permutations)", seconds, "s", f"{len(theirs):,} pairs")
        )
        duplicates = {
            p for p in ours | theirs if (v := rules.judge(readings[p[0]], readings[p[1]])) and v.proposal == "duplicate"
        }
        figures.append(
            (
                "duplicates among own pairs / LSH pairs",
                len(duplicates & ours),
                "",
                f"{len(duplicates & theirs):,} among LSH's",
            )
        )
    conn.close()
    return figures


if __name__ == "__main__":
    main()
