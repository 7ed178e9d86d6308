"""What a memory's name and description say, word by word, for the gardener (SPEC section 12). No model, no index.

`read(name, description)` gives a `Wording`: the stems of its words (Snowball, through PyStemmer), the values it
states (ports, versions, paths, quantities, settings and their yes/no), which words sit under a negation, a
signature shared by descriptions that differ only in case, punctuation and inflection, and why the description is
vague, if it is. `indexer.store.sameness` compares two of them.

English words are stemmed as English; Cyrillic, Greek and Arabic words with their own Snowball stemmer; Chinese,
Japanese and Korean text, written without spaces, is read as overlapping pairs of characters.
"""

import functools
import hashlib
import marshal
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

import Stemmer


def _words(text: str) -> list[str]:
    """The words of a list written as text (one or more a line)."""
    return text.split()


# A token: a code span, a clause boundary, or a run of anything that is not a space or a separator.
TOKEN = re.compile(
    r"`(?P<code>[^`]*)`|(?P<stop>[;:,.!?]+(?=\s|$)|\s[-–—]+\s|[()\[\]{}|])|(?P<raw>[^\s,;()\[\]{}\"`|]+)"
)
EDGE = "\"'.,:;!?*“”‘’«»"  # stripped from a raw token's ends
PART = re.compile(r"[^\W_]+")  # the letters-and-digits runs of an identifier
LETTER = re.compile(r"[A-Za-z]")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
URL = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S+$|^[a-z0-9-]+(?:\.[a-z0-9-]+)+\.[a-z]{2,}/\S*$|^[a-z0-9-]+\.(?:com|org|io|dev|net|html)(?:/\S*)?$",
    re.I,
)
HOST_PORT = re.compile(r"^(?:[A-Za-z][\w-]*(?:\.[\w-]+)*|\d+(?:\.\d+){3}):(\d{2,5})(?:/\S*)?$")
ASSIGNMENT = re.compile(r"^([A-Za-z_][\w.-]*)=(\S+)$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T[\d:]+Z?)?$")
VERSION = re.compile(
    r"^(?:v|>=|<=|==|~=|\^|@)?(\d+(?:\.\d+)+(?:[.+-]?[a-z][\w.]*)?|\d{4}-\d{2}-\d{2}\.[a-z]\w*)\+?$", re.I
)
NUMBER = re.compile(r"^[-+]?(\d+(?:[.,]\d+)?)(%|x|ms|s|h|m|d|k|g|kb|mb|gb|px)?\+?$", re.I)
NUMBER_UNIT = re.compile(r"^(\d+(?:\.\d+)?)-([a-z]+)$", re.I)  # 48-bit, 10-minute
PIN = re.compile(r"^([A-Za-z][\w.-]*)@[v^~=]*(\d+(?:\.\d+)*(?:[.+-]?[a-z][\w.]*)?)$", re.I)  # expo@51.0.28
FLAG = re.compile(r"^--?[a-z][\w-]*(?:=\S+)?$", re.I)
CAMEL = re.compile(r"[a-z][A-Z][a-z]|[A-Z]{2,}[a-z]")  # tracesSampleRate, HTTPServer; not a name (iOS, macOS)
UPPER = re.compile(r"^[A-Z][A-Z0-9]+$")
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "twelve": "12", "once": "1", "twice": "2", "single": "1",
    "double": "2", "second": "2",
}  # fmt: skip
BOOLEANS = {
    "true": "yes", "yes": "yes", "on": "yes", "enabled": "yes", "enable": "yes",
    "false": "no", "no": "no", "off": "no", "disabled": "no", "disable": "no", "none": "no",
}  # fmt: skip
UNITS = {
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s",
    "seconds": "s", "m": "min", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
    "hrs": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "week", "weeks": "week",
    "x": "x", "%": "%", "k": "k", "kb": "kb", "mb": "mb", "gb": "gb", "g": "gb", "px": "px",
}  # fmt: skip
SECONDS = {"ms": 0.001, "s": 1, "min": 60, "h": 3600, "d": 86400, "week": 604800}  # durations are compared in seconds
# words that mark the next value as the one given up: "moved from 8001", "instead of Redis", "not RabbitMQ"
FORMER = {"from", "instead", "formerly", "previously", "replacing", "replaces", "replaced", "was", "were"}
NEGATION = {
    "not", "never", "no", "nor", "without", "cannot", "can't", "don't", "doesn't", "didn't", "isn't", "aren't",
    "wasn't", "weren't", "won't", "shouldn't", "mustn't", "neither", "nobody", "nothing", "avoid",
}  # fmt: skip
PROHIBITION = {"forbidden", "banned", "prohibited", "disallowed"}
# words that say the noun phrase before them is no more: "Traefik was removed", "goose is retired", "JSC is off",
# after a copula; and, after "not", what is not there: "DNS-01 is not configured"
ABSENT = {
    "gone", "removed", "retired", "dropped", "deleted", "unbound", "disabled", "off", "unused", "abandoned",
    "decommissioned", "uninstalled",
}  # fmt: skip
NOT_THERE = {"configured", "used", "enabled", "supported", "installed"}
NP_BREAKS = {"and", "or", "then", "but", "now", "so", "while", "when"}  # what is gone is the phrase after these
COPULAS = {"is", "are", "was", "were", "be", "been", "being", "got", "gets"}
CLAUSE_WORDS = {
    "why",
    "what",
    "how",
    "where",
    "which",
    "who",
    "whether",
    "that",
}  # a negation before one denies a clause
# words that deny the next word as negations do: "ruff replaced Black", "instead of Redis"
REPLACING = {"replaced", "replaces", "replacing", "instead"}
MOVES = {"moved", "migrated", "switched", "went", "changed"}  # "moved from the cookie store to Redis": from what
# words that start a part of a clause with its own yes and no: "use JSC again since Hermes crashed"
CONJUNCTIONS = {"because", "since", "so", "but", "when", "if", "unless", "while", "whereas", "although", "though"}
# stems of words that take one side of a choice with no value: "run serially" against "run in parallel"
SIDES = {
    "serial": ("order", "serially"), "sequenti": ("order", "serially"), "parallel": ("order", "in parallel"),
    "parallelis": ("order", "in parallel"), "paralleliz": ("order", "in parallel"),
    "sync": ("timing", "synchronously"), "synchron": ("timing", "synchronously"), "async": ("timing", "asynchronously"),
    "asynchron": ("timing", "asynchronously"), "eager": ("loading", "eagerly"), "lazi": ("loading", "lazily"),
    "lazili": ("loading", "lazily"),
}  # fmt: skip
# words that tell which of a family of things a memory is about: the public API and the internal one, production
# and staging, are two things whose values may differ
QUALIFIERS = {
    "public": ("audience", "public"), "internal": ("audience", "internal"), "private": ("audience", "private"),
    "external": ("audience", "external"), "prod": ("environment", "prod"), "production": ("environment", "prod"),
    "staging": ("environment", "staging"), "dev": ("environment", "dev"), "development": ("environment", "dev"),
    "local": ("environment", "local"), "preview": ("environment", "preview"), "sandbox": ("environment", "sandbox"),
    "ci": ("environment", "ci"),
}  # fmt: skip
# words that describe a failure: "a stray print() corrupts the stream" restates "never print", it does not deny it
FAILURE = frozenset(
    Stemmer.Stemmer("english").stemWords(
        _words(
            """
            fail fails failed failing failure break breaks broke broken breaking corrupt corrupts corrupted error errors
            crash crashes crashed raise raises raised stray wrong lose loses lost leak leaks bug disagree disagreeing
            mismatch missing miss misses hang hangs stale collide collided collides clash clashes conflict conflicts
            typeerror exception traceback refuse refuses slow
            """
        )
    )
)
# words a value is stated with (`port 8765`, `version 16`), whose stems carry no subject of their own
VALUE_WORDS = {"port", "version", "path", "file", "default", "set", "pin", "number", "valu", "at", "is", "on", "to"}
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "than",
        "so",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "onto",
        "to",
        "with",
        "within",
        "without",
        "via",
        "per",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "we",
        "our",
        "us",
        "you",
        "your",
        "they",
        "their",
        "them",
        "he",
        "she",
        "his",
        "her",
        "i",
        "me",
        "my",
        "do",
        "does",
        "did",
        "done",
        "doing",
        "has",
        "have",
        "had",
        "having",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "also",
        "too",
        "very",
        "just",
        "only",
        "still",
        "yet",
        "again",
        "even",
        "ever",
        "about",
        "above",
        "after",
        "before",
        "below",
        "between",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "own",
        "same",
        "any",
        "all",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "while",
        "until",
        "up",
        "down",
        "out",
        "off",
        "over",
        "under",
        "further",
        "once",
        "nor",
        "not",
        "no",
        "never",
        "e.g",
        "i.e",
        "etc",
        "vs",
        "via",
        "now",
        "new",
    ]
)
# Words that say nothing a future agent could act on by themselves: "notes about the console" is a generic word
# and one topic. Stems are compared, so one form of each word is enough.
GENERIC_WORDS = _words(
    """
    note notes stuff thing things info information misc miscellaneous various detail details general overview
    summary learning learnings learned lesson lessons tip tips thought thoughts idea ideas todo update updates
    fix fixes fixed bug bugs issue issues problem problems gotcha gotchas decision decisions runbook protocol
    reference references constraint stage work working worked works important remember remembering useful
    interesting relevant related regarding concerning context background random check checked careful keep mind
    later today yesterday tomorrow session sessions meeting meetings discussion discussed decided architecture
    approach plan plans next step steps project projects code codebase system systems app application setup
    config configuration settings performance behaviour behavior flaky weird strange broken see body below above
    question questions investigation research finding findings workaround workarounds trick tricks quirk quirks
    caveat caveats consideration considerations practice practices guideline guidelines rule rules process
    procedure way ways how doing improvement improvements change changes changed handle handling help helpful
    use using used make making made get getting got need needs know known want try tried future forget don't
    time times team teams people person someone something anything everything area part parts piece pieces point
    points aspect aspects case cases item items list lists good bad better best worse worst nice okay fine hard
    easy quick slow fast simple complex main current old latest recent recently first last docs doc
    documentation documented explanation explained description hit saw seen found happen happened happens
    noticed ran encounter encountered properly correctly usual usually normal normally standard appropriate
    appropriately error errors follow
    """
)
GENERIC = frozenset(Stemmer.Stemmer("english").stemWords(GENERIC_WORDS))
GENERIC_UPPER = frozenset(
    ["API", "UI", "DB", "CI", "CD", "PR", "ID", "URL", "CLI", "SDK", "TODO", "FYI", "ASAP", "NB", "OK", "TBD", "WIP"]
)
NUMBER_KINDS = ("port", "version", "quantity", "number")  # the kinds of value that are numbers
MIN_WORDS = 3  # fewer words than this, with nothing concrete, is vague
MIN_SPECIFIC = 2  # fewer specific (not generic) words than this, with nothing concrete, is vague
GENERIC_SHARE = 0.6  # more generic words than this share, with nothing concrete and fewer than 3 specific ones
TOPIC_AT_MOST = 3  # specific words a bare topic has at most ("Gotcha about iOS builds"), with nothing concrete
# a generic word, then one of these: what follows is only a topic ("notes on X", "a problem we had with X")
TOPIC_WORDS = {"about", "on", "for", "with", "regarding", "re", "around", "concerning", "of", "from", "in"}
# words that stand for what was not said: "the rate limit stuff", "the thing with the cache"
PLACEHOLDERS = {"stuff", "thing", "things", "misc", "miscellaneous", "various", "etc", "whatever", "random"}


