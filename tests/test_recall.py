"""Recall (SPEC section 4): FTS5 with bm25 over the memories valid now and the notes."""

import contextlib
import itertools

import pytest

from indexer.query import queries
from indexer.sql import canned, shared


def recall(store, q, project=None) -> list[dict]:
    return queries.recall(store.db_path, q, project=project)


def names(rows) -> list[str]:
    return [r["name"] or r["title"] for r in rows]


def test_a_description_hit_ranks_above_a_body_only_hit(store):
    store.memory("body-only", description="Something about queues", body="The chroma server races at boot.")
    store.memory("in-description", description="Chroma boot race: wait for the heartbeat", body="Details.")
    store.index()
    assert names(recall(store, "chroma")) == ["in-description", "body-only"]


def test_a_note_title_ranks_above_a_note_body(store):
    store.note("seamless/a.md", "# Meeting summary\n\nWe talked about vectors and chroma.\n")
    store.note("seamless/b.md", "# Chroma research\n\nFindings.\n")
    store.index()
    rows = recall(store, "chroma")
    assert [r["title"] for r in rows] == ["Chroma research", "Meeting summary"]
    assert {r["type"] for r in rows} == {"note"}
    assert [rows[1]["snippet"][a:b] for a, b in rows[1]["highlights"]] == ["chroma"]


def test_memories_and_notes_come_back_together_ranked(store):
    store.memory("port-gotcha", description="Datasette port 8001 collides with chroma")
    store.note("seamless/ports.md", "---\ntitle: Ports in use\nproject: seamless\n---\nchroma 8765, datasette 8001\n")
    store.index()
    rows = recall(store, "datasette")
    assert [r["type"] for r in rows] == ["memory", "note"] or [r["type"] for r in rows] == ["note", "memory"]
    assert rows == sorted(rows, key=lambda r: r["rank"])
    note = next(r for r in rows if r["type"] == "note")
    assert (note["id"], note["path"], note["project"]) == (
        "notes/seamless/ports.md",
        "notes/seamless/ports.md",
        "seamless",
    )


def test_words_are_stemmed_and_any_may_match_the_most_first(store):
    store.memory("boot-race", description="Chroma races at boot")
    store.memory("other", description="Chroma is embedded")
    store.index()
    assert names(recall(store, "race")) == ["boot-race"]
    assert names(recall(store, "chroma boot")) == ["boot-race", "other"]
    assert names(recall(store, "embed*")) == ["other"]


def test_all_requires_every_word_as_before(store):
    store.memory("boot-race", description="Chroma races at boot")
    store.memory("other", description="Chroma is embedded")
    store.index()
    assert names(queries.run(store.db_path, "recall", q="chroma boot", all="1")) == ["boot-race"]  # the canned query's
    assert names(queries.recall(store.db_path, "the chroma", every=True)) == []  # stop words too: every word
    assert names(queries.recall(store.db_path, "chroma-boot", every=True)) == []  # an identifier whole


def test_fts5_syntax_is_searched_as_plain_words(store):
    store.memory("not-gotcha", description="Refuted: the gardener does NOT leak file descriptors")
    store.memory("colon", description="Use name:value pairs in tags")
    store.index()
    assert names(recall(store, "NOT")) == ["not-gotcha"]
    assert names(recall(store, "name:value")) == ["colon"]
    assert names(recall(store, '"leak')) == ["not-gotcha"]


def test_invalid_memories_never_come_back(store):
    new = store.memory("chroma-embedded", description="Chroma is embedded", created="2026-07-10T18:00:00Z")
    store.memory(
        "chroma-port-8001",
        description="Chroma on port 8001",
        invalid_at="2026-07-10T18:00:00Z",
        superseded_by=new["id"],
    )
    store.memory("chroma-archived", description="Chroma notes from a spike", invalid_at="2026-07-01T00:00:00Z")
    store.index()
    assert names(recall(store, "chroma")) == ["chroma-embedded"]
    assert recall(store, "8001") == []


def test_valid_matches_ranked_below_many_invalid_ones_still_come_back(store):
    # With no project, recall first ranks only the best few hundred matches; when too few of those are
    # valid it ranks every valid match instead.
    for i in range(210):
        store.memory(f"old-chroma-{i}", description="Chroma chroma chroma", invalid_at="2026-07-01T00:00:00Z")
    for i in range(3):
        store.memory(f"current-{i}", description="Something else", body="A word on chroma. " + "Padding. " * i)
    store.index()
    assert names(recall(store, "chroma")) == ["current-0", "current-1", "current-2"]
    assert names(queries.recall(store.db_path, "chroma", limit=2)) == ["current-0", "current-1"]


