"""`python -m fuzz` (`make fuzz`): hypothesis over frontmatter, settings, file names and request parameters.

    python -m fuzz [--minutes 10] [--seed N]

Not part of `make test`: it runs for as long as it is given, the time shared between the four targets,
and prints a table of examples tried, failures and the slowest example of each. A failure is a crash
(any exception out of the indexer or a traceback from the CLI), a hang (one example over HANG_SECONDS:
a signal stops it), an index that does not account for every file, a problem line that is not one line,
or an explorer answer of 500 or more. Hypothesis keeps failing examples in .hypothesis/ and replays them first.
"""

import argparse
import asyncio
import logging
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
import urllib.parse
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from stores import assert_accounted_for  # noqa: E402

from indexer.index.build import index_store  # noqa: E402
from indexer.store.parse import parse_bytes  # noqa: E402
from indexer.store.settings import DEFAULTS, MAXIMUM, load_settings  # noqa: E402
from indexer.store.validate import memory_record, note_record  # noqa: E402

HANG_SECONDS = 20


class Hang(Exception):
    """One example took longer than HANG_SECONDS."""


def _alarm(signum, frame):
    raise Hang(f"one example ran over {HANG_SECONDS} s")


# --- strategies ---

TIMESTAMPS = st.one_of(
    st.sampled_from(
        [
            "2026-07-10T18:00:00Z",
            "0001-01-01T00:00:00+01:00",
            "9999-12-31T23:59:59-01:00",
            "2026-02-30",
            "2026-13-45T99:99:99Z",
            "!!timestamp 2026-07-10",
            "2026",
            "",
            "'2026-07-10'",
        ]
    ),
    st.datetimes().map(lambda d: d.isoformat()),
    st.text(max_size=30),
)
SCALARS = st.one_of(
    st.text(max_size=40),
    st.integers().map(str),
    st.sampled_from(["no", "yes", "~", "null", "0x1F", "1e400", "&a x", "*a", "!!int abc", "[", "{", "'", '"', "|"]),
)
NESTED = st.recursive(
    SCALARS.map(lambda s: s.replace("\n", " ")),
    lambda inner: st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    max_leaves=20,
)
KEYS = st.sampled_from(
    [
        *("id", "kind", "name", "description", "project", "created", "updated", "valid_from", "invalid_at"),
        *("superseded_by", "tags", "title", "source_session", "model", "x"),
    ]
)
FRONTMATTER = st.lists(st.tuples(KEYS, st.one_of(TIMESTAMPS, NESTED, SCALARS)), max_size=12).map(
    lambda pairs: "".join(f"{k}: {v}\n" for k, v in pairs)
)
BODY = st.one_of(
    st.text(max_size=300),
    st.sampled_from(["# a" + " " * 5000 + "x", "Status: open" + " |" * 3000 + "!", "![" * 3000, "```\n# x\n```\n# T"]),
)
FILE_TEXT = st.tuples(FRONTMATTER, BODY, st.booleans()).map(
    lambda t: (f"---\n{t[0]}---\n{t[1]}" if t[2] else t[1]).encode("utf-8", "surrogatepass")
)
TOML = st.one_of(
    st.text(max_size=200),
    st.lists(
        st.tuples(
            st.sampled_from(["[index]", "[briefing]", "[gardener]", "[git]", "[x]", ""]),
            st.sampled_from([*(k.split(".")[1] for k in DEFAULTS), "unknown"]),
            st.one_of(st.integers(-(2**70), 2**70).map(str), NESTED, st.sampled_from(['"a"', "true", "1.5"])),
        ),
        max_size=8,
    ).map(lambda rows: "".join(f"{section}\n{key} = {value}\n" for section, key, value in rows)),
    st.integers(1, 3000).map(lambda n: "x = " + "[" * n + "]" * n + "\n"),
)
NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=40
)


# --- targets: each one example of hypothesis; any exception is a failure ---


@given(FILE_TEXT, st.sampled_from(["memory", "note"]))
def fuzz_frontmatter(data: bytes, kind: str) -> None:
    parsed = parse_bytes(f"{kind}s/x.md", data, DEFAULTS["index.max_file_bytes"])
    record, problems = (memory_record if kind == "memory" else note_record)(parsed)
    assert record is not None or any(p.severity == "error" for p in problems)
    for problem in problems:
        assert "\n" not in problem.format("/store")


@given(TOML)
def fuzz_settings(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "seamless.toml").write_text(text, "utf-8", errors="surrogatepass")
        values, problems = load_settings(Path(tmp))
    for key, value in values.items():
        assert isinstance(value, int) and 0 <= value <= MAXIMUM.get(key, 2**53), (key, value)
    assert all(p.path == "seamless.toml" for p in problems)


@given(st.lists(st.tuples(NAMES, FILE_TEXT, st.sampled_from(["memories", "notes"])), min_size=1, max_size=6))
def fuzz_file_names(files: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "store")
        for folder in ("memories", "notes"):
            (root / folder / "p").mkdir(parents=True)
        for name, data, folder in files:
            try:
                (root / folder / "p" / f"{name[:200]}.md").write_bytes(data)
            except OSError:
                pass  # a name the file system refuses
        summary = index_store(root, Path(tmp, "i.db"))
        assert_accounted_for(root, Path(tmp, "i.db"))
        for problem in summary.problems:
            assert "\n" not in problem.format(str(root)) and "\r" not in problem.format(str(root))