EMPTY: frozenset = frozenset()


def _frozen(items) -> frozenset:
    """`items` as a frozenset; the one empty frozenset when there are none (most of a reading's sets are empty, and
    a settle holds tens of thousands of readings)."""
    found = frozenset(items)
    return found if found else EMPTY


@dataclass(frozen=True)
class Value:
    """A value a description states: `kind` (port, version, path, quantity, setting, number, name), the `slot` it
    fills (a unit, a setting's name, a file's name) and the `value` itself, as written or normalised."""

    kind: str
    slot: str
    value: str
    former: bool = False  # stated as the one given up ("moved from 8001")
    label: str = ""  # the slot as written (`CHROMA_PORT`, `Postgres`, `hours`), for a person to read


@dataclass(frozen=True)
class Wording:
    """What the gardener reads in one memory's name and description."""

    words: frozenset[str]  # stems of the name and the description, numbers and identifiers' parts
    values: tuple[Value, ...]
    negated: frozenset[str]  # stems a negation denies ("never print", "not RabbitMQ")
    removed: frozenset[str]  # of those, what it says is no more ("goose is retired", "replaced Black"): things
    asserted: frozenset[str]  # stems stated plainly
    troubled: frozenset[str]  # stems stated only beside a failure ("a stray print() corrupts"): a symptom, not a yes
    names: frozenset[str]  # stems of what it names: identifiers, code, paths, capitalised words after the first
    instances: frozenset[tuple[str, ...]]  # its compound names, each as the stems of its parts (`harbor-prod`)
    qualifiers: frozenset[tuple[str, str]]  # which of a family it is about: (environment, prod), (audience, public)
    sides: frozenset[tuple[str, str]]  # which side of a choice it takes: (order, serially)
    signature: str  # the same for descriptions that differ only in case, punctuation and word endings
    vague: str | None  # why the description is vague, or None
    spelling: dict[str, str] = field(default_factory=dict, compare=False)  # stem -> the word as first written

    def spelled(self, stems) -> list[str]:
        """`stems` as the description (or name) writes them, each once."""
        return list(dict.fromkeys(self.spelling.get(s, s) for s in stems))

    @functools.cached_property
    def slots(self) -> frozenset[str]:
        """The kinds of value it states, by kind (two values of a kind may be in one slot)."""
        return _frozen(v.kind for v in self.values if not v.former)

    @functools.cached_property
    def subject(self) -> frozenset[str]:
        """The words without the values, their units and the words values are stated with: what it is about."""
        numbers = {v.value for v in self.values} | {v.slot for v in self.values if v.kind == "quantity"}
        return _frozen(
            w for w in self.words if w not in numbers and w not in VALUE_WORDS and not w.replace(".", "").isdigit()
        )

    @functools.cached_property
    def specific_subject(self) -> frozenset[str]:
        """The subject's specific words (not generic ones)."""
        return self.subject - GENERIC

    @functools.cached_property
    def stated(self) -> dict[tuple[str, str], set[str]]:
        """The values it states (not those it gives up), by kind and slot."""
        slots: dict[tuple[str, str], set[str]] = {}
        for v in self.values:
            if not v.former:
                slots.setdefault((v.kind, v.slot), set()).add(v.value)
        return slots

    @functools.cached_property
    def stated_items(self) -> list[tuple[tuple[str, str], set[str]]]:
        """`stated`'s items in order."""
        return sorted(self.stated.items())

    @functools.cached_property
    def mentioned(self) -> frozenset[str]:
        """Every value it states (not those it gives up), whatever its slot."""
        return _frozen(v.value for v in self.values if not v.former)

    @functools.cached_property
    def numbers(self) -> frozenset[str]:
        """The values of its ports, versions, quantities and numbers."""
        return _frozen(v.value for v in self.values if v.kind in NUMBER_KINDS)


