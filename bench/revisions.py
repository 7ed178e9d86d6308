"""The store's git history at 100,000 memories (issue 23), each figure beside what git alone takes for the same work.

    python -m bench.revisions [--sizes "1000 100000"] [--commits 1000] [--repeat 3] [--out bench/out]

Measures the largest size of --sizes (the targets are at 100,000 memories), on a copy of the generated store in a
git repository of --commits commits: the first holds the whole store, each later one changes one memory (every
tenth, two), made with `git fast-import` and cached beside the store. The figures:

- one write plus its commit, as a whole `seamless write` process, beside `git add` + `git commit --only` of one
  file (git's own way to commit one file alone) and `git status`; and the commit's own share, in-process;
- the first revisions build over every commit (in-process, `--full`), beside the `git log` it runs alone;
- the revisions after 10 new commits, beside the same `git log` of those 10 commits alone;
- an index run's look at the history when nothing is new, beside `git rev-parse HEAD`.

Everything the run changes in the repository is put back (HEAD, the index, the work tree) before it ends.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from indexer import git
from indexer.index import revisions
from indexer.index.database import open_db

from .generate import NOW_S, cached_folder, ensure_store
from .measure import REPO, SEAMLESS, run

STAMP = ".bench-git.json"  # hidden, at the store's root: neither the indexer nor git's pathspecs look at it
TARGETS = {"write_commit": 0.5, "revisions_first": 10.0, "revisions_10": 0.2}  # seconds, at 100,000 memories
LOG_ALONE = [
    "log", "--no-show-signature", "--root", "--raw", "-z", "--no-abbrev", "-M", "--diff-merges=dense-combined",
    "--topo-order", "--reverse", "--left-right", "--full-history", "--sparse", "--format=%m%H%x00%P%x00%ct%x00%an",
]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.revisions", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="memories per store: the largest is measured")
    parser.add_argument("--commits", type=int, default=1000, help="commits in the store's history")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timed figure (the median is shown)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    args = parser.parse_args(argv)
    memories = max(int(s) for s in args.sizes.replace(",", " ").split())
    stores = args.out / "stores"
    print(f"preparing {memories:,} memories in a history of {args.commits:,} commits...", file=sys.stderr, flush=True)
    store = ensure_git_store(ensure_store(stores, memories, args.seed), args.commits)
    work = Path(tempfile.mkdtemp(prefix="work-", dir=stores.parent))
    load = os.getloadavg()[0]
    try:
        figures = measure(store, work / "seamless.db", args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = {
        "command": "python -m bench.revisions " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "memories": memories,
        "commits": args.commits,
        "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],
        "figures": figures,
    }
    text = table(report)
    print(text)
    (args.out / "revisions.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "revisions.md").write_text(text + "\n")


def table(report: dict) -> str:
    lines = [
        f"### The store's git history: {report['memories']:,} memories, {report['commits']:,} commits "
        f"(median of the runs; load average {report['load_average'][0]} -> {report['load_average'][1]}, "
        f"{report['date']})",
        "",
        "| figure | value | git alone (or the floor) | ratio | target | pass/fail |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for f in report["figures"]:
        alone, target = f.get("git"), f.get("target")
        verdict = "" if target is None else ("pass" if f["value"] <= target else "FAIL")
        alone_text = f"{ms(alone)} ({f['git_label']})" if alone else "—"
        if f.get("floor"):
            alone_text, alone = f"{ms(f['floor'])} (Datasette answering `select 1`)", f["floor"]
        ratio = f"{f['value'] / alone:.2f}" if alone else "—"
        target_text = ms(target) if target else "—"
        lines.append(f"| {f['label']} | {ms(f['value'])} | {alone_text} | {ratio} | {target_text} | {verdict} |")
    return "\n".join(lines)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


# The repository


def ensure_git_store(store: Path, commits: int) -> Path:
    """A copy of `store` in a git repository of `commits` commits whose work tree is its last, cached."""
    want = {"store": store.name, "commits": commits, "version": 1}

    def make(tmp: Path) -> None:
        shutil.copytree(store, tmp)
        subprocess.run(["git", "init", "-q", "-b", "main", str(tmp)], check=True)
        for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
            subprocess.run(["git", "-C", str(tmp), "config", key, value], check=True)
        files = sorted(
            p.relative_to(tmp).as_posix() for folder in ("memories", "notes") for p in (tmp / folder).rglob("*.md")
        )
        contents = {path: (tmp / path).read_bytes() for path in files}
        memories = [path for path in files if path.startswith("memories/")]
        stream = [commit_header(1, "the store, as generated", None)]
        stream += [file_data(path, data) for path, data in contents.items()]
        for n in range(2, commits + 1):
            stream.append(commit_header(n, f"update, commit {n}", n - 1))
            for path in memories[(n * 7919) % len(memories) :: len(memories)][:1] + (
                memories[(n * 104729) % len(memories) :: len(memories)][:1] if n % 10 == 0 else []
            ):
                contents[path] += f"\nRevision {n}, by the benchmark.\n".encode()
                stream.append(file_data(path, contents[path]))
        subprocess.run(
            ["git", "-C", str(tmp), "fast-import", "--quiet"], input=b"".join(stream) + b"done\n", check=True
        )
        for path, data in contents.items():  # the work tree as of the last commit
            (tmp / path).write_bytes(data)
        subprocess.run(["git", "-C", str(tmp), "reset", "-q", "--mixed", "main"], check=True)
        subprocess.run(["git", "-C", str(tmp), "update-index", "-q", "--refresh"], check=False)

    return cached_folder(store.with_name(f"{store.name}-git{commits}"), want, make, STAMP)


def commit_header(n: int, message: str, parent: int | None) -> bytes:
    when = NOW_S - 86400 * 30 + n * 60
    text = f"commit refs/heads/main\nmark :{n}\ncommitter Bench <bench@example.com> {when} +0000\n"
    text += f"data {len(message.encode())}\n{message}\n" + (f"from :{parent}\n" if parent else "")
    return text.encode()


def file_data(path: str, data: bytes) -> bytes:
    return f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"


# The figures


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def git_alone(store: Path, *args: str, input: bytes | None = None) -> float:
    """Seconds of one git command, its output read and dropped."""
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(store), *args], input=input, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def update_revisions(db, store: Path, max_bytes: int, full: bool = False) -> None:
    """The revisions brought up to date as an index run does: git asked where the store sits, then its new commits."""
    revisions.update(db, git.repo(store), max_bytes, full)


def median(values) -> float:
    return statistics.median(values)


def measure(store: Path, db_path: Path, repeat: int) -> list[dict]:
    head = git.run(store, "rev-parse", "HEAD").stdout.strip()
    figures = []
    try:
        first = run([SEAMLESS, "index", store, "--db", db_path])
        figures.append({"key": "index_first", "label": "first index of the store in git, whole process (files and "
                        "revisions)", "value": first.seconds})  # fmt: skip
        db = open_db(db_path)
        max_bytes = 4194304
        build = [timed(update_revisions, db, store, max_bytes, True) for _ in range(repeat)]
        log = [git_alone(store, *LOG_ALONE, "HEAD", "--", "memories", "notes") for _ in range(repeat)]
        rows = db.execute("select count(*) from revisions").fetchone()[0]
        figures.append(rev("revisions_first", f"first revisions build, every commit ({rows:,} rows), in-process",
                           build, log, "the same `git log`"))  # fmt: skip
        noop = [timed(update_revisions, db, store, max_bytes) for _ in range(max(repeat, 5))]
        parse = [git_alone(store, "rev-parse", "HEAD") for _ in range(max(repeat, 5))]
        figures.append(rev("revisions_noop", "revisions when nothing is new, in-process", noop, parse,
                           "`git rev-parse HEAD`"))  # fmt: skip
        ten, ten_log = [], []
        for _ in range(repeat):
            before = git.run(store, "rev-parse", "HEAD").stdout.strip()
            after = ten_commits(store, before)
            ten.append(timed(update_revisions, db, store, max_bytes))
            ten_log.append(git_alone(store, *LOG_ALONE, f"{before}...{after}", "--", "memories", "notes"))
        figures.append(rev("revisions_10", "revisions after 10 new commits, in-process", ten, ten_log,
                           "the same `git log` of the 10"))  # fmt: skip
        git.run(store, "update-ref", "HEAD", head)
        update_revisions(db, store, max_bytes)
        db.close()
        figures += page_figures(db_path)
        figures += write_figures(store, db_path, repeat)
    finally:
        git.run(store, "reset", "-q", "--hard", head)
        git.run(store, "clean", "-q", "-f", "--", "memories", "notes")
    return figures


def rev(key: str, label: str, runs: list[float], alone: list[float], alone_label: str) -> dict:
    return {"key": key, "label": label, "value": median(runs), "git": median(alone), "git_label": alone_label,
            "target": TARGETS.get(key)}  # fmt: skip


def ten_commits(store: Path, parent: str) -> str:
    """Ten commits on top of `parent`, each appending a line to one memory (the work tree is left alone)."""
    memories = git.run(store, "ls-tree", "-r", "--name-only", parent, "memories").stdout.split()
    stream = []
    for n in range(10):
        path = memories[(n * 7907) % len(memories)]
        data = git.run(store, "cat-file", "blob", f"{parent}:{path}", text=False).stdout + f"\nTen {n}.\n".encode()
        stream.append(commit_header(100_000 + n, f"ten, {n}", None) + (f"from {parent}\n".encode() if n == 0 else b""))
        stream.append(file_data(path, data))
    # fast-import moves refs/heads/main; HEAD follows it
    subprocess.run(["git", "-C", str(store), "fast-import", "--quiet", "--force"], input=b"".join(stream) + b"done\n",
                   check=True)  # fmt: skip
    return git.run(store, "rev-parse", "HEAD").stdout.strip()


def page_figures(db_path: Path, runs: int = 7) -> list[dict]:
    """The memory page of the memory with the most revisions, and the attribution page, through Datasette's own
    client in this process (as `seamless serve` configures it), each beside Datasette answering `select 1`."""
    import asyncio

    from indexer.front.serve import build_datasette
    from indexer.sqlite import sqlite3

    with sqlite3.connect(db_path) as conn:
        (memory,) = conn.execute(
            "select id from revisions where id in (select id from memories) group by id order by count(*) desc, id"
        ).fetchone()

    async def measure_pages() -> dict[str, list[float]]:
        ds = build_datasette(db_path)
        await ds.invoke_startup()
        paths = {"memory": f"/seamless/memories/{memory}", "attribution": "/-/attribution",
                 "floor": "/seamless.json?sql=select+1&_shape=array"}  # fmt: skip
        times: dict[str, list[float]] = {name: [] for name in paths}
        for _ in range(runs + 1):  # the first round warms up
            for name, path in paths.items():
                started = time.perf_counter()
                response = await ds.client.get(path)
                times[name].append(time.perf_counter() - started)
                assert response.status_code == 200, (path, response.status_code)
        return {name: values[1:] for name, values in times.items()}

    times = asyncio.run(measure_pages())
    floor = median(times["floor"])
    return [
        {"key": "page_memory_revisions", "label": "a memory's page with its revisions and their diffs, HTML",
         "value": median(times["memory"]), "git": None, "floor": floor},
        {"key": "page_attribution", "label": "the attribution page, HTML", "value": median(times["attribution"]),
         "git": None, "floor": floor},
    ]  # fmt: skip


def write_figures(store: Path, db_path: Path, repeat: int) -> list[dict]:
    """A new memory through `seamless write` (index update and commit included); the commit alone, in-process;
    and git's own commit of one file."""
    from indexer.git.commit import Change, commit_write

    writes = [
        run([SEAMLESS, "write", store, "--db", db_path, "--project", "seamless", "--kind", "gotcha",
             "--name", f"bench-git-{n}", "--description", f"Benchmark write {n}: a one-line description"])
        for n in range(repeat)
    ]  # fmt: skip
    folder = store / "memories" / "seamless"
    own = []
    for n in range(repeat):
        path = folder / f"bench-commit-{n}.md"
        path.write_text(f"---\nid: 01K00000000000000000BENCH{n}\n---\nA file committed by the benchmark.\n")
        own.append(
            timed(commit_write, store, [path.relative_to(store).as_posix()], Change("write", path.stem, "X", None))
        )
    alone, status = [], []
    for n in range(repeat):
        path = folder / f"bench-git-alone-{n}.md"
        path.write_text("A file committed by git alone.\n")
        relative = path.relative_to(store).as_posix()
        alone.append(git_alone(store, "add", "--", relative) + git_alone(store, "commit", "-q", "--only", "-m",
                                                                          "git alone", "--", relative))  # fmt: skip
        status.append(git_alone(store, "status", "--porcelain"))
    return [
        {"key": "write_commit", "label": "one write plus its commit, whole `seamless write` process",
         "value": median(r.seconds for r in writes), "git": median(alone),
         "git_label": "`git add` + `git commit --only` of one file", "target": TARGETS["write_commit"]},
        {"key": "commit_in", "label": "the commit of one written file alone (edit/commit.py), in-process",
         "value": median(own), "git": median(status), "git_label": "`git status`"},
    ]  # fmt: skip


if __name__ == "__main__":
    main()
