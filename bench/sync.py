"""`seamless sync` on a generated store in git: a sync with nothing to do, and a sync that merges memories
changed on two hosts, each beside what git alone takes for the same work.

    python -m bench.sync [--memories 100000] [--changed 100] [--seed 1] [--repeat 3] [--out DIR]

The generated store (bench/generate.py) is put in git once and cached under DIR/stores/git-<memories>-<seed>:
a bare remote and two clones, `a` and `b`, each with its index. Building it takes minutes at 100,000 memories
(adding, pushing and cloning every file, indexing both clones); later runs reuse it. Every run puts the
remote and the clones back as it found them.
"""

import argparse
import json
import os
import shlex
import shutil
import sys
import time
from pathlib import Path

from indexer.edit.frontmatter_edit import MEMORY_ORDER, Document
from indexer.index.build import index_paths, index_store
from indexer.sqlite import sqlite3

from .generate import STAMP, ensure_store
from .measure import REPO, SEAMLESS, Figure, Proc, median, run

VERSION = 1  # of the git stores: bump when how they are made changes
TARGETS = {("sync_noop", 100_000): 1.5, ("sync_merge", 100_000): 30.0}  # issue 23
BRANCH = "main"


def git(cwd: Path, *args: str) -> Proc:
    """`git ARGS` in `cwd` as a whole process, timed like every other figure (bench.measure.run)."""
    return run(["git", "-C", str(cwd), *args])


def ensure_git_store(stores: Path, memories: int, seed: int) -> Path:
    """The remote and the two indexed clones of the generated store (memories, seed), made unless cached."""
    store = ensure_store(stores, memories, seed)
    root = stores / f"git-{memories}-{seed}"
    want = {"version": VERSION, "store": json.loads((store / STAMP).read_text())}
    try:
        if json.loads((root / "stamp.json").read_text()) == want:
            return root
    except (OSError, ValueError):
        pass
    # made in place (the clones know their remote, the indexes their store, by path); the stamp is written last
    shutil.rmtree(root, ignore_errors=True)
    tmp = root
    tmp.mkdir(parents=True)
    started = time.perf_counter()
    print(f"putting the {memories:,}-memory store in git (once; cached in {root})...", file=sys.stderr, flush=True)
    git(tmp, "init", "-q", "--bare", f"--initial-branch={BRANCH}", "remote.git")
    a = _clone(tmp, "a")
    for folder in ("memories", "notes"):
        shutil.copytree(store / folder, a / folder)
    run([SEAMLESS, "git-setup", a])
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", f"the generated store: {memories:,} memories, seed {seed}")
    git(a, "push", "-q", "origin", f"HEAD:{BRANCH}")
    git(a, "branch", "-q", f"--set-upstream-to=origin/{BRANCH}")
    b = _clone(tmp, "b")
    run([SEAMLESS, "git-setup", b])
    for clone in (a, b):
        index_store(clone, tmp / f"{clone.name}.db")
    (root / "stamp.json").write_text(json.dumps(want))
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return root