@dataclass(slots=True)
class _Token:
    text: str  # as written
    type: str  # word, number, version, date, path, url, port, assignment, flag, identifier, code, stop
    clause: int  # which clause of the description it is in
    parts: tuple[str, ...]  # the stems it adds to the word set
    low: str  # text.casefold()


def _token(text: str, type_: str, clause: int) -> _Token:
    return _Token(text, type_, clause, _parts_of(text, type_), text.casefold())


@functools.cache
def _stemmer(language: str):
    return Stemmer.Stemmer(language)


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball stem of one word, in its script's language (English for Latin letters)."""
    word = word.casefold()
    for ch in word:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            if name.startswith("CYRILLIC"):
                return _stemmer("russian").stemWord(word)
            if name.startswith("GREEK"):
                return _stemmer("greek").stemWord(word)
            if name.startswith("ARABIC"):
                return _stemmer("arabic").stemWord(word)
            break
    return _stemmer("english").stemWord(word)


def tokens(text: str) -> list[_Token]:
    """The description's tokens, each with its type and clause."""
    found: list[_Token] = []
    clause = 0
    for code, stop, raw in TOKEN.findall(text):
        if stop:
            clause += 1
        elif raw:
            core, type_, ends, parts, low = _raw(raw)
            if core:
                found.append(_Token(core, type_, clause, parts, low))
            clause += ends
        elif code.strip():
            found.append(_token(code.strip(), "code", clause))
    return found


@functools.lru_cache(maxsize=100_000)
def _raw(raw: str) -> tuple[str, str, bool, tuple[str, ...], str]:
    """A raw token without its edge punctuation, its type, whether it ends a clause (`word;`, `done.`), its stems
    and its casefolded text."""
    core = raw.strip(EDGE)
    if core.endswith(("'s", "’s")) and len(core) > 2:  # SDK 52's architecture, Helm's default
        core = core[:-2]
    if raw.startswith(":") and 2 <= len(core) <= 5 and core.isdigit():
        ends = raw.rstrip("\"'*”’»").endswith((".", ";", "!", "?"))  # `on :8080`
        return ":" + core, "port", ends, _parts_of(":" + core, "port"), ":" + core
    type_ = _type_of(core) if core else ""
    ends = raw.rstrip("\"'*”’»").endswith((".", ":", ";", "!", "?")) and type_ not in ("url", "path")
    return core, type_, ends, _parts_of(core, type_) if core else (), core.casefold()