def test_what_replaced_a_superseded_match(store):
    newest = store.memory("chroma-embedded", description="Chroma is embedded", created="2026-07-10T18:00:00Z")
    middle = store.memory(
        "chroma-port-8765",
        description="Chroma on port 8765",
        invalid_at="2026-07-10T18:00:00Z",
        superseded_by=newest["id"],
    )
    store.memory(
        "chroma-port-8001",
        description="Chroma on port 8001",
        invalid_at="2026-06-01T00:00:00Z",
        superseded_by=middle["id"],
    )
    store.index()
    rows = queries.recall_superseded(store.db_path, "port")
    assert [(r["id"], r["name"]) for r in rows] == [(newest["id"], "chroma-embedded")]
    assert sorted(rows[0]["replaces"].split(", ")) == ["chroma-port-8001", "chroma-port-8765"]


def test_project_limits_to_that_project_plus_global(store):
    store.memory("seamless-one", description="chroma in seamless", project="seamless")
    store.memory("tidepool-one", description="chroma in tidepool", project="tidepool")
    store.memory("global-one", description="chroma everywhere", project=None)
    store.note("tidepool/n.md", "---\nproject: tidepool\n---\n# Chroma for tidepool\n")
    store.note("_global/n.md", "# Chroma in general\n")
    store.index()
    assert sorted(names(recall(store, "chroma", "seamless"))) == ["Chroma in general", "global-one", "seamless-one"]
    assert len(recall(store, "chroma", "")) == 5  # '' (Datasette's missing parameter): every project
    assert sorted(names(recall(store, "chroma", "global"))) == ["Chroma in general", "global-one"]


def test_limit_keeps_the_best(store):
    for i in range(5):
        store.memory(f"m-{i}", description="chroma " + "word " * i)
    store.index()
    best = queries.recall(store.db_path, "chroma", limit=2)
    assert best == recall(store, "chroma")[:2]


@pytest.mark.parametrize(
    "limit, max_rows",
    [
        (None, 20),
        ("", 20),
        ("5", 5),
        (5, 5),
        (" 7 ", 7),
        ("0", 0),
        ("100", 100),
        ("500", 100),
        ("9" * 30, 100),
        ("-3", 20),
        ("ten", 20),
        ("2.5", 20),
    ],
)
def test_limit_is_how_many_results_at_most_100_and_20_when_missing_or_unreadable(limit, max_rows):
    # the CLI sends an integer; Datasette a string, '' when the form's field is empty
    from indexer.sqlite import sqlite3

    with sqlite3.connect(":memory:") as conn:
        (got,) = conn.execute(
            f"WITH recall_params AS ({canned.RECALL_PARAMS}) SELECT max_rows FROM recall_params",
            {"q": "x", "project": "", "limit": limit, "as_of": "", "all": ""},
        ).fetchone()
    assert got == max_rows


@pytest.mark.parametrize("project", ["", "seamless"])
@pytest.mark.parametrize("sql", [queries.QUERIES["recall"], canned.RECALL_SUPERSEDED], ids=["recall", "superseded"])
def test_recall_reads_the_matches_once_and_joins_rows_to_them(example_db, sql, project):
    # The full-text index drives every join (a table looked up by project first, then matched row by row,
    # made recall with a project take 560 ms instead of 100 at 100k on SQLite 3.51), and each ranked arm
    # is computed once (3.51 inlined one used twice). memories_fts is matched by the best-matches arm and
    # the arm over the scope; notes_fts by its two arms; the rest are snippets, matched by rowid.
    conn, _ = queries.connect(example_db)
    try:
        params = {"q": "chroma", "project": project, "limit": 5, "superseded_limit": 5, "as_of": "", "all": ""}
        plan = [row[3] for row in conn.execute("explain query plan " + sql, params)]
    finally:
        conn.close()
    assert not [step for step in plan if "_project" in step], plan  # no index on project drives a join
    full_text = [step for step in plan if "VIRTUAL TABLE INDEX 0:M" in step]  # a MATCH, not by rowid
    # two more: the rows that hold each term (`matched`), memories and notes; the superseded query ranks recall's
    # results (to tell only old truths that rank among them), then its own, with the terms each holds
    assert full_text and len(full_text) <= (6 if sql == queries.QUERIES["recall"] else 8), plan


