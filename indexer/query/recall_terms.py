"""Recall's query language (SPEC section 13; docs/queries.md, "The terms" and "The ranking"): any text becomes
the terms of an FTS5 query that never fails, each an FTS5 phrase of bare tokens that knows the thing typed it came
from.

`register(conn)` makes `recall_terms(q, all, as_of)` an SQL function, so the CLI, MCP, the canned query and the
explorer's pages search with the same terms. Nothing is compiled or read at import time: the CLI imports this for
every recall.
"""

import functools
import json
import math
import re
from dataclasses import dataclass

from indexer.query import recall_snippet
from indexer.sqlite import sqlite3

# A term found in more than this many memories (or notes) brings no candidates: bm25 reads every match of a term
# it ranks by, so its cost would grow with the store (docs/performance.md).
COMMON_DOCS = 1000
MAX_TERMS = 32  # a pasted page searches its first 32 distinct terms: each costs a lookup of its matches
MAX_PHRASE = 16  # tokens of one identifier or quoted phrase
# More things typed than this is a paste (a log line, a traceback), not a question: most of it is context, so each
# thing held counts for its rarity (docs/queries.md, round 6)
LONG_PASTE = 6
SQL_FUNCTION = "recall_terms"


def _words(text: str) -> list[str]:
    return text.split()


# English function words, question words and a contraction's pieces, lower-cased as the tokenizer folds them.
STOP_WORDS = frozenset(
    _words(
        """a about above after again against all also am an and any are aren as at be because been before being
    below between both but by can cannot could couldn d did didn do does doesn doing don down during each
    either else ever every few for from further had hadn has hasn have haven having he her here hers herself
    him himself his how however i if in into is isn it its itself just ll m may me might mightn more most
    must mustn my myself neither no nor not now o of off on once one only or other ought our ours ourselves
    out over own please re s same shall shan she should shouldn so some such t than that the their theirs
    them themselves then there these they this those through to too under until up upon us ve very was
    wasn we were weren what whatever when whenever where whereas wherever whether which while who whoever
    whom whose why will with within without won would wouldn y yet you your yours yourself yourselves"""
    )
)


@dataclass(slots=True)
class Term:
    """One term of a query: `text` as shown in `matched`, `fts` the FTS5 phrase, `stop` a stop word, `typed` the
    number of the thing typed it comes from (a word, an identifier, a quoted phrase): its parts share it."""

    text: str
    fts: str
    stop: bool = False
    typed: int = 0


@functools.cache
def _patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """The quoted phrases (with an optional prefix star), a token, and a possessive or contraction's apostrophe."""
    return (
        re.compile(r'"([^"]*)"(\*?)'),
        re.compile(r"[^\W_]+"),
        re.compile(r"[^\W_]['’][^\W_]"),
    )


def terms(text: str, every: bool = False) -> list[Term]:
    """The distinct terms of `text` in the order written (at most MAX_TERMS); stop words dropped unless
    nothing else is left, or kept with `every` (every term is then required and identifiers are kept whole)."""
    quoted, token, apostrophe = _patterns()
    found: list[Term] = []
    for part, (phrase, star) in _split(str(text or ""), quoted):
        if phrase is not None:
            tokens = token.findall(phrase)[:MAX_PHRASE]
            found += _whole(tokens, " ".join(tokens), star, every, len(found))
            continue
        for chunk in part.split():
            core = chunk.rstrip()
            prefix = "*" if core.endswith("*") else ""
            core = re.sub(r"['’][sS]$", "", _strip_edges(core, token))
            tokens = token.findall(core)
            typed = len(found)
            if len(tokens) == 1 or _only_apostrophes(core, tokens, apostrophe):
                found += [_word(t, prefix if i == len(tokens) - 1 else "", typed) for i, t in enumerate(tokens)]
            elif tokens:
                found += _whole(tokens[:MAX_PHRASE], core, prefix, every, typed)
    distinct: dict[str, Term] = {}
    for t in found:
        distinct.setdefault(t.fts, t)  # the first spelling of each
    kept = list(distinct.values())
    searched = kept if every else ([t for t in kept if not t.stop] or kept)
    return searched[:MAX_TERMS]