@functools.lru_cache(maxsize=100_000)
def _type_of(token: str) -> str:
    if URL.match(token):
        return "url"
    if HOST_PORT.match(token):
        return "port"
    if ASSIGNMENT.match(token):
        return "assignment"
    if PIN.match(token):
        return "pin"
    if FLAG.match(token):
        return "flag"
    if DATE.match(token):
        return "date"
    if VERSION.match(token):
        return "version"
    if NUMBER.match(token) or NUMBER_UNIT.match(token):
        return "number"
    if "/" in token and (token[0] in "/~." or token.endswith("/") or "." in token.rsplit("/", 1)[-1]):
        return "path"
    if CJK.search(token):
        return "cjk"
    if "_" in token or CAMEL.search(token) or re.search(r"\w\.\w", token) or token[0] in ".@#" or "()" in token:
        return "identifier"
    if UPPER.match(token) and token not in GENERIC_UPPER:
        return "identifier"
    if any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token):
        return "identifier"
    return "word"


@functools.lru_cache(maxsize=100_000)
def _parts_of(text: str, type_: str) -> tuple[str, ...]:
    """The stems a token of this text and type adds to the word set."""
    return tuple(_parts_uncached(text, type_))


def _parts_uncached(text: str, type_: str) -> list[str]:
    if type_ in ("number", "version", "date"):
        return [_number_text(text)]
    if type_ == "cjk":
        letters = [ch for ch in text if not ch.isspace()]
        return ["".join(letters[i : i + 2]) for i in range(max(1, len(letters) - 1))]
    if type_ == "port":
        host, _, port = text.rpartition(":")
        return [*_word_parts(host), port.split("/")[0]]
    if type_ == "pin":
        package, _, version = text.rpartition("@")
        return [*_word_parts(package), _number_text(version)]
    if type_ == "assignment":
        key, _, value = text.partition("=")
        return [*_word_parts(key), *([_number_text(value)] if NUMBER.match(value) else _word_parts(value))]
    return list(_word_parts(text))


@functools.lru_cache(maxsize=100_000)
def _word_parts(text: str) -> tuple[str, ...]:
    return tuple(_word_parts_uncached(text))


def _word_parts_uncached(text: str) -> list[str]:
    parts = []
    for part in PART.findall(text):
        if part.isdecimal():  # isdigit() is also true of ¹ and ①, which int() refuses
            parts.append(str(int(part)) if len(part) < 6 else part)
        elif part.casefold() not in STOPWORDS:
            parts.append(stem(part))
    return parts


def _number_text(text: str) -> str:
    """A number as compared: no sign, unit or `v`, no leading zeros (`v3.12+` -> `3.12`)."""
    m = NUMBER.match(text)
    if m:
        number = m[1].replace(",", "")
        return number.lstrip("0") or "0" if number.isdigit() else number
    m = NUMBER_UNIT.match(text)
    if m:
        return m[1]
    return text.strip("v+^~=<>@").casefold()


def _values(clauses: list[list[_Token]]) -> list[Value]:
    """The values the tokens state, each in its slot, clause by clause. A setting's number is also read as what it
    is without its key (`visibility_timeout is 12 h`: the setting, and 12 h), so it meets the same number written
    another way."""
    values: list[Value] = []
    values_clause = -2  # the clause of the last value
    for clause in clauses:
        if len(clause) == 1 and clause[0].type == "identifier" and values and values[-1].kind != "setting":
            key = clause[0].text  # `6000 characters (briefing.budget_chars)`: the value before is the setting's
            if ("." in key or "_" in key) and clause[0].clause == values_clause + 1:
                values.append(replace(_setting(key, values[-1].value, values[-1].former), value=values[-1].value))
            continue
        for i, tok in enumerate(clause):
            if tok.type in NOT_VALUES or (tok.type == "word" and tok.low not in MAY_BE_VALUES):
                continue
            value = _value_at(clause, i)
            if value is not None:
                if not value.label:
                    value = Value(value.kind, value.slot, value.value, value.former, _label(value, clause, i))
                values.append(value)
                values_clause = tok.clause
                if value.kind == "setting" and clause[i].type in ("number", "version", "date"):
                    plain = _value_at(clause, i, keyed=False)
                    if plain is not None:
                        values.append(
                            Value(plain.kind, plain.slot, plain.value, plain.former, _label(plain, clause, i))
                        )
                elif value.kind == "setting" and clause[i].type == "assignment":
                    key, _, number = clause[i].text.partition("=")
                    number = number.strip(EDGE)
                    unit = (PART.findall(key) or [""])[-1].casefold()
                    plain_number = NUMBER.match(number)
                    if plain_number and not plain_number[2] and unit in UNITS and UNITS[unit] in SECONDS:
                        values.append(_quantity(unit, _number_text(number), value.former))  # retention.ms=
                    elif NUMBER.match(number):  # spark.executor.memory=16g is also 16g
                        plain = _value_at([_token(number, "number", clause[i].clause)], 0)
                        if plain is not None:
                            values.append(replace(plain, former=value.former, label=_label(plain, clause, i)))
    if any(_may_be_port(v) for v in values) and (
        any(v.kind == "port" for v in values) or any(t.low in PORT_WORDS for clause in clauses for t in clause)
    ):
        # beside a port, a bare number that may be one is one: "gRPC on :9090 ... health goes to 8080"
        values = [replace(v, kind="port", label="port") if _may_be_port(v) else v for v in values]
    return values


PORT_WORDS = {"port", "ports", "listens", "binds"}


def _may_be_port(value: Value) -> bool:
    return (
        value.kind == "number"
        and value.value.isdigit()
        and len(value.value) in (4, 5)
        and 1024 <= int(value.value) <= 65535
        and not 1970 <= int(value.value) <= 2099  # a year
    )


def _label(value: Value, c: list[_Token], i: int) -> str:
    """How a person would name the value's slot: the unit or product as written, `port`, the file's name."""
    if value.kind in ("port", "code", "number") or not value.slot:
        return {"code": "code", "port": "port"}.get(value.kind, "")
    if value.kind == "path":
        return value.slot
    wanted = value.slot.rpartition(" ")[2]
    for tok in c[max(0, i - 6) : i + 2]:
        for stemmed, part in _spellings(tok.text):
            if stemmed == wanted:
                return part
    return value.slot