@pytest.mark.parametrize("sql", [canned.RECALL_SUPERSEDED, canned.RECALL_SUPERSEDED_SHOWN], ids=["cli", "page"])
def test_the_old_truths_pass_over_a_match_that_was_never_superseded_without_reading_its_row(example_db, sql):
    # a common word matches half the store: reading every match's row to find the superseded ones was most of the
    # recall page's time at 100,000 memories; their rowids come from the partial index instead
    params = {"q": "chroma", "project": "", "limit": 5, "as_of": "", "all": "", "superseded_limit": 5, "shown_rows": 0}
    conn, _ = queries.connect(example_db)
    try:
        plan = [row[3] for row in conn.execute("explain query plan " + sql, params | {"shown_worst": None})]
    finally:
        conn.close()
    assert "SEARCH memories USING COVERING INDEX memories_superseded_by (superseded_by>?)" in plan, plan


def test_only_old_truths_that_rank_among_the_results_are_told(store):
    """recall_superseded tells what replaced an old match only if that match would have been shown."""
    new = store.memory("widget-now", description="Widget fact, current")
    store.memory("widget-also", description="Widget fact, also current")
    store.memory(
        "widget-then",
        description="Something old",
        body="Text. " * 300 + "widget",  # a weak match: ranked last
        invalid_at="2026-07-01T00:00:00Z",
        superseded_by=new["id"],
    )
    store.index()
    told = [r["replaces"] for r in queries.recall_superseded(store.db_path, "widget", limit=20)]
    assert told == ["widget-then"]  # recall gave fewer rows than it could: every match was shown
    assert queries.recall_superseded(store.db_path, "widget", limit=2) == []  # the two current ones fill it
    assert [r["replaces"] for r in queries.recall_superseded(store.db_path, "something old", limit=1)] == [
        "widget-then"
    ]


def test_old_truths_told_from_the_rows_shown_are_those_recall_would_tell(example_db):
    """The CLI hands recall_superseded the rows recall gave it (as the recall page does): the same answers as
    ranking recall's matches again, for any query (one naming a time among them), limit, scope and time."""
    from indexer.sqlite import sqlite3

    told = 0
    with contextlib.closing(sqlite3.connect(example_db)) as conn:
        # the last three name a time: recall's ranks then hold its time bonus, the old truths' do not
        for q in (
            "chroma port",
            "port",
            "chroma",
            "postgres",
            "the",
            "port last week",
            "chroma in 2026",
            "port yesterday",
        ):
            for limit, project, as_of, every in itertools.product(
                (1, 3, 20), (None, "seamless"), (None, "2026-01-01T00:00:00Z"), (False, True)
            ):
                given = {"project": project, "limit": limit, "as_of": as_of, "every": every}
                again = queries.recall_superseded(conn, q, **given)
                shown = queries.recall(conn, q, **given)
                assert queries.recall_superseded(conn, q, shown=shown, **given) == again, (q, given)
                told += len(again)
    assert told  # some old truths were told


@pytest.mark.parametrize("copies", [30, 260])  # 260: a run of equal ranks longer than the best matches ranked first
def test_equal_ranks_come_back_by_id_whatever_order_the_index_was_written_in(store, tmp_path, copies):
    """Two hosts with the same files give the same answer (SPEC section 10): rowids differ, ids do not."""
    from indexer.index.build import index_paths, index_store

    paths = []
    for n in range(copies):
        store.memory(f"same-{n}", id=f"01K000000000000000000{n:05d}", description="Chroma port", body="Same.")
        store.note(f"seamless/same-{n}.md", "# Chroma port\n\nSame.\n")
        paths += [f"memories/seamless/same-{n}.md", f"notes/seamless/same-{n}.md"]
    store.index(full=True)
    reversed_db = tmp_path / "reversed.db"
    empty = tmp_path / "empty"
    (empty / "memories").mkdir(parents=True)
    index_store(empty, reversed_db)  # then every file, last first: the rowids run the other way
    with queries.sqlite3.connect(reversed_db) as conn:
        conn.execute("delete from index_meta")
    for start in range(len(paths), 0, -20):
        index_paths(store.root, reversed_db, paths[max(0, start - 20) : start][::-1])
    for project in (None, "seamless"):
        for limit in (5, 20, 100):
            one = queries.recall(store.db_path, "chroma", project=project, limit=limit)
            other = queries.recall(reversed_db, "chroma", project=project, limit=limit)
            assert [r["id"] for r in one] == [r["id"] for r in other]
            memories = sorted(f"01K000000000000000000{n:05d}" for n in range(copies))
            assert [r["id"] for r in one if r["type"] == "memory"] == memories[
                : len([r for r in one if r["type"] == "memory"])
            ]


