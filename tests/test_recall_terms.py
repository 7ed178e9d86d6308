"""Recall's query language (SPEC section 13): any text becomes terms, and no text makes an FTS5 error."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.query import queries, recall_terms
from indexer.query.recall_terms import terms


def texts(q: str, every: bool = False) -> list[str]:
    return [t.text for t in terms(q, every)]


def phrases(q: str, every: bool = False) -> list[str]:
    return [t.fts for t in terms(q, every)]


def test_a_question_keeps_its_words_and_drops_the_question_and_function_words():
    assert texts("When did Caroline go to the LGBTQ support group?") == ["Caroline", "go", "LGBTQ", "support", "group"]
    assert texts("what port does chroma listen on?") == ["port", "chroma", "listen"]


def test_stop_words_alone_are_searched_rather_than_nothing():
    assert texts("what is the") == ["what", "is", "the"]
    assert texts("NOT") == ["NOT"]


def test_a_possessive_is_the_word_and_a_contraction_is_its_words():
    assert texts("Caroline's dog") == ["Caroline", "dog"]
    assert texts("Caroline’s dog") == ["Caroline", "dog"]  # a typographic apostrophe too
    assert texts("why doesn't the gardener see vim's writes") == ["gardener", "see", "vim", "writes"]


@pytest.mark.parametrize(
    "identifier, parts",
    [
        ("CHROMA_PORT", ["chroma", "port"]),
        ("chroma-boot-race", ["chroma", "boot", "race"]),
        ("seamless.db", ["seamless", "db"]),
        ("name:value", ["name", "value"]),
        ("(seamless.db),", ["seamless", "db"]),  # the punctuation around it is not part of it
    ],
)
def test_an_identifier_is_kept_whole_as_a_phrase_and_in_its_parts(identifier, parts):
    assert phrases(identifier) == ['"' + " ".join(parts) + '"', *(f'"{p}"' for p in parts)]
    assert phrases(identifier, every=True) == ['"' + " ".join(parts) + '"']  # --all: the identifier whole


def test_quotes_make_a_phrase_kept_whole_and_in_its_words_and_a_trailing_star_a_prefix():
    assert phrases('"support group" embed*') == ['"support group"', '"support"', '"group"', '"embed"*']
    assert phrases('"support group" embed*', every=True) == ['"support group"', '"embed"*']  # --all: the phrase whole
    assert phrases('"a phrase"') == ['"a phrase"', '"phrase"']  # its stop words within the phrase only
    assert phrases("chroma-bo*") == ['"chroma bo"*', '"chroma"', '"bo"*']
    assert phrases('an "unpaired quote') == ['"unpaired"', '"quote"']


def test_the_terms_of_one_thing_typed_are_told_apart_from_the_next():
    # the bonus for holding what was typed counts each once, however many of its parts a memory holds (recall.sql)
    found = terms('chroma-boot-race "support group" port don\'t')
    typed = [[t.text for t in group] for _, group in itertools.groupby(found, key=lambda t: t.typed)]
    assert typed == [["chroma-boot-race", "chroma", "boot", "race"], ["support group", "support", "group"], ["port"]]


def test_each_term_once_in_the_order_written():
    assert texts("chroma port CHROMA Port") == ["chroma", "port"]


def test_all_keeps_every_word_stop_words_too():
    assert texts("the chroma port", every=True) == ["the", "chroma", "port"]


def test_text_with_no_word_has_no_term_and_one_line_says_why():
    for nothing in ("", "   ", "???", "😀 🎉", "(*)", '""'):
        assert terms(nothing) == []
        assert recall_terms.nothing_to_search(nothing).startswith("nothing to search for in ")
    assert recall_terms.nothing_to_search("chroma") is None


def test_a_pasted_page_searches_its_first_terms():
    assert len(terms(" ".join(f"word{n}" for n in range(5000)))) == recall_terms.MAX_TERMS


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    from conftest import Store

    store = Store(tmp_path_factory.mktemp("terms") / "store")
    store.memory("a-b", description="a b NOT foo x chroma", body="CHROMA_PORT=8765 and seamless.db")
    store.note("n.md", "# A note\n\nfoo chroma")
    store.index()
    return store.db_path


@pytest.mark.parametrize(
    "q",
    [
        '"',
        "NOT",
        "a:b",
        "foo:",
        "AND OR",
        "(",
        ")",
        "-x",
        "^",
        "*",
        "'",
        "NEAR(",
        '"chroma',
        "",
        "   ",
        "a\tb\nfoo",
        "foo*bar",
        '""',
        "chroma NOT",
        "name: chroma",
        "{name description}: chroma",
        "chroma + port",
        "[chroma] {port}",
        "🦜 chroma 🦜",
        "x" * 10_000,
        "chroma " * 2_000,
    ],
)
def test_recall_never_errors_whatever_the_text(small_db, q):
    for every in (False, True):
        assert isinstance(queries.recall(small_db, q, every=every), list)
        assert isinstance(queries.recall_superseded(small_db, q, every=every), list)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_any_text_is_a_query_fts5_accepts(small_db, q):
    conn, _ = queries.connect(small_db)
    try:
        for every in (0, 1):
            found = recall_terms.query(conn, q, every)
            conn.execute("select count(*) from memories_fts where memories_fts match ?", (found["fts"],)).fetchone()
    finally:
        conn.close()


def test_identifiers_find_what_holds_them_whole_or_in_parts(small_db):
    found = queries.recall(small_db, "CHROMA_PORT")
    assert [r["name"] for r in found if r["type"] == "memory"] == ["a-b"]
    assert found[0]["matched"] == ["CHROMA_PORT", "CHROMA", "PORT"]


def test_the_words_of_a_time_are_terms_never_required():
    def ask(count: int) -> dict:
        return recall_terms.query(None, "chroma port last week", as_of="2026-10-21T15:00:00Z", docs=lambda fts: count)

    rare = ask(5)
    assert rare["fts"] == '"chroma" OR "port" OR "last" OR "week"'  # a memory that says `last week` holds them
    assert rare["when"] == [["last week", "2026-10-09T00:00:00Z", "2026-10-26T00:00:00Z"]]
    common = ask(recall_terms.COMMON_DOCS + 1)  # every term common: each required, but not the time's words
    assert (common["fts"], common["every"]) == ('"chroma" AND "port"', 1)
    assert recall_terms.query(None, "last week", docs=lambda fts: 5000)["fts"] == '"last" AND "week"'  # all it has
    assert recall_terms.query(None, "chroma last week", every=True, docs=lambda fts: 5)["when"] == []  # --all


def test_a_log_lines_timestamp_is_neither_a_term_nor_a_time():
    def ask(text: str) -> dict:
        return recall_terms.query(None, text, as_of="2026-12-07T12:00:00Z", docs=lambda fts: 5)

    logged = ask("[2026-12-01 16:02:44 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:311)")
    assert [t[0] for t in logged["terms"]] == ["1", "CRITICAL", "WORKER", "TIMEOUT", "pid:311", "pid", "311"]
    assert logged["when"] == []  # not a time asked about: memories written that week gain nothing
    asked = ask("what broke at 2026-12-01 16:02:44?")  # after `at`: a time asked about
    assert asked["when"] and "2026-12-01" in [t[0] for t in asked["terms"]]
    alone = ask("2026-12-01T16:02:44Z")  # nothing else is left: searched as typed
    assert alone["when"] and alone["fts"] != '""'
    assert recall_terms.query(None, "[2026-12-01 16:02:44] x", every=True, docs=lambda fts: 5)["fts"].startswith(
        '"2026 12 01"'
    )  # --all: every word as typed