def _clone(folder: Path, name: str) -> Path:
    git(folder, "clone", "-q", "remote.git", name)
    clone = folder / name
    git(clone, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")  # a clone of the empty remote: its first branch
    git(clone, "config", "user.name", f"bench host {name}")
    git(clone, "config", "user.email", f"{name}@bench.example")
    return clone


def _head(cwd: Path) -> str:
    return git(cwd, "rev-parse", "HEAD").stdout.strip()


def _edit(store: Path, paths: list[str], host: str) -> None:
    """What a host's agents do to each memory: host a appends a line; host b rewrites the description and
    appends a line of its own (both change `updated`), as `seamless write` and `append` would."""
    stamp = "2026-12-02T10:00:00Z" if host == "a" else "2026-12-02T11:00:00Z"
    for path in paths:
        doc = Document.from_bytes((store / path).read_bytes())
        doc.set("updated", stamp, MEMORY_ORDER)
        if host == "b":
            doc.set("description", f"Rewritten on host b: {path.rsplit('/', 1)[-1]}", MEMORY_ORDER)
        doc.body = doc.body.rstrip("\n") + f"\n\nSeen again on host {host}.\n"
        (store / path).write_bytes(doc.to_bytes())


def measure_sync(root: Path, memories: int, changed: int, repeat: int) -> list[Figure]:
    remote, a, b = root / "remote.git", root / "a", root / "b"
    a_db, b_db = root / "a.db", root / "b.db"
    base = _head(a)
    with sqlite3.connect(f"file:{a_db}?mode=ro", uri=True) as conn:
        rows = conn.execute("select path from memories where status = 'active' order by id").fetchall()
    paths = [row[0] for row in rows[:: max(1, len(rows) // changed)][:changed]]
    sync_b = [SEAMLESS, "sync", b, "--db", b_db, "--json"]
    try:
        # nothing to do: b is in step with the remote
        run(sync_b)  # warm: the page cache, the driver's registration
        noop = [run(sync_b) for _ in range(repeat)]
        status = [git(b, "status", "--porcelain") for _ in range(repeat)]
        fetch = [git(b, "fetch", "-q", "origin") for _ in range(repeat)]

        # the same memories changed on both hosts: a's changes pushed, b's committed, then b syncs
        _edit(a, paths, "a")
        git(a, "commit", "-q", "-a", "-m", f"host a: {changed} memories")
        git(a, "push", "-q", "origin", f"HEAD:{BRANCH}")
        theirs = _head(a)
        _edit(b, paths, "b")
        git(b, "commit", "-q", "-a", "-m", f"host b: {changed} memories")
        ours = _head(b)
        merges, git_merges, resolved = [], [], 0
        for _ in range(repeat):
            _reset(b, b_db, ours, base, paths)
            _set_remote(remote, theirs)
            done = run(sync_b)
            merges.append(done)
            resolved = len(json.loads(done.stdout)["conflicts_resolved"])
            # git alone, the same commits: fetch, then git's own line merge of the same files (its conflicts
            # left for a person), with the store's driver switched off for this clone
            _reset(b, b_db, ours, base, paths)
            _set_remote(remote, theirs)
            (b / ".git/info").mkdir(exist_ok=True)
            (b / ".git/info/attributes").write_text("*.md merge=text\n")
            fetched = git(b, "fetch", "-q", "origin")
            merged = run(["git", "-C", b, "merge", "-q", "--no-ff", "--no-commit", f"origin/{BRANCH}"], check=False)
            git_merges.append((fetched, merged))
            run(["git", "-C", b, "merge", "--abort"], check=False)
            (b / ".git/info/attributes").unlink()
    finally:
        _set_remote(remote, base)
        for clone, db in ((a, a_db), (b, b_db)):
            _reset(clone, db, base, base, paths)

    def seconds(runs):
        return median(r.seconds for r in runs)

    git_merge = median(f.seconds + m.seconds for f, m in git_merges)
    figures = [
        Figure(
            "sync_noop",
            "`seamless sync` with nothing to do, whole process",
            "s",
            seconds(noop),
            seconds(status) + seconds(fetch),
            cpu=median(r.cpu for r in noop),
            note=f"floor: `git status` ({seconds(status):.3f} s) + `git fetch` ({seconds(fetch):.3f} s), each a "
            "whole process in the same clone",
        ),
        Figure(
            "sync_merge",
            f"`seamless sync` merging {changed} memories changed on both hosts, whole process",
            "s",
            seconds(merges),
            git_merge,
            cpu=median(r.cpu for r in merges),
            note=f"floor: `git fetch` + `git merge` of the same commits with git's own line merge (which leaves "
            f"{changed} conflicts for a person); sync merged the {changed} files by the store's rules "
            f"({resolved} rules applied), indexed and pushed",
        ),
    ]
    for figure in figures:
        figure.target = TARGETS.get((figure.key, memories))
    return figures


def _set_remote(remote: Path, commit: str) -> None:
    """Put the remote's branch at `commit` (the bench's own reset: no host ever does this)."""
    git(remote, "update-ref", f"refs/heads/{BRANCH}", commit)


def _reset(clone: Path, db: Path, commit: str, tracking: str, paths: list[str]) -> None:
    """The clone at `commit`, its remote-tracking branch at `tracking`, its index in step for `paths`."""
    git(clone, "reset", "-q", "--hard", commit)
    git(clone, "update-ref", f"refs/remotes/origin/{BRANCH}", tracking)
    index_paths(clone, db, paths)


def main(argv: list[str] | None = None) -> None:
    from .__main__ import machine, markdown, table

    parser = argparse.ArgumentParser(prog="python -m bench.sync", description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000, help="memories in the store (and 10%% notes)")
    parser.add_argument("--changed", type=int, default=100, help="memories changed on both hosts")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated store")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timed figure (the median is shown)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out", help="results and cached stores")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    root = ensure_git_store(args.out / "stores", args.memories, args.seed)
    load = os.getloadavg()[0]
    figures = measure_sync(root, args.memories, args.changed, args.repeat)
    result = {
        "memories": args.memories,
        "notes": args.memories // 10,
        "seed": args.seed,
        "repeat": args.repeat,
        "store": str(root),
        "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],
        "figures": [vars(f) | {"verdict": f.verdict} for f in figures],
    }
    command = shlex.join(["python", "-m", "bench.sync", *(sys.argv[1:] if argv is None else argv)])
    report = {"command": command, "machine": machine(), "runs": [result]}
    print(table(result), flush=True)
    (args.out / "sync-results.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "sync-results.md").write_text(markdown(report))
    print(f"written: {args.out / 'sync-results.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