@functools.lru_cache(maxsize=100_000)
def _spellings(text: str) -> tuple[tuple[str, str], ...]:
    """Each letters-and-digits run of a token with its stem."""
    return tuple((stem(part), part) for part in PART.findall(text))


def _clauses(toks: list[_Token]) -> list[list[_Token]]:
    clauses: dict[int, list[_Token]] = {}
    for tok in toks:
        clauses.setdefault(tok.clause, []).append(tok)
    return list(clauses.values())


def _value_at(c: list[_Token], i: int, keyed: bool = True) -> Value | None:
    """The value token `i` of clause `c` states, if any."""
    tok, text = c[i], c[i].text
    before = c[i - 1].low if i else ""
    former = _former(c, i)
    if tok.type == "port":
        return Value("port", "", text.rpartition(":")[2].split("/")[0], former)
    if tok.type == "assignment":
        name, _, value = text.partition("=")
        return _setting(name, value, former)
    if tok.type == "pin":  # expo@51.0.28: a version of expo
        package, _, version = text.rpartition("@")
        letters = re.findall(r"[^\W\d_]+", package.casefold())
        return Value("version", stem(letters[-1]) if letters else "", _number_text(version), former)
    if tok.type == "path":
        return Value("path", text.rstrip("/").rsplit("/", 1)[-1].casefold(), text.casefold(), former)
    if tok.type not in ("number", "version", "date", "word"):
        return None
    key = _key_before(c, i) if keyed else None
    if key is not None and (tok.type != "word" or text.casefold() in BOOLEANS):
        return _setting(key, text, former)
    if tok.type == "word":
        after = c[i + 1] if i + 1 < len(c) else None
        word = text.casefold()
        if word in ("a", "an"):  # a week, an hour
            return _quantity(after.low, "1", former) if after is not None and after.low in TIME_UNITS else None
        if word in FREQUENCIES:  # hourly, nightly
            return Value("quantity", "frequency", FREQUENCIES[word], former, "how often")
        if (
            word in NUMBER_WORDS
            and after is not None
            and after.type == "word"
            and after.text.casefold() not in STOPWORDS
        ):
            return _quantity(after.low, NUMBER_WORDS[word], former)
        if word in OPPOSITES and after is not None and after.type == "word" and after.text.casefold() not in STOPWORDS:
            return Value("polar", stem(after.text), OPPOSITES[word], former)  # lower score / higher score
        return None
    if tok.type == "date" and not ("." in text or before in ("version", "api")):
        return None
    number = _number_text(text)
    if tok.type in ("version", "date") or before in ("version", "v"):
        return Value("version", _product(c, i), number, former)
    m = NUMBER.match(text)
    if m and m[2]:
        return _quantity(m[2].casefold(), number, former)
    if not m:
        n = NUMBER_UNIT.match(text)
        assert n is not None  # _type_of said number
        return _quantity(n[2].casefold(), n[1], former)
    if stem(before) == "port":
        return Value("port", "", number, former)
    if number.isdigit() and any(w in CODE_WORDS for w in _before(c, i, 2)):
        return Value("code", "", number, former)  # reply 400, exit 125, exit code 127
    after = c[i + 1] if i + 1 < len(c) else None
    if after is not None and (after.type == "word" or UPPER.match(after.text)) and after.low in UNITS:
        return _quantity(after.low, number, former, every=before == "every")
    if i and c[i - 1].type in ("identifier", "word") and _named(c[i - 1].text) and before not in STOPWORDS:
        return Value("version", stem(c[i - 1].text), number, former)  # Postgres 16, Node 20
    if (
        after is not None
        and (after.type == "word" or UPPER.match(after.text))  # 8 GPU workers
        and after.low not in STOPWORDS
        and after.low not in CONJUNCTIONS
    ):
        return _quantity(after.low, number, former)
    noun = _noun_before(c, i, label=i == len(c) - 1 or (text[:1] == "0" and text[1:2].isdigit()))
    if noun is not None:  # concurrency 10, concurrency raised to 25
        return _quantity(noun, number, former)
    return Value("number", "", number, former)


CHANGES = {"raised", "lowered", "increased", "decreased", "reduced", "bumped", "changed", "set", "went", "moved", "now"}


def _noun_before(c: list[_Token], i: int, label: bool) -> str | None:
    """The word a number is the value of when it follows it: `concurrency 10`, `concurrency raised to 25`, `pool
    went to 30`; not after another verb (`traffic goes to 9090`), nor a number that may be a label (`gate 00:`,
    `stage 3` ending its clause: `label`) unless it is said to change."""
    j = i - 1
    if j >= 0 and c[j].low in ("to", "at", "=", "is"):
        j -= 1
        if j < 0 or c[j].low not in CHANGES:
            return None
    changed = False
    while j >= 0 and c[j].low in CHANGES and i - j <= 3:
        j -= 1
        changed = True
    if j < 0 or (label and not changed):
        return None
    word = c[j]
    if word.type != "word" or word.low in STOPWORDS or word.low in CONJUNCTIONS or _named(word.text):
        return None
    return None if stem(word.low) in GENERIC else word.low


TIME_UNITS = {word for word, unit in UNITS.items() if unit in SECONDS and len(word) > 1} | {"hr", "hrs"}


def _quantity(unit: str, number: str, former: bool, every: bool = False) -> Value:
    """A number of `unit` (as written: `days`, `h`, `requests`); durations in seconds, so `a week` is `7 days`, and
    `every` 15 minutes is how often."""
    normal = UNITS.get(unit)
    if normal in SECONDS:
        try:
            seconds = float(number.replace(",", "")) * SECONDS[normal]
        except ValueError:
            return Value("quantity", normal, number, former)
        shown = str(int(seconds)) if seconds == int(seconds) else f"{seconds:g}"
        if every:
            return Value("quantity", "frequency", shown, former, "how often")
        return Value("quantity", "duration", shown, former, "duration")
    return Value("quantity", normal or stem(unit), number, former)


