"""Convergence (SPEC section 10): three hosts write, update, append, supersede, archive, delete and sync in any
interleaving through the real write path and real git; once everyone has synced (twice around), every host
holds the same files and its index gives the same answers, and nothing written is lost.

12 examples of up to 14 operations: about 8 s. Run once with 150 examples of up to 30 operations (90 s) and
80 of up to 14 (75 s), it found nothing more (an unborn branch with files of its own was its first find)."""

import tempfile
from pathlib import Path

import pytest
from fleet import fleet, git, isolate_git, markers
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import SCRATCH, SETTINGS

from indexer.edit.write_input import WriteRefused

HOSTS = 3
NAMES = ("chroma-port", "queue-lock", "redis-port")
WORDS = ["chroma", "queue", "redis", "port", "lock", "text"]
AS_OF = "2099-01-01T00:00:00Z"  # the briefing of a time every host agrees on

operation = st.one_of(
    st.tuples(st.just("write"), st.integers(0, HOSTS - 1), st.sampled_from(NAMES), st.booleans()),
    st.tuples(st.just("append"), st.integers(0, HOSTS - 1), st.sampled_from(NAMES)),
    st.tuples(st.just("supersede"), st.integers(0, HOSTS - 1), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("archive"), st.integers(0, HOSTS - 1), st.sampled_from(NAMES)),
    st.tuples(st.just("delete"), st.integers(0, HOSTS - 1), st.sampled_from(NAMES)),
    st.tuples(st.just("sync"), st.integers(0, HOSTS - 1)),
)


class Fleet:
    """The hosts, and what was written on them: ids, texts (each a unique word), what was deleted."""

    def __init__(self, folder: Path):
        self.hosts = fleet(folder, HOSTS)
        self.ids: set[str] = set()
        self.deleted: set[str] = set()
        self.texts: dict[str, int] = {}  # text -> the host that wrote it
        self.committed: set[str] = set()  # texts that a commit took (a write's own commit, or a sync's)
        self.counter = 0

    def text(self, host: int) -> str:
        self.counter += 1
        word = f"word{self.counter}x{host}"
        self.texts[word] = host
        return word

    def apply(self, op: tuple) -> None:
        kind, n = op[0], op[1]
        host = self.hosts[n]
        try:
            if kind == "write":
                body = self.text(n) if op[3] else None
                written = host.write(op[2], f"About {op[2]}: {self.text(n)}", body=body)
            elif kind == "append":
                written = host.append(op[2], self.text(n))
            elif kind == "supersede":
                written = host.write(op[3], f"Replaces {op[2]}: {self.text(n)}", supersedes=op[2])
            elif kind == "archive":
                written = host.archive(op[2])
            elif kind == "delete":
                written = host.delete(op[2])
                self.deleted.add(written.id)
            else:
                self.sync(n)
                return
        except WriteRefused:
            return  # a refusal is an answer too (an unknown name, an ambiguous one, a chain it would break)
        self.ids.add(written.id)
        self.note_committed(n)

    def note_committed(self, n: int) -> None:
        """The texts on host n's disk now, once a commit holds them (a write that commits, or the next sync)."""
        if git(self.hosts[n].top, "status", "--porcelain"):
            return  # not committed yet: the next sync commits what is on disk then
        on_disk = b"".join(self.hosts[n].files().values())
        self.committed |= {w for w, h in self.texts.items() if h == n and w.encode() in on_disk}

    def sync(self, n: int) -> None:
        host = self.hosts[n]
        on_disk = b"".join(host.files().values())
        self.committed |= {w for w, h in self.texts.items() if h == n and w.encode() in on_disk}
        host.sync()


@settings(SETTINGS, max_examples=12)
@given(st.lists(operation, min_size=1, max_size=14))
def test_every_host_converges_and_nothing_written_is_lost(operations):
    with pytest.MonkeyPatch.context() as monkeypatch, tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        isolate_git(monkeypatch, Path(tmp))
        world = Fleet(Path(tmp))
        for op in operations:
            world.apply(op)
        for n in list(range(HOSTS)) * 2:  # everyone syncs, twice around
            world.sync(n)
        hosts = world.hosts
        files = hosts[0].files()
        assert all(host.files() == files for host in hosts)
        assert markers(files) == []
        projects = ["fleet", "global"]
        answers = hosts[0].answers(WORDS, projects, AS_OF)
        assert all(host.answers(WORDS, projects, AS_OF) == answers for host in hosts[1:])
        on_disk = b"".join(files.values())
        assert {i for i in world.ids - world.deleted if i.encode() not in on_disk} == set()
        history = git(hosts[0].top, "log", "-p", "--all", "--format=%H")
        assert {w for w in world.committed if w not in history} == set()
        for host in hosts:
            assert not host.merging() and git(host.top, "status", "--porcelain") == ""
