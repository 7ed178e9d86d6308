"""`supersedes:` on every supersede, and the `supersession-fork` warning (SPEC section 10: forks)."""

import pytest

from indexer.edit.store_write import write_memory
from indexer.index.build import index_paths
from indexer.sqlite import sqlite3

X, Y, M = "01K00000000000000000000XXX", "01K00000000000000000000YYY", "01K00000000000000000000MMM"


def problems(store) -> list[tuple]:
    return store.rows("select path, line, severity, code, message from problems order by path")


def test_a_supersede_records_supersedes_after_superseded_by(store):
    old = write_memory(store.root, store.db_path, project="seamless", new_project=True, kind="decision", name="chroma-port-8000",
                       description="Chroma listens on 8000")  # fmt: skip
    new = write_memory(store.root, store.db_path, project="seamless", kind="decision", name="chroma-port",
                       description="Chroma listens on 8001", supersedes="chroma-port-8000")  # fmt: skip
    text = (store.root / new.path).read_text()
    assert f"invalid_at: null\nsuperseded_by: null\nsupersedes: {old.id}\nsource_session:" in text
    assert store.rows("select supersedes from memories where id = ?", (new.id,)) == [(old.id,)]
    # updated in place with --supersedes: the memory it replaced is recorded too
    other = write_memory(store.root, store.db_path, project="seamless", kind="gotcha", name="old-port",
                         description="Old port")  # fmt: skip
    again = write_memory(store.root, store.db_path, project="seamless", kind="decision", name="chroma-port",
                         description="Chroma listens on 8001 (and 8002)", supersedes="old-port")  # fmt: skip
    assert (again.action, again.id) == ("superseded", new.id)
    assert f"supersedes: {other.id}\n" in (store.root / new.path).read_text()
    assert problems(store) == []  # both ends agree: no fork


@pytest.mark.parametrize(
    ("x_fields", "expected"),
    [
        ({"invalid_at": "2026-07-11T00:00:00Z", "superseded_by": Y}, f"{X} names {Y} as its successor"),
        ({"invalid_at": "2026-07-11T00:00:00Z"}, f"{X} was archived without one"),
        ({"invalid_at": "2026-07-11T00:00:00Z", "superseded_by": M}, None),  # both ends agree
        ({}, None),  # X still active: a supersede not finished, which running it again completes
    ],
    ids=["other-successor", "archived", "agreeing", "unfinished"],
)
def test_a_memory_that_replaced_what_names_another_is_a_fork(store, x_fields, expected):
    store.memory("chroma-port-8000", id=X, **x_fields)
    store.memory("chroma-port-9000", id=Y, supersedes=X)
    store.memory("chroma-port", id=M, supersedes=X)
    store.index(full=True)
    found = [p for p in problems(store) if p[0] == "memories/seamless/chroma-port.md"]
    if expected is None:
        assert found == []
    else:
        ((_, line, severity, code, message),) = found
        assert (line, severity, code) == (15, "warning", "supersession-fork")
        assert message.startswith(f"supersedes {X}, but {expected}: both replaced it at once")


def test_a_fork_settled_or_made_by_a_change_elsewhere_is_seen_by_index_paths(store):
    store.memory("chroma-port-8000", id=X, invalid_at="2026-07-11T00:00:00Z", superseded_by=Y)
    store.memory("chroma-port-9000", id=Y, supersedes=X)
    store.memory("chroma-port", id=M, supersedes=X)
    store.index(full=True)
    assert [p[3] for p in problems(store)] == ["supersession-fork"]
    # X is pointed at M by hand: M's own file is untouched, and its fork is gone (Y's is there now)
    store.memory("chroma-port-8000", id=X, invalid_at="2026-07-11T00:00:00Z", superseded_by=M)
    index_paths(store.root, store.db_path, ["memories/seamless/chroma-port-8000.md"])
    assert [(p[0], p[3]) for p in problems(store)] == [("memories/seamless/chroma-port-9000.md", "supersession-fork")]
    # the fork's memory archived: settled
    store.memory("chroma-port-9000", id=Y, supersedes=X, invalid_at="2026-07-12T00:00:00Z")
    index_paths(store.root, store.db_path, ["memories/seamless/chroma-port-9000.md"])
    assert problems(store) == []
    # X deleted: nothing to compare with
    store.memory("chroma-port-8000", id=X, invalid_at="2026-07-11T00:00:00Z", superseded_by=Y)
    index_paths(store.root, store.db_path, ["memories/seamless/chroma-port-8000.md"])
    assert [p[0] for p in problems(store)] == ["memories/seamless/chroma-port.md"]
    (store.root / "memories/seamless/chroma-port-8000.md").unlink()
    index_paths(store.root, store.db_path, ["memories/seamless/chroma-port-8000.md"])
    assert problems(store) == []


def test_supersedes_must_be_a_ulid(store):
    store.memory("chroma-port", supersedes="chroma-port-8000")
    store.index(full=True)
    assert [p[3] for p in problems(store)] == ["malformed-id"]


def test_an_older_index_gets_the_new_column(store):
    store.memory("chroma-port", id=M, supersedes=X)
    store.index(full=True)
    with sqlite3.connect(store.db_path) as conn:
        conn.execute("drop index memories_supersedes")
        conn.execute("drop view gardener_proposals")  # (it lists forks by that column: an index of 12 had neither)
        conn.execute("alter table memories drop column supersedes")
        conn.execute("pragma user_version = 12")
    store.index()
    assert store.rows("select supersedes from memories") == [(X,)]


async def test_the_home_page_lists_forks_and_concurrent_edits(store):
    from test_explorer import started

    store.memory("chroma-port-8000", id=X, invalid_at="2026-07-11T00:00:00Z", superseded_by=Y)
    store.memory("chroma-port-9000", id=Y, supersedes=X)
    store.memory("chroma-port", id=M, supersedes=X)
    store.memory("queue-lock", id="01K00000000000000000000QQQ", updated="2026-07-10T18:00:00Z")
    store.index(full=True)
    with sqlite3.connect(store.db_path) as conn:  # as seamless sync records a merge commit's trailer
        conn.execute(
            "insert into concurrent_edits values ('0123456789abcdef', '2026-07-12T00:00:00Z', "
            "'01K00000000000000000000QQQ')"
        )
    ds = await started(store.db_path)
    html = (await ds.client.get("/")).text
    needs = html.split('<section class="needs-human"')[1].split("</section>")[0]
    forks = needs.split("Replaced twice at once")[1]  # (the gardener's proposals above may name chroma-port too)
    assert forks.index(">chroma-port</a>") < forks.index("Edited on two hosts")
    assert f"supersedes {X}, but {X} names {Y} as its successor" in needs
    assert needs.index("Edited on two hosts") < needs.index(">queue-lock</a>")
    assert "merged 2026-07-12T00:00:00Z (commit 0123456789ab)" in needs
    # written again since that merge: seen to
    store.memory("queue-lock", id="01K00000000000000000000QQQ", updated="2026-07-13T00:00:00Z")
    store.index()
    assert ">queue-lock</a>" not in (await ds.client.get("/")).text