def duration_text(seconds: str) -> str:
    """A duration's seconds as a person writes them: `604800` -> `7 d`, `14400` -> `4 h`, `0.25` -> `250 ms`."""
    try:
        value = float(seconds)
    except ValueError:
        return seconds
    for unit in ("d", "h", "min", "s"):
        if value >= SECONDS[unit] and value % SECONDS[unit] == 0:
            return f"{value / SECONDS[unit]:g} {unit}"
    return f"{value * 1000:g} ms"


CODE_WORDS = {
    "reply",
    "replies",
    "return",
    "returns",
    "respond",
    "responds",
    "answer",
    "answers",
    "status",
    "http",
    "exit",
    "code",
    "errno",
}
# a word and its opposite, each read as one of two sides: "lower score" against "higher scores"
OPPOSITES = {
    "lower": "low", "low": "low", "higher": "high", "high": "high", "less": "less", "more": "more", "fewer": "less",
    "smaller": "small", "larger": "large", "bigger": "large", "before": "before", "after": "after",
    "ascending": "asc", "descending": "desc", "asc": "asc", "desc": "desc", "increase": "up", "decrease": "down",
    "above": "above", "below": "below", "always": "always", "never": "never", "enable": "yes", "disable": "no",
    "allow": "yes", "deny": "no", "sync": "sync", "async": "async", "synchronous": "sync", "asynchronous": "async",
}  # fmt: skip
NOT_VALUES = ("identifier", "code", "url", "flag", "cjk")  # token types never read as values
FREQUENCIES = {"hourly": "3600", "daily": "86400", "nightly": "86400", "weekly": "604800"}  # how often, in seconds
MAY_BE_VALUES = {*NUMBER_WORDS, *OPPOSITES, *BOOLEANS, *FREQUENCIES, "a", "an"}  # the words that may be
ASSIGNS = {"is", "=", "are", "defaults", "default", "set", "equals"}  # KEY is VALUE, KEY defaults to VALUE
SKIPPED_BEFORE_VERSION = {
    "version",
    "versions",
    "pinned",
    "pin",
    "api",
    "floor",
    "minimum",
    "min",
    "v",
    "release",
    "lts",
}


def _key_before(c: list[_Token], i: int) -> str | None:
    """The setting a value at `i` is given to: `KEY is V`, `KEY = V`, `KEY defaults to V`, `KEY set to V`."""
    j = i - 1
    if j >= 0 and c[j].text.casefold() == "to":
        j -= 1
    if j < 1 or c[j].text.casefold() not in ASSIGNS:
        return None
    key = c[j - 1]
    if key.type in ("identifier", "code") or (key.type == "word" and ("-" in key.text or key.text.isupper())):
        return key.text
    return None


def _product(c: list[_Token], i: int) -> str:
    """What a version is of: the nearest name before it in its clause (`Postgres 14`, `Stripe API pinned to X`,
    `requires-python >=3.12`), as its last word without digits (`python3` -> `python`); '' when none is named."""
    for tok in reversed(c[max(0, i - 6) : i]):
        word = tok.text.casefold()
        if word in SKIPPED_BEFORE_VERSION or tok.type not in ("word", "identifier"):
            continue
        if tok.type == "identifier" or _named(tok.text) or "-" in tok.text:
            letters = re.findall(r"[^\W\d_]+", word)
            return stem(letters[-1]) if letters else ""
    return ""


def _is_name(tok: _Token) -> bool:
    return tok.type in NAMED or (tok.type == "word" and _named(tok.text) and tok.low not in STOPWORDS)


def _named(word: str) -> bool:
    """Whether a word is written as a name: capitalised, or with a capital inside (iOS, macOS)."""
    return not word.islower() and any(ch.isupper() for ch in word)


def _before(c: list[_Token], i: int, n: int) -> list[str]:
    return [t.low for t in c[max(0, i - n) : i]]


def _setting(key: str, value: str, former: bool) -> Value:
    """A setting's value, its key as the stems of its parts (`CHROMA_PORT`, `chroma-port` -> `chroma port`)."""
    value = value.strip(EDGE)
    if NUMBER.match(value) or VERSION.match(value):
        value = _number_text(value)
    normal = BOOLEANS.get(value.casefold(), value.casefold())
    return Value("setting", " ".join(stem(p) for p in PART.findall(key)), normal, former, key.strip(EDGE))


def _former(toks: list[_Token], i: int) -> bool:
    """Whether the value at `i` is the one given up: after `from`, `instead of`, `not`, `no longer`, `was`, or
    before `is not` (`3.45 is not required`) or `was`."""
    after = [t.low for t in toks[i + 1 : i + 3]]
    if after[:1] in (["isn't"], ["aren't"]) or (after[:1] in (["is"], ["are"], ["was"]) and after[1:] == ["not"]):
        return True
    if "was" in after or "were" in after:  # "the hourly schedule was too stale": a value of the past
        return True
    for j in (i - 1, i - 2):
        if j >= 0 and toks[j].clause == toks[i].clause:
            word = toks[j].low
            if word in FORMER or word in ("not", "than"):
                return True
            if toks[j].type != "word" or word not in ("of", "the", "longer", "on", "at", "to"):
                break
    return False


def _segments(clauses: list[list[_Token]]) -> list[list[_Token]]:
    """The clauses cut again before each conjunction: "use JSC again | since Hermes crashed"."""
    found = []
    for clause in clauses:
        segment: list[_Token] = []
        for tok in clause:
            if tok.low in CONJUNCTIONS and segment:
                found.append(segment)
                segment = []
            segment.append(tok)
        found.append(segment)
    return found


