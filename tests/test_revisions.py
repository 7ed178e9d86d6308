"""The store's git history in the index (SPEC section 10), against real repositories: the `revisions` table read
incrementally and again after a rewritten history, renames followed, merges' concurrent-edit trailers, and
`seamless history X --revisions` and `seamless show X --at` through the command line."""

import json

import pytest
from gitstores import AUTHOR, git, init, isolate, seamless, write

from indexer.index import revisions
from indexer.index.database import open_db


@pytest.fixture
def repo(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    init(store.root)
    return store


def commit_all(store, message: str, when: str | None = None) -> str:
    """Commit every change of the work tree, by hand (at the time `when`, if given)."""
    git(store.root, "add", "-A")
    dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when} if when else None
    git(store.root, "commit", "-qm", message, env=dates)
    return git(store.root, "rev-parse", "HEAD").strip()


def table(store) -> list[tuple]:
    return store.rows('select "commit", message, path, id, change, old_path from revisions order by generation, path')


def test_each_write_is_a_revision_of_its_memory_oldest_first(repo):
    first = write(repo, "chroma-port-8000", "Chroma listens on 8000")
    write(repo, "chroma-port-8000", "Chroma listens on 8000, in docker too")
    new = write(repo, "chroma-port", "Chroma listens on 8001", "--supersedes", first["id"])
    commits = git(repo.root, "log", "--reverse", "--format=%H", "--", "memories").split()
    assert table(repo) == [
        (commits[0], f"write chroma-port-8000 ({first['id']})", "memories/seamless/chroma-port-8000.md",
         first["id"], "added", None),
        (commits[1], f"update chroma-port-8000 ({first['id']})", "memories/seamless/chroma-port-8000.md",
         first["id"], "modified", None),
        (commits[2], f"supersede chroma-port-8000 -> chroma-port ({new['id']})", "memories/seamless/chroma-port-8000.md",
         first["id"], "modified", None),
        (commits[2], f"supersede chroma-port-8000 -> chroma-port ({new['id']})", "memories/seamless/chroma-port.md",
         new["id"], "added", None),
    ]  # fmt: skip
    assert repo.rows("select distinct author from revisions") == [(AUTHOR,)]
    # the texts of a memory with more than one revision are kept for the explorer; a lone revision's are not
    kept = {row[0] for row in repo.rows("select blob from revision_texts")}
    assert kept == {row[0] for row in repo.rows("select blob from revisions where id = ?", (first["id"],))}

    listed = json.loads(seamless(repo, "history", first["id"], "--revisions", "--json").stdout)
    assert [(r["commit"], r["change"], r["author"]) for r in listed] == [
        (commits[0], "added", AUTHOR),
        (commits[1], "modified", AUTHOR),
        (commits[2], "modified", AUTHOR),
    ]
    assert set(listed[0]) == {"commit", "committed_at", "author", "message", "change", "path"}
    text = seamless(repo, "history", "chroma-port-8000", "--project", "seamless", "--revisions").stdout.splitlines()
    assert text[0].split() == ["commit", "committed_at", "author", "change", "message"]
    assert text[1].startswith(commits[0][:12]) and text[1].endswith(f"write chroma-port-8000 ({first['id']})")


def test_only_new_commits_are_read_and_nothing_new_costs_one_look_at_head(repo):
    write(repo, "one")
    # a mark on the rows already read: a run that read them again would put git's author back
    with open_db(repo.db_path) as db:
        db.execute("update revisions set author = 'read before'")
    repo.index()
    assert repo.rows("select author from revisions") == [("read before",)]
    write(repo, "two")
    assert repo.rows("select author from revisions order by generation") == [("read before",), (AUTHOR,)]
    repo.index(full=True)  # a full run reads the whole history again
    assert repo.rows("select distinct author from revisions") == [(AUTHOR,)]