PATHS = [
    "/seamless/memories.json",
    "/seamless/memories",
    "/seamless/notes.json",
    "/seamless/active_memories.json",
    "/seamless/briefing.json",
    "/seamless/brief~69ng.json",
    "/seamless/briefing.md",
    "/seamless/briefing_ledger.json",
    "/seamless/recall.json",
    "/seamless/history.json",
    "/seamless/gardener.json",
    "/seamless.json",
    "/seamless/problems.json",
]
PARAMETER_NAMES = st.sampled_from(
    [
        *("as_of", "budget", "limit", "project", "q", "id", "_sort", "_sort_desc", "_through", "id__in", "name__notin"),
        *(
            "_size",
            "_next",
            "_facet",
            "_search",
            "_col",
            "_shape",
            "_where",
            "sql",
            "_timelimit",
            "tags__arraycontains",
        ),
    ]
)
SQL = st.sampled_from(
    [
        "select printf('%.*c', {n}, 'x')",
        "select length(randomblob({n}))",
        "select instr(printf('%.*c', {n}, 'a'), printf('%.*c', {n} / 2, 'a') || 'b')",
        "select replace(hex(zeroblob({n})), '0', 'ab')",
        "select trim(printf('%.*c', {n}, 'a'), 'bcdefghijklmnopqrstuvwxyz' || printf('%.*c', 100, 'a'))",
        "select * from memories where body like '%a%a%a%a%a%a%a%b'",
    ]
).flatmap(lambda sql: st.integers(0, 10**9).map(lambda n: sql.format(n=n)))
PARAMETER_VALUES = st.one_of(TIMESTAMPS, SCALARS, NESTED, SQL, st.integers(-(2**64), 2**64).map(str))


def explorer(db_path: Path):
    from indexer.front.serve import build_datasette

    ds = build_datasette(db_path)
    asyncio.run(ds.invoke_startup())
    return ds


_state: dict = {}


@given(st.sampled_from(PATHS), st.lists(st.tuples(PARAMETER_NAMES, PARAMETER_VALUES), max_size=4))
def fuzz_requests(path: str, parameters: list) -> None:
    ds = _state["explorer"]
    url = path + "?" + urllib.parse.urlencode(parameters)

    async def get():
        return await ds.client.get(url)

    response = asyncio.run(get())
    assert response.status_code < 500, (url, response.status_code, response.text[:300])


TARGETS = {
    "frontmatter": fuzz_frontmatter,
    "settings": fuzz_settings,
    "file names": fuzz_file_names,
    "request parameters": fuzz_requests,
}


def run(target, seconds: float, seed: int) -> dict:
    """Run `target` in batches until `seconds` have passed; its figures."""
    figures = {"examples": 0, "failures": 0, "slowest": 0.0, "first failure": ""}
    counted = settings(
        max_examples=50,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        database=None if os.environ.get("FUZZ_NO_DATABASE") else settings.default.database,
    )
    inner = target.hypothesis.inner_test

    def timed(*args, **kwargs):
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
        try:
            inner(*args, **kwargs)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            figures["examples"] += 1
            figures["slowest"] = max(figures["slowest"], time.perf_counter() - started)

    target.hypothesis.inner_test = timed
    runner = counted(target)
    ends = time.monotonic() + seconds
    random.seed(seed)
    while time.monotonic() < ends:
        try:
            runner()
        except Exception as e:  # a failure, shrunk by hypothesis: note it and go on
            figures["failures"] += 1
            if not figures["first failure"]:
                figures["first failure"] = "".join(traceback.format_exception_only(e)).strip()[:500]
    target.hypothesis.inner_test = inner
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--minutes", type=float, default=10, help="the whole campaign's length (at least 10 documented)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    warnings.simplefilter("ignore", RuntimeWarning)  # Datasette's facets left unawaited by a refused request
    work = Path(tempfile.mkdtemp(prefix="seamless-fuzz-"))
    try:
        db = work / "example.db"
        index_store(REPO / "examples" / "store", db, full=True)
        _state["explorer"] = explorer(db)
        share = args.minutes * 60 / len(TARGETS)
        started = time.perf_counter()
        results = {name: run(target, share, args.seed) for name, target in TARGETS.items()}
        print(f"`python -m fuzz --minutes {args.minutes:g}`: {time.perf_counter() - started:.0f} s in all\n")
        print("| target | examples | failures | slowest example |")
        print("| --- | ---: | ---: | ---: |")
        for name, figures in results.items():
            print(f"| {name} | {figures['examples']:,} | {figures['failures']} | {figures['slowest']:.2f} s |")
        for name, figures in results.items():
            if figures["first failure"]:
                print(f"\n{name}: {figures['first failure']}")
        return 1 if any(figures["failures"] for figures in results.values()) else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