def _absent(words: list[str]) -> tuple[int, int, int] | None:
    """Where a segment says a noun phrase is no more: (where the phrase starts, the copula's index, the index after
    the words saying so), for "X is gone", "X was removed", "X is being removed", "X is not configured". The phrase
    is the few words before the copula, back to an "and" ("... and the CloudFront distribution is deleted")."""
    for k, word in enumerate(words[1:], 1):
        if word not in COPULAS:
            continue
        j = k + 1
        if j < len(words) and words[j] == "being":
            j += 1
        if j < len(words) and words[j] in ABSENT:
            end = j + 1
        elif j + 1 < len(words) and words[j] == "not" and words[j + 1] in NOT_THERE:
            end = j + 2
        else:
            continue
        start = k
        while start > 0 and k - start < 4 and words[start - 1] not in NP_BREAKS:
            start -= 1
        return start, k, end
    return None


def _negation(clauses: list[list[_Token]]) -> tuple[set[str], set[str], set[str], set[str]]:
    """The stems a negation denies, those of them said to be no more, the stems stated plainly, and those stated
    only beside a failure.

    A negation ("not", "never", "no", "without", "don't" ...) denies the first word after it (with any joined to
    it by "or"): "never auto-apply", "not RabbitMQ or SQS"; so does a replacement ("replaced Black", "instead of
    Redis"). "no" counts only right before a word ("no such column" and YAML's "no as False" deny nothing), "not
    only" adds rather than denies, and a segment with "forbidden" (or "banned" ...) denies all its words. What comes
    before "is gone", "was removed", "is off", "is not configured" is denied. A segment (a clause, cut again before
    a conjunction) with "only" ("applied only after a human ticks them") states nothing plainly: it is a condition,
    not a yes or a no; one that tells of a failure ("a stray print() corrupts the stream") states a symptom.
    """
    negated: set[str] = set()
    removed: set[str] = set()
    asserted: set[str] = set()
    beside_failure: set[str] = set()
    plain: set[str] = set()
    for segment in _segments(clauses):
        words = [t.low for t in segment]
        if not PROHIBITION.isdisjoint(words):
            negated.update(p for t in segment for p in t.parts)
            continue
        stated: set[str] = set()
        absent = _absent(words)
        if absent is not None:  # the phrase before the copula is denied, the rest read as usual
            start, copula, after = absent
            removed.update(p for t in segment[start:copula] for p in t.parts)
            segment, words = segment[:start] + segment[after:], words[:start] + words[after:]
        qualified = "only" in words
        pending = denied = False  # a negation waits for its word; after it, the clause is its context
        replacing = False
        for i, tok in enumerate(segment):
            word = words[i]
            following = words[i + 1] if i + 1 < len(words) else ""
            moved = word == "from" and i > 0 and words[i - 1] in MOVES
            if tok.type == "word" and (word in NEGATION or word in REPLACING or moved):
                if word in ("no", "nothing", "nobody", "none") and (following in STOPWORDS or not following):
                    continue  # "no such column", "logs nothing under load": no word of its own to deny
                if following in CLAUSE_WORDS:
                    continue  # "X is not why Y hangs": it denies a reason, not Y
                pending = following not in ("only", "just")
                replacing = word in REPLACING or moved
                continue
            if pending and word in ("or", "nor", "longer"):
                continue
            parts = tok.parts
            if pending and parts:
                (removed if replacing else negated).update(parts)
                # "not an ORM N+1", "not RabbitMQ or SQS": a name's names that follow, or a word joined by "or"
                pending = i + 1 < len(words) and (
                    words[i + 1] in ("or", "nor") or (_is_name(tok) and _is_name(segment[i + 1]))
                )
                denied = True
            elif not (qualified or denied):
                stated.update(parts)
        asserted |= stated
        if not FAILURE.isdisjoint([p for t in segment for p in t.parts]):
            beside_failure |= stated
        else:
            plain |= stated
    return negated | removed, removed, asserted, beside_failure - plain


def read(name: str, description: str) -> "Wording":
    """What the gardener reads in a memory's name and description."""
    return _read(name or "", description or "")


def _reader() -> bytes:
    """What a reading depends on besides the text: these rules (this file), the stemmer and Python's marshal."""
    try:
        rules = Path(__file__).read_bytes()
    except OSError:  # not a file: no stored reading is ever taken as this code's
        rules = repr(object()).encode()
    return hashlib.blake2b(rules + f"{Stemmer.version()}|{sys.version_info[:2]}".encode(), digest_size=8).digest()


READER = _reader()


def key(name: str, description: str) -> bytes:
    """What a stored reading of `name` and `description` is known by: the same only for the same text read by the
    same rules, so an index keeps its readings across runs and reads again only what changed."""
    text = f"{name or ''}\0{description or ''}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16, key=READER).digest()


def dump(reading: Wording) -> bytes:
    """A reading as bytes to store (sets sorted, so the same reading always gives the same bytes)."""
    return marshal.dumps(
        (
            tuple(sorted(reading.words)),
            tuple((v.kind, v.slot, v.value, v.former, v.label) for v in reading.values),
            tuple(sorted(reading.negated)),
            tuple(sorted(reading.removed)),
            tuple(sorted(reading.asserted)),
            tuple(sorted(reading.troubled)),
            tuple(sorted(reading.names)),
            tuple(sorted(reading.instances)),
            tuple(sorted(reading.qualifiers)),
            tuple(sorted(reading.sides)),
            reading.signature,
            reading.vague,
            tuple(sorted(reading.spelling.items())),
        )
    )


def load(data: bytes) -> Wording:
    """The reading `dump` stored."""
    (words, values, negated, removed, asserted, troubled, names, instances, qualifiers, sides, signature, vague,
     spelling) = marshal.loads(data)  # fmt: skip
    return Wording(
        words=_frozen(words),
        values=tuple(Value(*v) for v in values),
        negated=_frozen(negated),
        removed=_frozen(removed),
        asserted=_frozen(asserted),
        troubled=_frozen(troubled),
        names=_frozen(names),
        instances=_frozen(instances),
        qualifiers=_frozen(qualifiers),
        sides=_frozen(sides),
        signature=signature,
        vague=vague,
        spelling=dict(spelling),
    )


