"""Reading a store's git history: the commits that changed store files (`log`), and objects' bytes (`read_objects`,
`tree_entries`), as plain records for the revisions (indexer/index/revision_rows.py) and for a commit of ours."""

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from indexer.git import GitError, popen, run


@dataclass(slots=True)
class FileChange:
    """One file a commit changed, as `git log --raw` shows it (paths relative to the top)."""

    status: str  # A, M, D, T, R, C for a commit with one parent; for a merge one letter per parent (MM, AM...)
    path: str
    old_path: str | None  # where a renamed or copied file came from
    blob: str | None  # the file's object after the commit (None when deleted)
    old_blob: str | None  # before it: against the first parent (None when added)
    mode: str  # after the commit (before it, when deleted)


@dataclass(slots=True)
class Commit:
    """A commit as the revisions read it (its lists filled as its log is read)."""

    commit: str
    side: str  # with --left-right: '<' only reachable from the left end, '>' from the right; else ''
    parents: list[str]
    committed_at: int  # seconds since the epoch
    author: str  # Name <email>
    subject: str
    trailer_values: list[str]  # of the trailer asked for
    changes: list[FileChange]


MARK = "\x01"  # starts each commit's header: log's own output never starts a field with it


def log(cwd: str | Path, revisions: list[str], pathspecs: list[str], trailer: str | None = None) -> list[Commit]:
    """Every commit `revisions` name (git log's syntax: `HEAD`, or `A...B` with each commit's side), parents before
    children, each with the files it changed under `pathspecs` (relative to `cwd`; commits that changed none are
    listed too, with none), renames found, and the values of `trailer`. A merge lists the files its result differs
    in from every parent (git's dense combined diff): what the merge itself wrote."""
    values = f"%(trailers:key={trailer},valueonly,separator=%x2C)" if trailer else ""
    fmt = f"{MARK}%m%H%x00%P%x00%ct%x00%an <%ae>%x00%s%x00{values}%x00"
    done = run(
        cwd, "log", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--no-color", "--root", "--raw", "-z",
        "--no-abbrev", "-M", "--diff-merges=dense-combined", "--topo-order", "--reverse", "--left-right",
        "--full-history", "--sparse",
        f"--format={fmt}", *revisions, "--", *pathspecs, text=False,
    )  # fmt: skip
    # a name or message that is not UTF-8 is shown with U+FFFD where its bytes were (the store's own files never are)
    return parse_log(done.stdout.decode("utf-8", "replace"))


def parse_log(output: str) -> list[Commit]:
    """`log`'s output as Commit records (see `log` for the format)."""
    tokens = output.split("\0")
    commits: list[Commit] = []
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip("\n")
        if token.startswith(MARK):
            side, rest = token[1], token[2:]
            if side not in "<>":  # not a --left-right log: %m is '>' there too, but be safe
                side, rest = "", token[1:]
            parents, seconds, author, subject, values = tokens[i + 1 : i + 6]
            commits.append(
                Commit(
                    commit=rest,
                    side=side,
                    parents=parents.split(),
                    committed_at=int(seconds),
                    author=author,
                    subject=subject,
                    trailer_values=[v.strip() for v in values.split(",") if v.strip()],
                    changes=[],
                )
            )
            i += 7  # the header's six fields and the empty one its last %x00 ends
        elif token.startswith(":") and commits:
            meta = token.lstrip(":").split()
            n = token.index(meta[0])  # one colon per parent
            modes, shas, status = meta[: n + 1], meta[n + 1 : 2 * n + 2], meta[-1]
            paths = 2 if status[0] in "RC" else 1
            old_path, path = (tokens[i + 1], tokens[i + 2]) if paths == 2 else (None, tokens[i + 1])
            new_mode, new_blob, old_blob = modes[-1], shas[-1], shas[0]
            deleted = set(new_blob) == {"0"}
            commits[-1].changes.append(
                FileChange(
                    status=status,
                    path=path,
                    old_path=old_path,
                    blob=None if deleted else new_blob,
                    old_blob=None if set(old_blob) == {"0"} else old_blob,
                    mode=modes[0] if deleted else new_mode,
                )
            )
            i += 1 + paths
        else:
            i += 1
    return commits


def commit_named(cwd: str | Path, name: str) -> str | None:
    """The commit `name` names (anything git names one by: a sha, a branch, `HEAD~2`), or None."""
    done = run(cwd, "rev-parse", "--verify", "-q", "--end-of-options", f"{name}^{{commit}}", check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def ancestors(cwd: str | Path, commit: str) -> set[str]:
    """`commit` and every commit in its history."""
    return set(run(cwd, "rev-list", commit).stdout.split())


def read_objects(cwd: str | Path, names: Iterable[str], limit: int | None = None) -> Iterator[tuple[str, bytes | None]]:
    """Each object `names` names (a sha, `REV:path`, or `:path` in the index), its id and its bytes, through one
    `git cat-file --batch`, in order; for a missing object the name as given and None, for one over `limit` bytes
    None (read and dropped: never held whole)."""
    import subprocess  # here: `check` imports the history with the revisions and runs no git (3 ms, python -X importtime)

    names = list(names)
    if not names:
        return
    child = popen(cwd, "cat-file", "--batch", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdin is not None and child.stdout is not None  # both are pipes

    def feed(stdin) -> None:  # on its own thread: the answers fill the other pipe meanwhile
        try:
            stdin.write("".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape"))
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    writer = threading.Thread(target=feed, args=(child.stdin,), daemon=True)
    writer.start()
    out = child.stdout
    try:
        for name in names:
            header = out.readline().decode("utf-8", "surrogateescape").split()
            if not header:
                raise GitError("git cat-file failed: it stopped answering")
            if header[-1] == "missing" or len(header) != 3:
                yield name, None
                continue
            size = int(header[2])
            data: bytes | None = out.read(size) if limit is None or size <= limit else None
            if data is None:
                _skip(out, size)
            out.read(1)  # the newline after each object
            yield header[0], data
    finally:
        out.close()
        child.wait()
        writer.join()


def _skip(out, size: int) -> None:
    """Read `size` bytes from `out` a megabyte at a time, keeping none."""
    while size > 0:
        chunk = out.read(min(size, 1 << 20))
        if not chunk:
            raise GitError("git cat-file failed: it stopped answering")
        size -= len(chunk)


def tree_entries(data: bytes, hash_bytes: int) -> dict[bytes, tuple[str, str]]:
    """A tree object's entries: name -> (mode, sha)."""
    entries: dict[bytes, tuple[str, str]] = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        end = nul + 1 + hash_bytes
        entries[data[space + 1 : nul]] = (data[at:space].decode(), data[nul + 1 : end].hex())
        at = end
    return entries
