"""The explorer over a store in git (SPEC section 10): a memory's page shows its revisions, each diffed against the
one before and sanitised, so what an in-place update replaced stays in view."""

import pytest
from gitstores import git, init, isolate, seamless, write

from indexer.front.serve import build_datasette


@pytest.fixture
def repo(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    init(store.root)
    return store


async def page(db_path, path: str) -> str:
    """The explorer's answer to `path`, configured as `seamless serve` configures it."""
    ds = build_datasette(db_path)
    await ds.invoke_startup()
    response = await ds.client.get(path)
    assert response.status_code == 200, response.text[:500]
    return response.text


def section(html: str, name: str) -> str:
    return html.split(f'<section class="{name}"')[1].split("</section>")[0]


async def test_an_in_place_updates_old_text_stays_in_view_sanitised(repo):
    first = write(repo, "chroma-port", "Chroma listens on 8000", "--body", "Use port 8000. <script>alert(1)</script>")
    write(repo, "chroma-port", "Chroma listens on 8001", "--body", "Use port 8001.")
    seamless(
        repo, "append", repo.root, "chroma-port", "--project", "seamless", "--text", "<img src=x onerror=alert(2)>"
    )
    commits = git(repo.root, "log", "--reverse", "--format=%H", "--", "memories").split()
    html = await page(repo.db_path, f"/seamless/memories/{first['id']}")
    shown = section(html, "revisions")
    items = shown.split('<li class="revision')[1:]
    assert [item.split('"', 1)[0] for item in items] == [" change-added", " change-modified", " change-modified"]
    for item, commit in zip(items, commits):
        assert f'title="{commit}">{commit[:12]}</code>' in item
    assert "Its first version." in items[0]
    updated = items[1]
    assert "update chroma-port (" in updated and "Ada Lovelace &lt;ada@example.com&gt;" in updated
    assert "description: Chroma listens on <del>8000</del><ins>8001</ins>" in updated
    assert "Use port <del>8000. &lt;script&gt;alert(1)&lt;/script&gt;</del><ins>8001.</ins>" in updated
    assert "<ins>\n&lt;img src=x onerror=alert(2)&gt;\n</ins>" in items[2]
    assert "<script>alert" not in html and "<img src=x" not in html
    assert '<a href="/seamless/revisions?id=' in shown


async def test_a_memory_of_a_store_not_in_git_has_no_revisions_section(store):
    store.memory("plain")
    store.index()
    html = await page(store.db_path, "/seamless/memories/01K00000000000000000000001")
    assert 'class="revisions"' not in html


def commit_as(store, name: str, message: str) -> None:
    email = f"{name.lower()}@example.com"
    who = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    git(store.root, "add", "-A")
    git(store.root, "commit", "-qm", message, env=who)


def ulid(n: int) -> str:
    return f"01K00000000000000000000{n:03d}"


@pytest.fixture
def attributed(repo):
    """Ada commits three memories (two by model m1, one by m2); Bob three more (a refutation, a replacement, and one
    naming no model), then edits one of Ada's: its first version, and so its author, stays Ada's."""
    day = lambda d: f"2026-01-{d:02d}T00:00:00Z"  # noqa: E731
    repo.memory("a1", id=ulid(1), model="m1", created=day(1), invalid_at=day(11), superseded_by=ulid(4))
    repo.memory("a2", id=ulid(2), model="m1", created=day(1), invalid_at=day(3))
    repo.memory("a3", id=ulid(3), model="m2", created=day(1), invalid_at=day(5), superseded_by=ulid(5))
    commit_as(repo, "Ada", "Ada's three")
    repo.memory("r1", id=ulid(4), model="m2", created=day(11), kind="refuted")
    repo.memory("b1", id=ulid(5), model="m1", created=day(5))
    repo.memory("b2", id=ulid(6), model=None, created=day(6))
    commit_as(repo, "Bob", "Bob's three")
    path = repo.root / "memories/seamless/a1.md"
    path.write_text(path.read_text() + "Bob was here.\n")
    commit_as(repo, "Bob", "Bob edits a1")
    repo.index()
    return repo


# Worked out by hand from the fixture: m1 wrote a1, a2 and b1; a1 was superseded after 10 days by r1, a refutation,
# and a2 archived. m2 wrote a3 and r1; a3 was superseded after 4 days by b1, a gotcha. Ada wrote a1, a2 and a3: two
# superseded (after 10 and 4 days: a median of 7), one archived, one refuted. Bob wrote r1, b1 and b2, all standing.
ATTRIBUTION = [
    {"by": "model", "who": "m1", "written": 3, "superseded": 1, "archived": 1, "refuted": 1,
     "median_days_to_superseded": 10.0},
    {"by": "model", "who": "m2", "written": 2, "superseded": 1, "archived": 0, "refuted": 0,
     "median_days_to_superseded": 4.0},
    {"by": "author", "who": "Ada <ada@example.com>", "written": 3, "superseded": 2, "archived": 1, "refuted": 1,
     "median_days_to_superseded": 7.0},
    {"by": "author", "who": "Bob <bob@example.com>", "written": 3, "superseded": 0, "archived": 0, "refuted": 0,
     "median_days_to_superseded": None},
]  # fmt: skip


async def test_attribution_per_model_and_per_author_as_query_view_and_page(attributed):
    from indexer.query import queries
    from indexer.sqlite import sqlite3

    with sqlite3.connect(attributed.db_path) as conn:
        assert queries.run(conn, "attribution") == ATTRIBUTION
        assert queries.rows(conn, "select * from attribution") == ATTRIBUTION
    response = await ds_get(attributed.db_path, "/seamless/attribution.json?_shape=array")
    assert response.json() == ATTRIBUTION
    html = await page(attributed.db_path, "/-/attribution")
    by_model = section(html, "attribution")
    assert 'class="attribution" aria-labelledby="attribution-1"' in html  # models first
    rows = html.split("<tbody>")[2].split("</tbody>")[0]
    assert (
        "Ada &lt;ada@example.com&gt;</a></th>\n    <td>3</td><td>2</td><td>1</td><td>1</td>\n    <td>7.0</td>" in rows
    )
    assert "Bob &lt;bob@example.com&gt;</a></th>\n    <td>3</td><td>0</td><td>0</td><td>0</td>\n    <td>—</td>" in rows
    assert "m1</a></th>\n    <td>3</td><td>1</td><td>1</td><td>1</td>\n    <td>10.0</td>" in by_model
    assert 'href="/-/attribution"' in await page(attributed.db_path, "/")


async def ds_get(db_path, path: str):
    ds = build_datasette(db_path)
    await ds.invoke_startup()
    return await ds.client.get(path)


async def test_attribution_over_the_time_limit_says_so_instead_of_failing(attributed):
    ds = build_datasette(attributed.db_path)
    await ds.invoke_startup()
    ds.sql_time_limit_ms = 0  # every query is over it
    response = await ds.client.get("/-/attribution")
    assert response.status_code == 200
    assert "Counting took longer than the explorer's time limit" in response.text and "<table>" not in response.text