def test_a_rewritten_history_is_read_again(repo):
    write(repo, "one")
    kept = git(repo.root, "rev-parse", "HEAD").strip()
    write(repo, "two", "The first words")
    git(repo.root, "commit", "-q", "--amend", "-m", "two, amended")
    repo.index()
    assert [row[:2] for row in table(repo)] == [
        (kept, f"write one ({repo.rows('select id from memories where name = ?', ('one',))[0][0]})"),
        (git(repo.root, "rev-parse", "HEAD").strip(), "two, amended"),
    ]
    git(repo.root, "reset", "-q", "--hard", kept)
    repo.index()
    assert [row[0] for row in table(repo)] == [kept]
    assert repo.rows("select count(*) from revision_commits") == [(len(git(repo.root, "rev-list", kept).split()),)]


def test_a_recorded_head_git_no_longer_has_reads_everything_again(repo):
    write(repo, "one")
    write(repo, "two")
    git(repo.root, "reset", "-q", "--hard", "HEAD~1")
    git(repo.root, "reflog", "expire", "--expire=now", "--all")
    git(repo.root, "gc", "-q", "--prune=now")
    write(repo, "three")
    with open_db(repo.db_path) as db:  # as if the last run had read the commit gc just removed
        db.execute("update index_meta set value = ? where key = ?", ("1" * 40, revisions.HEAD_KEY))
    repo.index()
    assert [row[2] for row in table(repo)] == ["memories/seamless/one.md", "memories/seamless/three.md"]


def test_renames_are_followed_and_a_reused_path_keeps_each_memorys_rows(repo):
    moved = write(repo, "moved")
    git(repo.root, "mv", "memories/seamless/moved.md", "memories/seamless/elsewhere.md")
    commit_all(repo, "move it")  # by hand: the index still has it at its old path
    gone = write(repo, "gone")
    seamless(repo, "delete", repo.root, gone["id"])
    again = write(repo, "gone", "A different memory at the same path")
    assert [row[2:] for row in table(repo)] == [
        ("memories/seamless/moved.md", moved["id"], "added", None),
        ("memories/seamless/elsewhere.md", moved["id"], "renamed", "memories/seamless/moved.md"),
        ("memories/seamless/gone.md", gone["id"], "added", None),
        ("memories/seamless/gone.md", gone["id"], "deleted", None),
        ("memories/seamless/gone.md", again["id"], "added", None),
    ]
    before_move = git(repo.root, "rev-parse", "HEAD~4").strip()
    shown = seamless(repo, "show", moved["id"], "--at", before_move).stdout
    assert shown == git(repo.root, "show", f"{before_move}:memories/seamless/moved.md")
    assert seamless(repo, "show", "moved").stdout == (repo.root / "memories/seamless/elsewhere.md").read_text()
    deleted = seamless(repo, "show", gone["id"], ok=False).output
    assert "not in the store now (deleted)" in deleted
    assert "was deleted at HEAD~1" in seamless(repo, "show", gone["id"], "--at", "HEAD~1", ok=False).output
    assert seamless(repo, "show", gone["id"], "--at", "HEAD~2").stdout.startswith(f"---\nid: {gone['id']}\n")


def test_show_at_a_time_and_the_errors_of_show(repo):
    repo.memory("timed", body="The first words.")
    first = commit_all(repo, "first", "2026-01-01T10:00:00Z")
    path = repo.root / "memories/seamless/timed.md"
    path.write_text(path.read_text().replace("The first words.", "The second words."))
    commit_all(repo, "second", "2026-02-01T10:00:00Z")
    repo.index()
    at = lambda when: seamless(repo, "show", "timed", "--at", when).stdout  # noqa: E731
    assert repo.rows("select committed_at from revisions order by generation") == [
        ("2026-01-01T10:00:00Z",),
        ("2026-02-01T10:00:00Z",),
    ]
    assert "The first words." in at("2026-01-01T10:00:00Z") and "The first words." in at("2026-01-31")
    assert "The first words." in at(first) and "The first words." in at(first[:10])
    assert "The second words." in at("2026-02-01T11:00:00+01:00") and "The second words." in at("HEAD")
    assert (
        "did not exist yet at 2000-01-01: its first revision is"
        in seamless(repo, "show", "timed", "--at", "2000-01-01", ok=False).output
    )
    assert (
        "neither a commit of the store's repository nor an ISO 8601 time"
        in seamless(repo, "show", "timed", "--at", "not-a-thing", ok=False).output
    )
    assert "no memory is named 'nothing'" in seamless(repo, "show", "nothing", ok=False).output
    assert "no memory or note has the id" in seamless(repo, "show", "01K" + "0" * 23, ok=False).output


