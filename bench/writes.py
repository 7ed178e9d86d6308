"""One write on a generated store: a new memory, and a supersede, in-process and as a whole `seamless write`.

Each figure includes the index update (and, for a new memory, the similar-memories query). The store
is a cached one: every file written is removed and every file stamped restored (bytes and mtime)
afterwards, and the index brought back in step.
"""

import os
from pathlib import Path

from indexer.index.build import index_store
from indexer.sqlite import sqlite3

from .generate import PROJECTS


def write_figures(store: Path, db: Path, repeat: int, figure, run, seamless: str, timed_cpu, median) -> list:
    """The four write figures, as `figure(key, label, unit, value, cpu=...)` of bench.measure."""
    project = PROJECTS[0]
    conn = sqlite3.connect(db)
    targets = conn.execute(
        "select id, path from memories where status = 'active' and project = ? order by id limit ?",
        (project, 2 * repeat),
    ).fetchall()
    conn.close()
    originals = {path: ((store / path).read_bytes(), (store / path).stat()) for _, path in targets}
    created: list[Path] = []

    def args(n: int, kind: str, supersedes: str | None) -> list[str]:
        extra = ["--supersedes", supersedes] if supersedes else []
        return ["write", str(store), "--project", project, "--kind", "gotcha", "--name", f"bench-{kind}-{n}",
                "--description", f"Benchmark {kind} {n}: a one-line description", "--db", str(db), *extra]  # fmt: skip

    def in_process(n: int, kind: str, supersedes: str | None):
        from indexer.edit.store_write import write_memory

        written = write_memory(
            store,
            db,
            project=project,
            kind="gotcha",
            name=f"bench-{kind}-{n}",
            description=f"Benchmark {kind} {n}: a one-line description",
            supersedes=supersedes,
        )
        created.append(store / written.path)

    try:
        new_in = [timed_cpu(in_process, n, "new-in", None) for n in range(repeat)]
        new_runs = [run([seamless, *args(n, "new", None)]) for n in range(repeat)]
        created += sorted(store.glob("memories/*/bench-new-*.md"))
        sup_in = [timed_cpu(in_process, n, "sup-in", targets[n][0]) for n in range(repeat)]
        sup_runs = [run([seamless, *args(n, "sup", targets[repeat + n][0])]) for n in range(repeat)]
        created += sorted(store.glob("memories/*/bench-sup-*.md"))
    finally:
        for path in created:
            path.unlink(missing_ok=True)
        for path, (data, stat) in originals.items():
            (store / path).write_bytes(data)
            os.utime(store / path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        index_store(store, db)

    def whole(runs):
        return median(r.seconds for r in runs), median(r.cpu for r in runs)

    wall_new, cpu_new = whole(new_runs)
    wall_sup, cpu_sup = whole(sup_runs)
    note = "includes the index update; a new memory also its similar-memories query"
    return [
        figure("write_in", "write a new memory, in-process", "s", median(w for w, _ in new_in),
               cpu=median(c for _, c in new_in), note=note),
        figure("write", "write a new memory, whole process", "s", wall_new, cpu=cpu_new, note=note),
        figure("supersede_in", "supersede a memory, in-process", "s", median(w for w, _ in sup_in),
               cpu=median(c for _, c in sup_in), note=note),
        figure("supersede", "supersede a memory, whole process", "s", wall_sup, cpu=cpu_sup, note=note),
    ]  # fmt: skip