def test_as_of_searches_the_memories_valid_then_and_the_notes_always(store):
    old = store.memory("port-8001", description="Chroma on port 8001", created="2026-03-02T00:00:00Z")
    new = store.memory("port-8765", description="Chroma on port 8765", created="2026-04-20T00:00:00Z")
    store.memory(
        "port-8001",
        id=old["id"],
        description="Chroma on port 8001",
        created="2026-03-02T00:00:00Z",
        invalid_at="2026-04-20T00:00:00Z",
        superseded_by=new["id"],
    )
    store.memory("later", description="Chroma port written in May", created="2026-05-05T00:00:00Z")
    store.note("seamless/ports.md", "# Chroma ports\n\nEvery port chroma had.\n")
    store.index()

    def at(t):
        return sorted(names(queries.recall(store.db_path, "which port does chroma use", as_of=t)))

    assert at("2026-03-15") == ["Chroma ports", "port-8001"]  # port-8765 and later: not yet written
    assert at("2026-04-25") == ["Chroma ports", "port-8765"]
    assert at(None) == ["Chroma ports", "later", "port-8765"]
    assert at("2026-01-01") == ["Chroma ports"]  # a note has no lifecycle


def test_each_result_says_which_terms_it_holds(store):
    store.memory("both", description="Chroma boot race")
    store.memory("one", description="Chroma is embedded")
    store.index()
    found = {r["name"]: r["matched"] for r in recall(store, "why does chroma race at boot?")}
    assert found == {"both": ["chroma", "race", "boot"], "one": ["chroma"]}
    assert {r["name"]: r["matched"] for r in queries.recall(store.db_path, "chroma boot", every=True)} == {
        "both": ["chroma", "boot"]
    }


def test_a_word_the_store_never_holds_takes_nothing_from_the_others(store):
    store.memory("boot-race", description="Chroma races at boot")
    store.index()
    assert names(recall(store, "chroma zzyzx")) == ["boot-race"]
    assert recall(store, "zzyzx") == []


def test_a_common_term_brings_no_candidates_but_counts_for_those_that_hold_it(store, monkeypatch):
    from indexer.query import recall_terms

    monkeypatch.setattr(recall_terms, "COMMON_DOCS", 2)  # as a word in more than 1,000 memories of a big store
    for i in range(4):
        store.memory(f"chroma-{i}", description=f"Chroma fact {i}")
    store.memory("race-alone", description="A race at boot", body="Text. " * 5)
    store.memory("race-and-chroma", description="A race at boot", body="Chroma. " + "Text. " * 4)
    store.index()
    found = recall(store, "chroma boot race")
    assert names(found) == ["race-and-chroma", "race-alone"]  # chroma alone brings none; holding it counts
    assert found[0]["matched"] == ["chroma", "boot", "race"] and found[1]["matched"] == ["boot", "race"]


def test_when_every_term_is_common_every_one_is_required(store, monkeypatch):
    from indexer.query import recall_terms

    monkeypatch.setattr(recall_terms, "COMMON_DOCS", 2)
    for i in range(3):
        store.memory(f"chroma-port-{i}", description=f"Chroma port {i}")
        store.memory(f"chroma-{i}", description=f"Chroma fact {i}")
        store.memory(f"port-{i}", description=f"Port fact {i}")
    store.index()
    found = recall(store, "chroma port zzyzx")  # zzyzx: in no memory, so not required
    assert sorted(names(found)) == ["chroma-port-0", "chroma-port-1", "chroma-port-2"]
    assert {tuple(r["matched"]) for r in found} == {("chroma", "port")}


def test_a_question_naming_a_month_finds_the_memory_written_then(store):
    march = store.memory("port-move-1", description="Chroma port moved", created="2026-03-02T10:00:00Z")
    june = store.memory("port-move-2", description="Chroma port moved", created="2026-06-10T10:00:00Z")
    store.index()
    found = recall(store, "where did the chroma port move in March 2026?")
    assert [r["id"] for r in found] == [march["id"], june["id"]]
    assert found[0]["matched"] == ["chroma", "port", "move", "March 2026"]  # the time it was written in, as typed
    assert found[1]["matched"] == ["chroma", "port", "move"]
    assert [r["id"] for r in recall(store, "where did the chroma port move in June 2026?")] == [june["id"], march["id"]]
    assert queries.recall(store.db_path, "chroma port March 2026", every=True) == []  # --all: the words, required


def test_a_note_written_in_the_time_named_ranks_higher(store):
    store.note("a.md", "---\ntitle: Refund review\ncreated: 2026-03-19T09:00:00Z\n---\nRefunds.\n")
    store.note("b.md", "---\ntitle: Refund review\ncreated: 2026-05-04T09:00:00Z\n---\nRefunds.\n")
    store.index()
    assert [r["path"] for r in recall(store, "what was said at the refund review in May?")] == [
        "notes/b.md",
        "notes/a.md",
    ]