def _word(token: str, star: str, typed: int) -> Term:
    return Term(token + star, f'"{token.lower()}"{star}', token.lower() in STOP_WORDS and not star, typed)


def _whole(tokens: list[str], spelt: str, star: str, every: bool, typed: int) -> list[Term]:
    """An identifier or a quoted phrase (`spelt` as typed): whole, as a phrase, and unless `every` each of its words
    too, all one thing typed. A quoted phrase is read as an identifier is: a pasted error quotes names
    and messages (`"orders_pkey"`, a JSON body) that a memory may hold in other words."""
    if not tokens:
        return []
    whole = Term(spelt + star, '"' + " ".join(t.lower() for t in tokens) + '"' + star, False, typed)
    if every or len(tokens) == 1:
        return [whole]
    return [whole, *(_word(t, star if i == len(tokens) - 1 else "", typed) for i, t in enumerate(tokens))]


def _split(text: str, quoted: re.Pattern):
    """(text outside quotes, (None, None)) and ('', (phrase, star)) pieces in order; an unpaired quote is a space."""
    at = 0
    for m in quoted.finditer(text):
        yield text[at : m.start()], (None, None)
        yield "", (m[1], m[2])
        at = m.end()
    yield text[at:].replace('"', " "), (None, None)


def _strip_edges(chunk: str, token: re.Pattern) -> str:
    """`chunk` without the punctuation around it: `(seamless.db),` is seamless.db."""
    first = token.search(chunk)
    if not first:
        return ""
    last = list(token.finditer(chunk))[-1]
    return chunk[first.start() : last.end()]


def _only_apostrophes(core: str, tokens: list[str], apostrophe: re.Pattern) -> bool:
    """`core` is words joined by apostrophes only (don't, we'll, o'clock): a contraction, not an identifier."""
    return len(apostrophe.findall(core)) == len(tokens) - 1 and len(core) == sum(map(len, tokens)) + len(tokens) - 1


def query(conn: sqlite3.Connection, text, every=False, as_of=None, docs=None) -> dict:
    """What recall searches for `text` in the index `conn`: `{"fts": the FTS5 expression, "every": 1 when every
    term of it is required, "terms": [[text, fts, common, searched, typed, weight], ...], "when": [[text, start,
    end], ...]}` ('""', which matches nothing, when no term is searched). A log line's timestamps, the times and
    the common terms are read as docs/queries.md says; `docs(fts)` counts a term's matches (by default, now)."""
    every = str(every).strip().lower() in ("1", "true", "yes", "on")
    text = "" if text is None else str(text)
    when, timed = [], set()
    if not every:
        from indexer.query import recall_time

        unstamped = recall_time.unstamped(text)  # a log line's timestamps, unless nothing else is left
        if unstamped != text and terms(unstamped):
            text = unstamped
    found = terms(text, every)
    if not every:
        when = recall_time.windows(text, as_of)
        if when:
            timed = {t.fts for t in found} - {t.fts for t in terms(recall_time.blank(text, when))}
    weights = [1.0] * len(found)
    if every:
        searched = found
        common = [False] * len(found)
    else:
        counts = [(docs or functools.partial(_docs, conn))(t.fts) for t in found]
        if len({t.typed for t in found}) > LONG_PASTE:
            weights = _rarities(counts, _size(conn))
        common = [n > COMMON_DOCS for n in counts]
        searched = [t for t, n in zip(found, counts) if 0 < n <= COMMON_DOCS]
        if not searched:
            every = True
            held = [t for t, c in zip(found, common) if c]
            searched = [t for t in held if t.fts not in timed] or held
            common = [False] * len(found)
    return {
        "fts": (" AND " if every else " OR ").join(t.fts for t in searched) or '""',
        "every": int(every),
        "terms": [[t.text, t.fts, int(c), int(t in searched), t.typed, w] for t, c, w in zip(found, common, weights)],
        "when": [[w.text, w.start, w.end] for w in when],
    }