def test_a_store_in_no_work_tree_has_no_revisions(store, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    store.memory("plain")
    store.index()
    assert store.rows("select count(*) from revisions") == [(0,)]
    assert "not in a git work tree" in seamless(store, "show", "plain", "--at", "HEAD", ok=False).output
    result = seamless(store, "history", "plain", "--revisions")
    assert "has no revisions: its file was never committed" in result.stderr
    assert seamless(store, "show", "plain").stdout == (store.root / "memories/seamless/plain.md").read_text()


def test_the_history_goes_when_the_work_tree_does(repo):
    write(repo, "one")
    assert repo.rows("select count(*) from revisions") == [(1,)]
    git(repo.root, "init", "-q", "--separate-git-dir", str(repo.root.parent / "moved.git"))
    (repo.root / ".git").unlink()  # the store is in no work tree any more
    repo.index()
    assert repo.rows("select count(*) from revisions") == [(0,)]


def test_a_merge_records_what_it_wrote_and_its_concurrent_edit_trailers(repo):
    a = write(repo, "both-sides", "Base description")
    base = git(repo.root, "rev-parse", "HEAD").strip()
    git(repo.root, "checkout", "-q", "-b", "other")
    path = repo.root / "memories/seamless/both-sides.md"
    path.write_text(path.read_text().replace("Body.", "") + "Their line.\n")
    commit_all(repo, "theirs")
    git(repo.root, "checkout", "-q", "main")
    path.write_text(path.read_text().replace("description: Base description", "description: Our description"))
    commit_all(repo, "ours")
    git(repo.root, "merge", "-q", "--no-ff", "other", "-m", f"merge\n\nSeamless-Concurrent-Edit: {a['id'].lower()}")
    merge = git(repo.root, "rev-parse", "HEAD").strip()
    repo.index()
    assert repo.rows('select "commit", id from concurrent_edits') == [(merge, a["id"])]
    assert repo.rows('select change from revisions where "commit" = ?', (merge,)) == [("modified",)]
    history = [
        row[0] for row in repo.rows("select message from revisions where id = ? order by generation", (a["id"],))
    ]
    assert history[0].startswith("write both-sides") and history[-1] == "merge"
    assert sorted(history[1:3]) == ["ours", "theirs"]
    git(repo.root, "reset", "-q", "--hard", base)
    repo.index()
    assert repo.rows("select count(*) from concurrent_edits") == [(0,)]


@pytest.mark.parametrize(
    "text, found",
    [
        (b"---\nid: 01K00000000000000000000001\nkind: gotcha\n---\nbody\n", "01K00000000000000000000001"),
        (
            b"\xef\xbb\xbf---\r\nkind: x\r\nid: '01k00000000000000000000001'  # a comment\r\n---\r\n",
            "01K00000000000000000000001",
        ),
        (b"---\nkind: x\n---\nid: 01K00000000000000000000001\n", None),  # in the body, not the frontmatter
        (b"id: 01K00000000000000000000001\n", None),  # no frontmatter
        (b"---\nid: not-a-ulid-at-all-but-26-ch\n---\n", None),
    ],
)
def test_a_files_id_is_read_from_its_frontmatter_without_yaml(text, found):
    from indexer.store.rules import frontmatter_id

    assert frontmatter_id(text) == found


def test_a_file_name_that_is_not_utf8_does_not_stop_a_run(repo):
    folder = repo.root / "memories" / "seamless"
    folder.mkdir(parents=True)
    with open(bytes(folder) + b"/caf\xe9.md", "wb") as f:
        f.write(b"---\nid: 01K00000000000000000000009\n---\nbody\n")
    repo.memory("fine")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "a name that is not UTF-8")
    assert repo.index().memories == 1  # the walk reports the other file, unread
    assert repo.rows("select path from revisions") == [("memories/seamless/fine.md",)]