def test_a_relative_time_is_read_against_as_of(store, tmp_path):
    import json

    from click.testing import CliRunner

    from indexer.front.cli import cli

    first = store.memory(
        "config-1",
        description="Chroma config changed",
        valid_from="2026-01-01T00:00:00Z",
        created="2026-03-02T10:00:00Z",
    )
    second = store.memory(
        "config-2",
        description="Chroma config changed",
        valid_from="2026-01-01T00:00:00Z",
        created="2026-04-22T10:00:00Z",
    )
    store.index()

    def ask(as_of: str) -> list[tuple]:
        args = ["recall", "what did we change in the chroma config last week?", "--as-of", as_of]
        result = CliRunner().invoke(cli, [*args, "--json", "--db", str(store.db_path)])
        assert result.exit_code == 0, result.output
        return [(r["id"], r["matched"][-1]) for r in json.loads(result.stdout)]

    # both valid since January; last week is 2 to 8 March, then 20 to 26 April
    assert ask("2026-03-11") == [(first["id"], "last week"), (second["id"], "config")]
    assert ask("2026-04-29") == [(second["id"], "last week"), (first["id"], "config")]


def test_the_readmes_question_finds_the_memory_that_answers_it_first(example_db):
    found = queries.recall(example_db, "why did we stop running chroma as a server?", limit=3)
    assert found[0]["name"] == "chroma-embedded-persistent-client"  # not rebuild-index, which holds only "stop"


def test_holding_more_of_the_query_outranks_one_rare_word(store):
    # the README's case: one rare word against three of the question's, each found in a few other memories
    store.memory("rare", description="Stop the worker before a rebuild")
    store.memory("answer", description="Chroma is embedded now", body="No server is running any more.")
    for i in range(2):
        for word in ("Chroma", "Server", "Running"):
            store.memory(f"{word.lower()}-{i}", description=f"{word} note {i}")
        store.memory(f"unrelated-{i}", description=f"Unrelated fact {i}")
    store.memory("unrelated-2", description="Unrelated fact 2")
    store.index()
    conn, _ = queries.connect(store.db_path)
    bm25 = conn.execute(
        "SELECT m.name FROM memories_fts JOIN memories AS m ON m.rowid = memories_fts.rowid "
        'WHERE memories_fts MATCH \'"stop" OR "running" OR "chroma" OR "server"\' ORDER BY '
        + shared()["MEMORY_RANK"][1]  # recall's own bm25, with its column weights
    ).fetchall()
    conn.close()
    assert [n for (n,) in bm25][:2] == ["rare", "answer"]  # bm25 alone: the rare word wins
    found = recall(store, "why did we stop running chroma as a server?")
    assert names(found)[:2] == ["answer", "rare"]  # 3 of the 4 terms held against 1 of them
    assert found[0]["matched"] == ["running", "chroma", "server"]


def test_a_pasted_url_counts_once_however_many_of_its_parts_a_memory_holds(store):
    # a memory quoting another error from the same host holds five of the URL's parts; the one that explains
    # the error holds what the error says
    store.memory(
        "chunk-load-error",
        description="TypeError after a deploy: the old assets are gone",
        body="Failed to fetch https://atlas.acme.dev/assets/RouteList-1a2b.js",
    )
    store.memory(
        "tosorted-old-safari",
        description="routes.toSorted is not a function on old Safari: TypeError",
        body="Array.prototype.toSorted is undefined before Safari 16.",
    )
    store.index()
    pasted = (
        "TypeError: routes.toSorted is not a function (In 'routes.toSorted(byTime)', 'routes.toSorted' is undefined)"
        " at RouteList (https://atlas.acme.dev/assets/RouteList-8c41f0d2.js:1:2207)"
    )
    found = recall(store, pasted)
    assert names(found) == ["tosorted-old-safari", "chunk-load-error"]
    assert found[1]["matched"] == ["TypeError", "RouteList", "https", "atlas", "acme", "dev", "assets", "js"]


def test_a_quoted_name_in_a_pasted_error_is_searched_in_its_words_too(store):
    store.memory("orders-sequence", description="After a restore, inserts into orders collide with the pkey sequence")
    store.index()
    found = recall(store, 'ERROR: duplicate key value violates unique constraint "orders_pkey"')
    assert names(found) == ["orders-sequence"]
    assert found[0]["matched"] == ["orders", "pkey"]  # the phrase itself, orders_pkey, is not in it