def _rarities(counts: list[int], size: int) -> list[float]:
    """Each term's share of a thing typed's bonus in a paste: its idf over the most a term can have (one that names a
    single row 1, one that half the rows hold 0); `size` the rows a term can be counted in."""
    if size < 2:
        return [1.0] * len(counts)
    scale = math.log(size)
    return [round(max(0.0, math.log((size - n + 0.5) / (n + 0.5))) / scale, 4) for n in counts]


def _size(conn: sqlite3.Connection) -> int:
    """The memories, or the notes (the more), as their largest rowid: read from the tables' b-trees at any size."""
    sql = "select max(coalesce((select max(rowid) from memories), 0), coalesce((select max(rowid) from notes), 0))"
    return conn.execute(sql).fetchone()[0]


def _docs(conn: sqlite3.Connection, fts: str) -> int:
    """How many memories, or notes, match `fts` (the larger), counted up to COMMON_DOCS + 1 only, so the count
    costs the same at any store size (the notes are not counted once the memories are past it)."""
    found = 0
    for table in ("memories_fts", "notes_fts"):
        if found <= COMMON_DOCS:
            sql = f"select count(*) from (select 1 from {table} where {table} match ? limit ?)"
            found = max(found, conn.execute(sql, (fts, COMMON_DOCS + 1)).fetchone()[0])
    return found


def nothing_to_search(text: str) -> str | None:
    """One line saying why `text` finds nothing whatever the store holds, or None when it has terms."""
    if terms(text):
        return None
    return f"nothing to search for in {text!r}: recall searches words and numbers, and this holds none"


def ensure(conn: sqlite3.Connection) -> None:
    """Register recall_terms on `conn` unless it is there: registering again would make SQLite prepare every
    statement of the connection anew (tens of milliseconds for recall's)."""
    try:
        conn.execute(f"select {SQL_FUNCTION}(NULL, 0, NULL)").fetchone()
    except sqlite3.OperationalError:
        register(conn)


def register(conn: sqlite3.Connection) -> None:
    """Make recall_terms(q, all, as_of) an SQL function of `conn`, `query` as JSON (not deterministic: it reads the
    index through `conn`), and recall_snippet(marked), which recall.sql calls."""
    counted = _Counted(conn)

    def recall_terms(text, every, as_of) -> str:
        return json.dumps(query(conn, text, every, as_of, counted.docs()), ensure_ascii=False)

    conn.create_function(SQL_FUNCTION, 3, recall_terms)
    conn.create_function(recall_snippet.SQL_FUNCTION, 1, recall_snippet.read, deterministic=True)


class _Counted:
    """The terms' counts (`_docs`) on one connection, kept while the index's generation (index_meta) stays: a
    connection that lives (the explorer's, the bench's) counts a term once, not at every recall (0.05 ms a term
    at 100,000 memories, a tenth of a question's time: docs/performance.md)."""

    KEPT = 10_000  # terms; then counted afresh

    def __init__(self, conn: sqlite3.Connection):
        self.conn, self.generation = conn, None
        self.counts: dict[str, int] = {}

    def docs(self):
        from indexer.index.database import GENERATION

        try:
            generation = self.conn.execute(GENERATION).fetchone()[0]
        except sqlite3.OperationalError:  # not an index of ours: nothing is kept
            return None
        if generation != self.generation or len(self.counts) > self.KEPT:
            self.generation, self.counts = generation, {}
        return self._docs

    def _docs(self, fts: str) -> int:
        if fts not in self.counts:
            self.counts[fts] = _docs(self.conn, fts)
        return self.counts[fts]