@functools.lru_cache(maxsize=4096)
def _read(name: str, description: str) -> Wording:
    toks = tokens(description)
    clauses = _clauses(toks)
    spelling: dict[str, str] = {}
    for tok in toks:
        for part in tok.parts:
            if part not in spelling:
                spelling[part] = tok.text
    described = _frozen(spelling)
    name_parts = [stem(p) for p in PART.findall(name) if not p.isdigit() and p.casefold() not in STOPWORDS]
    for part in PART.findall(name):
        spelling.setdefault(stem(part), part)
    negated, removed, asserted, troubled = _negation(clauses)
    return Wording(
        words=described.union(name_parts),
        values=tuple(_values(clauses)),
        negated=_frozen(negated),
        removed=_frozen(removed),
        asserted=_frozen(asserted),
        troubled=_frozen(troubled),
        names=_frozen(_names(toks)),
        instances=_frozen(_instances(toks)),
        qualifiers=_frozen(QUALIFIERS[t.low] for t in toks if t.low in QUALIFIERS and t.type == "word"),
        sides=_frozen(SIDES[p] for p in asserted if p in SIDES),
        signature=_signature([part for tok in toks for part in tok.parts], description),
        vague=vagueness(description, toks),
        spelling=spelling,
    )


NAMED = ("identifier", "code", "path", "url", "flag", "pin")


def _names(toks: list[_Token]) -> set[str]:
    """The stems of what a description names: identifiers, code, paths, and capitalised words (but its first word,
    which is capitalised anyway); a setting's key, not its value."""
    found: set[str] = set()
    for n, tok in enumerate(toks):
        if tok.type == "pin":
            found.update(_word_parts(tok.text.rpartition("@")[0]))
        elif tok.type in NAMED:
            found.update(p for p in tok.parts if not p.isdigit())
        elif tok.type == "assignment":
            found.update(_word_parts(tok.text.partition("=")[0]))
        elif tok.type == "word" and n and _named(tok.text) and tok.low not in STOPWORDS:
            found.update(tok.parts)
    return found - GENERIC


def _instances(toks: list[_Token]) -> set[tuple[str, ...]]:
    """The compound names a description uses (`harbor-prod`, `snowflake_pool`, the bucket of `s3://atlas-curated`),
    each as the stems of its two or three parts; not the values (an assignment, a port, a version) nor commands."""
    found: set[tuple[str, ...]] = set()
    for tok in toks:
        if tok.type == "identifier" or (tok.type == "word" and "-" in tok.text.strip("-")):
            parts = tuple(p for p in tok.parts if not p.isdigit())
        elif tok.type == "url" and "://" in tok.text:  # a bucket or a host: s3://atlas-raw-events/...
            parts = tuple(p for p in _word_parts(tok.text.split("://", 1)[1].split("/", 1)[0]) if not p.isdigit())
        else:
            continue
        if 2 <= len(parts) <= 3:
            found.add(parts)
    return found


def _signature(ordered: list[str], description: str) -> str:
    """Equal for descriptions that differ only in case, punctuation, stop words and word endings; a description
    with no words at all is compared as written (less spaces), so `???` and `!!!` stay apart."""
    text = " ".join(ordered) if ordered else " ".join(description.casefold().split())
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


CONCRETE = ("number", "version", "path", "url", "port", "assignment", "flag", "identifier", "code", "pin")


def vagueness(description: str, toks: list[_Token] | None = None) -> str | None:
    """Why `description` is one no future agent could act on, or None: no words at all, too few words with nothing
    concrete, or nothing concrete (a name, number, path, command, identifier) among generic words."""
    toks = tokens(description) if toks is None else toks
    if not (LETTER.search(description) if description.isascii() else any(ch.isalpha() for ch in description)):
        return "it has no words, only numbers or punctuation" if description.strip() else "it is empty"
    if any(t.type in CONCRETE for t in toks):
        return None
    words = [t for t in toks if t.type in ("word", "cjk")]
    count = sum(len(t.parts) if t.type == "cjk" else 1 for t in words)
    if count < MIN_WORDS:
        return f"it has {count} word{'s' if count != 1 else ''} and nothing concrete (a name, number, path or command)"
    if any(t.type == "cjk" for t in words):
        return None  # generic words are known in English only
    # a compound ("force-push") counts as its words
    content = [(stem(p), p) for t in words for p in t.text.split("-") if p and p.casefold() not in STOPWORDS]
    specific = list(dict.fromkeys(p for s, p in content if s not in GENERIC))
    generic = list(dict.fromkeys(p for s, p in content if s in GENERIC))
    share = sum(s in GENERIC for s, _ in content)
    around = (
        f"{len(specific) or 'no'} specific one{'s' if len(specific) != 1 else ''}"
        f"{' (' + ', '.join(specific) + ')' if specific else ''}"
    )
    if len(specific) < MIN_SPECIFIC or (len(specific) < 3 and share > GENERIC_SHARE * len(content)):
        return f"generic words ({', '.join(generic) or 'none'}) around {around} and nothing concrete (a name, number, path or command)"
    if len(specific) <= TOPIC_AT_MOST:
        lows = [t.low for t in words]
        placeholder = next((w for w in lows if w in PLACEHOLDERS), None)
        if placeholder:
            return f"“{placeholder}” stands for what it does not say, around {around}, and nothing concrete"
        if _topic_only(words):
            return (
                f"it names a topic ({', '.join(specific)}) and says nothing about it: no claim, name, number or command"
            )
    return None


def _topic_only(words: list[_Token]) -> bool:
    """Whether a description is a generic word and a topic: "Gotcha about iOS builds", "Notes on the release", "A
    problem we had with push notifications": articles, generic words and stop words, then a word that introduces a
    topic, and after it no generic word (the topic is all there is)."""
    for i, tok in enumerate(words):
        if tok.low in TOPIC_WORDS:
            head = words[:i]
            if not head or not any(stem(t.low) in GENERIC for t in head):
                return False
            if any(t.low not in STOPWORDS and stem(t.low) not in GENERIC for t in head):
                return False
            return not any(stem(t.low) in GENERIC for t in words[i + 1 :])
        if tok.low not in STOPWORDS and stem(tok.low) not in GENERIC:
            return False
    return False
