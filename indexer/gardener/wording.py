"""What a memory's name and description say, for the gardener (SPEC section 12). No model, no index.

`read(name, description)` gives a `Wording`: the stems of its words (Snowball, through PyStemmer), the values it
states (a setting's value, a product's version, a port, a quantity in a unit, a file's path, a cloud region), what it
says changed ("moved to atlas", "goose is retired"), its compound names (`harbor-prod`), a signature shared by
descriptions that differ only in case, punctuation and word endings, and why the description is vague, if it is.
`indexer.store.sameness` judges two readings; the vague-description rules are at the end of this file
(`VAGUE_RULES`), each a small named function. tests/test_gardener_reads.py holds every rule's labelled examples.

Nothing is compiled or stemmed at import (a command that never reads a description does not pay for it): the
regular expressions, the stemmer and the generic words' stems are made on first use.

English words are stemmed as English; Cyrillic, Greek and Arabic words with their own Snowball stemmer; Chinese,
Japanese and Korean text, written without spaces, is read as overlapping pairs of characters.
"""

import functools
import hashlib
import itertools
import marshal
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

from indexer.store import lazy_re

# --- Word lists (data, not rules) ---


def _words(text: str) -> frozenset[str]:
    """The words of a list written as text, one or more a line."""
    return frozenset(text.split())


STOPWORDS = _words(
    """
    a an the and or but if then than so as at by for from in into of on onto to with within without via per through
    across against during is are was were be been being am it its it's this that these those there here we our us
    you your they their them
    he she his her i me my do does did done doing has have had having can could will would shall should may might
    must also too very just only still yet again even ever about above after before below between both each few
    more most other some such own same any all what which who whom whose when where why how while until up down out
    off over under further once nor not no never e.g i.e etc vs now new
    """
)
# Words that say nothing a future agent could act on by themselves ("notes about the console" is a generic word and
# one topic). Compared as stems, so one form of each word is enough.
GENERIC_WORDS = _words(
    """
    note notes stuff thing things info information misc miscellaneous various detail details general overview summary
    learning learnings learned lesson lessons tip tips thought thoughts idea ideas todo update updates fix fixes fixed
    bug bugs issue issues problem problems gotcha gotchas decision decisions runbook protocol reference references
    refuted constraint stage work working worked works important remember remembering reminder reminders useful interesting
    relevant related regarding concerning context background random check checked careful keep mind later today
    yesterday tomorrow
    session sessions meeting meetings discussion discussed decided architecture approach plan plans next step steps
    project projects code codebase system systems app application setup config configuration settings performance
    behaviour behavior flaky weird strange broken see body below above question questions investigation research
    finding findings workaround workarounds trick tricks quirk quirks caveat caveats consideration considerations
    practice practices guideline guidelines rule rules process procedure way ways how doing improvement improvements
    change changes changed handle handling help helpful use using used make making made get getting got need needs
    know known want try tried future forget don't time times team teams people person someone something anything
    everything area part parts piece pieces point points aspect aspects case cases item items list lists good bad
    better best worse worst nice okay fine hard easy quick slow fast simple complex main current old latest recent
    recently first last docs doc documentation documented explanation explained description hit saw seen found happen
    happened happens noticed ran encounter encountered properly correctly usual usually normal normally standard
    appropriate appropriately error errors follow
    """
)
GENERIC_UPPER = _words("API UI DB CI CD PR ID URL CLI SDK TODO FYI ASAP NB OK TBD WIP")
# words that stand for what was not said: "the rate limit stuff", "the thing with the cache"
PLACEHOLDERS = _words("stuff thing things misc miscellaneous various etc whatever random this")
# after a generic word, these introduce a bare topic: "notes on X", "a problem we had with X"
TOPIC_WORDS = _words("about on for with regarding re around concerning of from in")
# the value after these is the one given up: "moved from 8001", "instead of 5432", "not 3.10", "past 2.9.3"
FORMER = _words("from instead formerly previously replacing replaced was were not than past")
ARROWS = _words("-> → =>")  # "Postgres 14 -> 16": the value before the arrow is the one given up
# a setting's key, one of these, (to) its value: `KEY is 20`, `KEY defaults to 8000`, `KEY raised to 300 s`
ASSIGNS = _words("is = are defaults default set equals raised lowered dropped increased reduced bumped")
# words that say a thing changed to the value after "to" ("upgraded to 24.08", "raised to 300 s"), or from what
# follows "from" ("moved from the cookie store to Redis")
CHANGED_TO = _words(
    "moved migrated switched upgraded downgraded raised lowered increased decreased reduced bumped changed"
)
# words that say what comes before them (after "is", "was" ...) is no more: "goose is retired", "JSC was removed"
GONE = _words("retired removed deleted dropped gone unbound cancelled canceled decommissioned uninstalled")
COPULAS = _words("is are was were be been being has have had got now also")
# a clause that starts with one of these tells what happens to any such thing, not of a change: "a dbt model that
# waits 10 minutes in the queue is cancelled", "any job over an hour is killed"
ANY_SUCH = _words("a an any every each")
REPLACING = _words("replaced replaces replacing")  # "ruff replaced Black": Black is no more
BOOLEANS = {
    "true": "yes", "yes": "yes", "on": "yes", "enabled": "yes", "enable": "yes",
    "false": "no", "no": "no", "off": "no", "disabled": "no", "disable": "no", "none": "no",
}  # fmt: skip
UNITS = {
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s",
    "seconds": "s", "m": "min", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
    "hrs": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "week", "weeks": "week",
    "%": "%", "k": "k", "kb": "kb", "mb": "mb", "gb": "gb", "g": "gb", "px": "px", "x": "x",
}  # fmt: skip
SECONDS = {"ms": 0.001, "s": 1, "min": 60, "h": 3600, "d": 86400, "week": 604800}  # durations compare in seconds
PORT_WORDS = _words("port ports")
# skipped looking back from a version to its product: "Airflow is pinned to 2.9.3", "Expo SDK 51"
BEFORE_VERSION = _words(
    "version versions pinned pin api floor minimum min v release lts sdk is at to on past from than -> → =>"
)
CONJUNCTIONS = _words("because since so but when if unless while whereas although though and or")
# words that tell of a change, in the clause that says what changed: "Ingress moved to the ALB controller", "Fly
# machines run in fra, iad and sin now", "hooks are no longer installed locally", "uses JSC again"
NEWS = CHANGED_TO | GONE | REPLACING | _words("now again renamed scaled anymore")
NEWS_AFTER = {"no": "longer", "any": "more"}  # "no longer", "any more": a change in two words
NEWS_WORDS = NEWS | frozenset(NEWS_AFTER.values())
CHANGES = CHANGED_TO | GONE | REPLACING  # the words `changes` reads
# words that deny the word after them: "agents never auto-apply", "not the CSI driver", "nothing secret"
NEGATIONS = _words("not never no nor cannot without nobody nothing none")


# --- Patterns, compiled on first use ---

# Kana, CJK ideographs and Hangul (each character a word), compiled only for a token that holds a character at or
# above the first of them (the wide ranges cost 3 ms to compile: a store in Latin script never pays it)
CJK_FIRST = "\u3040"
CJK = lazy_re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


@functools.cache
def _patterns() -> SimpleNamespace:
    c = re.compile
    return SimpleNamespace(
        # a code span, a clause boundary, or a run of anything that is not a space or a separator
        token=c(
            r"`(?P<code>[^`]*)`|(?P<stop>[;:,.!?]+(?=\s|$)|\s[-–—]+\s|[()\[\]{}|])"
            r"|(?P<raw>[^\s,;()\[\]{}\"`|]+)"
        ),
        part=c(r"[^\W_]+"),  # the letters-and-digits runs of an identifier
        letters=c(r"[^\W\d_]+"),
        letter=c(r"[A-Za-z]"),
        url=c(
            r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S+$|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|io|dev|net|app|shop|"
            r"internal)(?:/\S*)?$",
            re.I,
        ),
        host_port=c(r"^(?:[A-Za-z][\w-]*(?:\.[\w-]+)*|\d+(?:\.\d+){3}):(\d{2,5})(?:/\S*)?$"),
        assignment=c(r"^([A-Za-z_][\w.-]*)=(\S+)$"),
        pin=c(r"^([A-Za-z][\w.-]*)@[v^~=]*(\d+(?:\.\d+)*(?:[.+-]?[a-z][\w.]*)?)$", re.I),  # expo@51.0.28
        flag=c(r"^--?[a-z][\w-]*(?:=\S+)?$", re.I),
        date=c(r"^\d{4}-\d{2}-\d{2}(?:T[\d:]+Z?)?$"),
        version=c(r"^(?:v|>=|<=|==|~=|\^)?(\d+(?:\.\d+)+(?:[.+-]?[a-z][\w.]*)?|\d{4}-\d{2}-\d{2}\.[a-z]\w*)\+?$", re.I),
        number=c(r"^[-+]?(\d+(?:[.,]\d+)?)(%|x|ms|s|h|m|d|k|g|kb|mb|gb|px)?\+?$", re.I),
        number_unit=c(r"^(\d+(?:\.\d+)?)-([a-z]{2,})$", re.I),  # 48-bit, 10-minute
        camel=c(r"[a-z][A-Z][a-z]|[A-Z]{2,}[a-z]"),  # tracesSampleRate, HTTPServer; not iOS or macOS
        upper=c(r"^[A-Z][A-Z0-9]+$"),
        inner_dot=c(r"\w\.\w"),
        # a cloud region: AWS (`us-east-1`, `eu-central-1`, `us-gov-west-1`), Google (`europe-west4`, `us-central1`)
        region=c(
            r"^(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)(?:-gov)?-(?:north|south|east|west|central)(?:east|west)?-\d|"
            r"(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:north|south|east|west|central)"
            r"(?:east|west)?\d)$"
        ),
    )


# --- Stems ---


@functools.cache
def _stemmer(language: str):
    import Stemmer  # PyStemmer: loaded with the first reading, not with this module

    return Stemmer.Stemmer(language)


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball stem of one word, in its script's language (English for Latin letters)."""
    word = word.casefold()
    for ch in word:
        if ch.isalpha():
            if not ch.isascii():
                name = unicodedata.name(ch, "")
                for script, language in (("CYRILLIC", "russian"), ("GREEK", "greek"), ("ARABIC", "arabic")):
                    if name.startswith(script):
                        return _stemmer(language).stemWord(word)
            break
    return _stemmer("english").stemWord(word)


@functools.cache
def generic() -> frozenset[str]:
    """The stems of GENERIC_WORDS."""
    return frozenset(stem(w) for w in GENERIC_WORDS)


def __getattr__(name: str):
    """`wording.GENERIC` (the generic words' stems) and `wording.READER` (`reader()`), made on first use."""
    if name == "GENERIC":
        return generic()
    if name == "READER":
        return reader()
    raise AttributeError(name)


# --- Tokens ---


@dataclass(slots=True)
class Token:
    text: str  # as written, without edge punctuation
    type: str  # word, number, version, date, path, url, port, assignment, pin, flag, identifier, code, cjk, arrow
    clause: int  # which clause of the description it is in
    parts: tuple[str, ...]  # the stems it adds to the word set
    low: str  # text.casefold()
    keyed: bool = False  # written `KEY:` (`maxUnavailable: 1`): the token after it is its value


EDGE = "\"'.,:;!?*“”‘’«»"  # stripped from a raw token's ends
CONCRETE = frozenset(["number", "version", "path", "url", "port", "assignment", "flag", "identifier", "code", "pin"])


def tokens(text: str) -> list[Token]:
    """The description's tokens, each with its type and clause."""
    found: list[Token] = []
    clause = 0
    for code, stop, raw in _patterns().token.findall(text):
        if stop:
            clause += 1
        elif raw:
            if raw in ARROWS:
                found.append(Token(raw, "arrow", clause, (), raw))
                continue
            core, type_, ends, keyed, parts, low = _raw(raw)
            if core:
                found.append(Token(core, type_, clause, parts, low, keyed))
            clause += ends
        elif code and code.strip():
            text_ = code.strip()
            found.append(Token(text_, "code", clause, _parts(text_, "code"), text_.casefold()))
    return found


@functools.lru_cache(maxsize=100_000)
def _raw(raw: str) -> tuple[str, str, bool, bool, tuple[str, ...], str]:
    """A raw token without its edge punctuation, its type, whether it ends a clause (`word;`, `done.`), whether it is
    a key written `KEY:` (its value follows in the same clause), its parts and its casefolded text."""
    core = raw.strip(EDGE)
    if core.endswith(("'s", "’s")) and len(core) > 2:  # SDK 52's architecture, Helm's default
        core = core[:-2]
    end = raw.rstrip("\"'*”’»")
    if raw.startswith(":") and 2 <= len(core) <= 5 and core.isdigit():  # `on :8080`
        port = ":" + core
        return port, "port", end.endswith((".", ";", "!", "?")), False, _parts(port, "port"), port
    type_ = _type_of(core) if core else ""
    keyed = end.endswith(":") and not end.endswith("::") and type_ == "identifier"
    ends = end.endswith((".", ":", ";", "!", "?")) and type_ not in ("url", "path") and not keyed
    return core, type_, ends, keyed, _parts(core, type_) if core else (), core.casefold()


@functools.lru_cache(maxsize=100_000)
def _type_of(token: str) -> str:
    p = _patterns()
    for type_, pattern in (
        ("url", p.url), ("port", p.host_port), ("assignment", p.assignment), ("pin", p.pin), ("flag", p.flag),
        ("date", p.date), ("version", p.version), ("number", p.number), ("number", p.number_unit),
    ):  # fmt: skip
        if pattern.match(token):
            return type_
    if "/" in token and (token[0] in "/~." or token.endswith("/") or "." in token.rsplit("/", 1)[-1]):
        return "path"
    if max(token, default="") >= CJK_FIRST and CJK.search(token):
        return "cjk"
    if "_" in token or p.camel.search(token) or p.inner_dot.search(token) or token[0] in ".@#" or "()" in token:
        return "identifier"
    if p.upper.match(token) and token not in GENERIC_UPPER:
        return "identifier"
    if any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token):
        return "identifier"
    return "word"


@functools.lru_cache(maxsize=100_000)
def _parts(text: str, type_: str) -> tuple[str, ...]:
    """The stems a token of this text and type adds to the word set."""
    if type_ in ("number", "version", "date"):
        return (number_text(text),)
    if type_ == "cjk":
        letters = [ch for ch in text if not ch.isspace()]
        return tuple("".join(letters[i : i + 2]) for i in range(max(1, len(letters) - 1)))
    if type_ == "pin":
        package, _, version = text.rpartition("@")
        return (*_word_parts(package), number_text(version))
    if type_ == "assignment":
        key, _, value = text.partition("=")
        return (*_word_parts(key), *((number_text(value),) if _patterns().number.match(value) else _word_parts(value)))
    return _word_parts(text)


@functools.lru_cache(maxsize=100_000)
def _word_parts(text: str) -> tuple[str, ...]:
    parts = []
    for part in _patterns().part.findall(text):
        if part.isdecimal():  # isdigit() is also true of ¹ and ①, which int() refuses
            parts.append(str(int(part)) if len(part) < 6 else part)
        elif part.casefold() not in STOPWORDS:
            parts.append(stem(part))
    return tuple(parts)


def number_text(text: str) -> str:
    """A number as compared: no sign, unit or `v`, no leading zeros (`v3.12+` -> `3.12`)."""
    p = _patterns()
    m = p.number.match(text)
    if m:
        number = m[1].replace(",", "")
        return number.lstrip("0") or "0" if number.isdigit() else number
    m = p.number_unit.match(text)
    if m:
        return m[1]
    return text.strip("v+^~=<>@").casefold()


def _named(word: str) -> bool:
    """Whether a word is written as a name: capitalised, or with a capital inside (iOS, macOS)."""
    return not word.islower() and any(ch.isupper() for ch in word)


def _clauses(toks: list[Token]) -> list[list[Token]]:
    clauses: list[list[Token]] = []
    at = -1
    for tok in toks:
        if tok.clause != at:
            clauses.append([])
            at = tok.clause
        clauses[-1].append(tok)
    return clauses


# --- Values ---


@dataclass(frozen=True)
class Value:
    """A value a description states: `kind` (setting, version, port, quantity, path, region, number), the `slot` it fills
    (a setting's key, a product, a unit, a file's name; '' for a port or a bare number) and the `value`, normalised.
    `former`: stated as the one given up ("moved from 8001", "14 -> 16"). `label`: the slot as written."""

    kind: str
    slot: str
    value: str
    former: bool = False
    label: str = ""


def values(clauses: list[list[Token]]) -> list[Value]:
    """The values the description states, clause by clause."""
    found: list[Value] = []
    for n, clause in enumerate(clauses):
        for i, tok in enumerate(clause):
            if (
                tok.type == "word"
                and tok.low not in BOOLEANS
                and not (i and (clause[i - 1].keyed or clause[i - 1].low == "="))
            ):
                continue  # most tokens (`_value_at` would say so too)
            value = _value_at(clause, i)
            if value is not None:
                found.append(value)
                if value.kind == "setting" and tok.type in ("number", "version"):
                    found.append(_number_value(clause, i, value.former, keyed=False))  # `auto-suspend 300 s`: 300 s
        # `6000 characters (briefing.budget_chars)`: a clause that is only a key names the value before it
        alone = n and len(clause) == 1 and clause[0].type == "identifier"
        if alone and found and found[-1].kind == "quantity" and clause[0].clause == clauses[n - 1][-1].clause + 1:
            found.append(_setting(clause[0].text, found[-1].value, found[-1].former))
    return found


def _url_port(url: str) -> str:
    """The port a URL gives after its host (`http://localhost:8080/admin`: 8080), or ''."""
    host = url.partition("://")[2].split("/", 1)[0]
    port = host.rpartition(":")[2] if ":" in host else ""
    return port if port.isdigit() and 2 <= len(port) <= 5 else ""


def _value_at(c: list[Token], i: int) -> Value | None:
    """The value token `i` of clause `c` states, if any."""
    tok = c[i]
    type_ = tok.type
    if type_ == "url" and (port := _url_port(tok.text)):  # `http://localhost:8080`: a port, as `localhost:8080`
        return Value("port", "", port, _former(c, i), "port")
    if type_ == "identifier" and _patterns().region.match(tok.low):  # `us-east-1`: where a thing runs
        return Value("region", "region", tok.low, _former(c, i), "region")
    if type_ == "identifier" and tok.text.count("/") >= 2 and "://" not in tok.text:  # a topic `bw/<id>/telemetry`
        name = tok.text.rstrip("/").rsplit("/", 1)[-1].casefold()
        return Value("path", name, tok.text.casefold(), _former(c, i), name)
    if type_ in ("word", "identifier", "code", "url"):  # only as a setting's: `KEY is True`, `KEY = only`, `KEY: nginx`
        if not (tok.low in BOOLEANS or (i and (c[i - 1].keyed or c[i - 1].low == "="))):
            return None
        setting = _key_before(c, i, any_value=True)
        if setting is None or (type_ == "word" and _named(tok.text) and tok.low not in BOOLEANS):
            return None
        return _setting(setting, tok.text, _former(c, i))
    if type_ in ("number", "version"):
        return _number_value(c, i, _former(c, i))
    if type_ == "assignment":
        key, _, value = tok.text.partition("=")
        return _setting(key, value, _former(c, i))
    if type_ == "port":
        return Value("port", "", tok.text.rpartition(":")[2].split("/")[0], _former(c, i), "port")
    if type_ == "pin":  # expo@51.0.28: a version of expo
        package, _, version = tok.text.rpartition("@")
        return Value("version", _last_word(package), number_text(version), _former(c, i), package)
    if type_ == "path":
        name = tok.text.rstrip("/").rsplit("/", 1)[-1].casefold()
        return Value("path", name, tok.text.casefold(), _former(c, i), name)
    if type_ == "flag" and "=" in tok.text:
        key, _, value = tok.text.lstrip("-").partition("=")
        return _setting(key, value, _former(c, i))
    if type_ == "date" and i and c[i - 1].low in ("version", "api"):  # Stripe API version 2024-06-20
        product = _product(c, i)
        return Value("version", product, tok.low, _former(c, i), product)
    return None


def _number_value(c: list[Token], i: int, former: bool, keyed: bool = True) -> Value:
    """What a number states: a setting's value (`STRIPE_TIMEOUT is 20`), a quantity in a unit (`60 s`, `8g`, `10
    threads`), a port (`port 8080`), a product's version (`Postgres 16`, `Airflow is pinned to 2.9.3`), or a bare
    number."""
    tok = c[i]
    number = number_text(tok.text)
    after = c[i + 1] if i + 1 < len(c) else None
    p = _patterns()
    written = p.number.match(tok.text) or p.number_unit.match(tok.text)
    if written and written[2]:
        unit = written[2]
    elif after is not None and after.type == "word" and after.low in UNITS:
        unit = after.low
    else:
        unit = ""
    key = _key_before(c, i) if keyed else None
    if key is not None:
        return _setting(key, f"{number}{unit}", former)
    if unit:
        return _quantity(unit, number, former)
    if i and c[i - 1].low in PORT_WORDS:
        return Value("port", "", number, former, "port")
    if tok.type == "number" and after is not None and _counted(after):
        return _quantity(after.low, number, former)  # 10 threads, 8 slots, 200 characters
    product = _product(c, i - 2 if i > 1 and c[i - 1].type == "arrow" else i)  # Postgres 14 -> 16
    if product:
        return Value("version", product, number, former, product)
    if tok.type == "version":
        return Value("version", "", number, former)
    return Value("number", "", number, former)


def _counted(tok: Token) -> bool:
    """Whether a word after a number is what it counts: a plural noun (`10 threads`, `8 slots`)."""
    text = tok.text
    return (
        tok.type == "word"
        and text.isalpha()
        and text.islower()
        and text.endswith("s")
        and not text.endswith("ss")
        and text not in STOPWORDS
        and text not in CONJUNCTIONS
    )


def _former(c: list[Token], i: int) -> bool:
    """Whether the value at `i` is the one given up: after `from`, `instead of`, `not`, `was`, `past`, `than`
    (one or two words before it), or before an arrow (`14 -> 16`)."""
    if i + 1 < len(c) and c[i + 1].type == "arrow":
        return True
    for j in (i - 1, i - 2):
        if j < 0:
            break
        if c[j].low in FORMER:
            return True
        if c[j].low not in ("of", "the", "longer", "on", "at", "to"):
            break
    return False


def _key_before(c: list[Token], i: int, any_value: bool = False) -> str | None:
    """The setting the value at `i` is given to: `KEY is V`, `KEY = V`, `KEY: V`, `KEY defaults to V`, `KEY raised
    to V`, `--flag V`, the key written as one (`_key_like`). A word (`any_value`) is a value only after `=` or
    `KEY:`, or if it is a yes or a no."""
    j = i - 1
    if any_value and c[i].low not in BOOLEANS and not (j >= 0 and (c[j].keyed or c[j].low == "=")):
        return None
    if j >= 0 and c[j].type == "flag" and not any_value:
        return c[j].text.lstrip("-")
    if j >= 0 and c[j].keyed and _key_like(c[j]):
        return c[j].text
    if j >= 0 and c[j].low == "to":
        j -= 1
    if j >= 0 and c[j].low in ("now", "again"):
        j -= 1
    if j < 1 or c[j].low not in ASSIGNS:
        return None
    return c[j - 1].text if _key_like(c[j - 1]) else None


def _key_like(tok: Token) -> bool:
    """Whether a token is written as a setting's key: `CHROMA_PORT`, `pull.rebase`, `tracesSampleRate`,
    `GOTOOLCHAIN`, `auto-suspend`; not a product's name (`SQLite`, `python3`)."""
    text = tok.text
    if tok.type == "word":
        return "-" in text.strip("-")
    if tok.type not in ("identifier", "code"):
        return False
    return any(ch in text for ch in "_.-") or (text[:1].islower() and not text.islower()) or text.isupper()


def _product(c: list[Token], i: int) -> str:
    """What a number is the version of: the name right before it, written as one (`Postgres 16`, `Node 20`, `Expo
    SDK 51`, `Airflow is pinned to 2.9.3`, `requires-python >=3.12`), as its last run of letters stemmed; ''
    when there is none."""
    for tok in reversed(c[max(0, i - 4) : i]):
        if tok.low in BEFORE_VERSION:
            continue
        named = tok.type == "identifier" or (tok.type == "word" and (_named(tok.text) or "-" in tok.text.strip("-")))
        return _last_word(tok.text) if named and tok.low not in STOPWORDS and tok.text not in GENERIC_UPPER else ""
    return ""


def _last_word(text: str) -> str:
    """The stem of the last run of letters of a name (`python3` -> python, `react-native` -> nativ)."""
    letters = _patterns().letters.findall(text)
    return stem(letters[-1]) if letters else ""


def _quantity(unit: str, number: str, former: bool) -> Value:
    """A number of `unit`; a duration in seconds, so `5m` and `300 s` are one value."""
    normal = UNITS.get(unit.casefold()) or stem(unit)
    if normal in SECONDS:
        try:
            seconds = float(number) * SECONDS[normal]
        except ValueError:
            return Value("quantity", normal, number, former, unit)
        shown = str(int(seconds)) if seconds == int(seconds) else f"{seconds:g}"
        return Value("quantity", "duration", shown, former, "duration")
    return Value("quantity", normal, number, former, unit)


def _setting(key: str, value: str, former: bool) -> Value:
    """A setting's value, its key as the stems of its parts (`CHROMA_PORT`, `chroma-port` -> `chroma port`); a
    duration as a person writes it (`15m` and `900s` are `15 min`), a yes/no word as yes or no."""
    value = value.strip(EDGE)
    p = _patterns()
    unit = p.number.match(value)
    if unit and unit[2] and UNITS.get(unit[2].casefold()) in SECONDS:
        value = duration_text(_quantity(unit[2], number_text(value), False).value)
    elif unit or p.version.match(value):
        value = number_text(value)
    value = BOOLEANS.get(value.casefold(), value.casefold())
    slot = " ".join(stem(part) for part in p.part.findall(key))
    return Value("setting", slot, value, former, key.strip(EDGE))


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


# --- What a memory says changed, and the names it uses ---


def changes(clauses: list[list[Token]], said: set[str] | None = None) -> tuple[set[str], set[str]]:
    """The value a memory says a thing changed to, and what it says is no more (phrases: the stems of its telling
    words, joined by spaces): "upgraded to 24.08" (to: 24.08), "raised to 300 s" (to: 300), "goose is retired"
    (gone: "goos"), "the CloudFront distribution was deleted" (gone: "cloudfront distribut"), "replaced Black"
    (gone: "black"), "moved from the cookie store to Redis" (gone: "cooki store"). What is gone is words, never a
    number (a value given up is a `former` value). `said`: the description's words, casefolded, when at hand."""
    to: set[str] = set()
    gone: set[str] = set()
    if said is not None and CHANGES.isdisjoint(said):
        return to, gone  # most descriptions
    for c in clauses:
        lows = [t.low for t in c]
        if lows[0] in ANY_SUCH:
            continue  # what happens to any such thing ("a model that waits ... is cancelled"), not a change
        for i, word in enumerate(lows):
            phrase: list[str] = []
            if word in CHANGED_TO:  # `moved the queue to RabbitMQ`, `moved from the cookie store to Redis`
                near = lows[i + 1 : i + 9]
                at = i + 1 + near.index("to") if "to" in near else len(c)
                value = next((t for t in c[at + 1 : at + 4] if t.type in ("number", "version", "port")), None)
                if value is not None:  # `upgraded to Kubernetes 1.31`
                    to.update(value.parts)
                if "from" in lows[i + 1 : at]:
                    start = lows.index("from", i + 1) + 1
                    phrase = _words_only(c[start : min(at, start + 3)])
            elif word in GONE and i and lows[i - 1] in COPULAS:
                k = i - 1
                while k >= 0 and lows[k] in COPULAS:
                    k -= 1
                phrase = _words_only(c[max(0, k - 2) : k + 1])  # the (up to three) words before the copula
            elif word in REPLACING:
                phrase = _words_only(c[i + 1 : i + 2])
            if phrase:
                gone.add(" ".join(phrase))
    return to, gone


def _telling(toks: list[Token]) -> list[str]:
    """The stems of `toks` that tell something (not stop words, not generic words), in order."""
    return [p for t in toks if t.low not in STOPWORDS for p in t.parts if p not in generic()]


def _words_only(toks: list[Token]) -> list[str]:
    """`_telling`, without values (a setting, a port, a path ...), numbers and units."""
    told = _telling([t for t in toks if t.type not in VALUE_TYPES])
    return [w for w in told if w not in UNITS and any(ch.isalpha() for ch in w)]


def compound_names(toks: list[Token]) -> set[str]:
    """The compound names a description uses (`harbor-prod`, `snowflake_pool`, the bucket of `s3://atlas-curated`),
    each as the stems of its two or three parts; not a setting, a port, a version or a flag."""
    found: set[str] = set()
    for tok in toks:
        if tok.type == "identifier" or (tok.type == "word" and "-" in tok.text.strip("-")):
            parts = [p for p in tok.parts if not p.isdigit()]
        elif tok.type == "url" and "://" in tok.text:  # a bucket or a host: s3://atlas-raw-events/...
            parts = [p for p in _word_parts(tok.text.split("://", 1)[1].split("/", 1)[0]) if not p.isdigit()]
        else:
            continue
        if 2 <= len(parts) <= 3:
            found.add(" ".join(parts))
    return found


VALUE_TYPES = frozenset(["number", "version", "date", "port", "url", "path", "assignment", "pin", "flag"])


def news(clauses: list[list[Token]], lows: set[str]) -> tuple[bool, set[str]]:
    """Whether the description tells of a change (a word of NEWS, "no longer", "any more"), and what the clauses that
    do say: their telling words but for the change words, and the numbers they state but for settings' (as
    `Value.value`, which starts with a digit): "Transactional email moved to Amazon SES" (email, transact, amazon,
    ses), "Fly machines run in fra, iad and sin now" (iad, sin), "Upgraded to Elixir 1.17" (elixir, 1.17). `lows`:
    the description's words, casefolded."""
    found: set[str] = set()
    if NEWS.isdisjoint(lows) and not ("no" in lows or "any" in lows):
        return False, found  # most descriptions
    told = False
    for c in clauses:
        words = [t.low for t in c]
        if words[0] in ANY_SUCH:
            continue  # what happens to any such thing
        if NEWS.isdisjoint(words) and not any(
            NEWS_AFTER.get(w) == after for w, after in itertools.pairwise(words) if w in NEWS_AFTER
        ):
            continue
        told = True
        found.update(_words_only([t for t in c if t.low not in NEWS_WORDS]))
        found.update(v.value for v in values([c]) if v.kind in NUMBER_KINDS[1:] and not v.former)
    return told, found


def denied(clauses: list[list[Token]], lows: set[str], text: str) -> set[str]:
    """The words a negation denies: the first telling word after `not`, `never`, `no`, `without`, `-n't` ... (not a
    stop word or a generic one: "agents never auto-apply": auto, appli; "not the old docker-compose": docker,
    compos). `lows`: the description's words, casefolded; `text`: the description."""
    found: set[str] = set()
    if NEGATIONS.isdisjoint(lows) and "n't" not in text and "n’t" not in text:
        return found  # most descriptions
    for c in clauses:
        for i, tok in enumerate(c):
            if tok.low in NEGATIONS or tok.low[-3:] in ("n't", "n’t"):
                after = next((t for t in c[i + 1 :] if _telling([t])), None)
                if after is not None and after.type not in VALUE_TYPES and NEWS_AFTER.get(tok.low) != after.low:
                    found.update(_telling([after]))
    return found


FORBIDDING = _words("never don't don’t")  # at a clause's head: "Don't install pre-commit hooks locally"


def orders(clauses: list[list[Token]], lows: set[str]) -> set[str]:
    """What it bids or forbids, as a rule is written: the first word of its first clause when that clause has no
    copula, as its stem ("Install pre-commit hooks in every repo": instal), and the word after any clause's opening
    "never", "don't" or "do not", as "!" and its stem ("Don't install pre-commit hooks locally": !instal; "not the old
    docker-compose" is not an order). `lows`: the description's words, casefolded."""
    found: set[str] = set()
    for c in clauses if not FORBIDDING.isdisjoint(lows) or "not" in lows else ():
        low = c[0].low
        if low in FORBIDDING or (low == "do" and len(c) > 1 and c[1].low == "not"):
            after = next((t for t in c[1 + (low == "do") :] if _telling([t])), None)
            if after is not None and after.type == "word":
                found.add("!" + _telling([after])[0])
    head = clauses[0] if clauses else None
    if head and head[0].type == "word" and head[0].low not in FORBIDDING and COPULAS.isdisjoint([t.low for t in head]):
        found.update(_telling(head[:1])[:1])
    return found


NAMING_TYPES = frozenset(["identifier", "code", "path", "url", "pin", "flag", "assignment"])


def named(toks: list[Token]) -> set[str]:
    """The stems of the things a description names: identifiers, code, paths, addresses, packages, flags, settings'
    keys, and words written as names (`Cloudflare`, `SES`; the first word only as a topic, `Billing: ...`: any
    sentence capitalises its first word)."""
    found: set[str] = set()
    common = generic()
    for i, t in enumerate(toks):
        if t.type in NAMING_TYPES:
            short = 0 if t.type == "flag" else 1  # `-r` names a flag
        elif t.type == "word" and t.text != t.low and (i or (len(toks) > 1 and toks[1].clause > t.clause)):
            short = 1
        else:
            continue
        if t.low not in STOPWORDS:
            found.update(p for p in t.parts if len(p) > short and not p[:1].isdigit() and p not in common)
    return found


# --- The reading ---

EMPTY: frozenset = frozenset()
NUMBER_KINDS = ("setting", "version", "port", "quantity", "number")  # values that may be numbers


def _frozen(items) -> frozenset:
    """`items` as a frozenset; the one empty frozenset when there are none (a settle holds many readings)."""
    found = frozenset(items)
    return found if found else EMPTY


@dataclass(frozen=True)
class Wording:
    """What the gardener reads in one memory's name and description."""

    words: frozenset[str]  # stems of the name and the description, numbers and identifiers' parts
    values: tuple[Value, ...]
    names: frozenset[str]  # its compound names, each as the stems of its parts: `harbor-prod` is "harbor prod"
    changed_to: frozenset[str]  # what it says a thing changed to ("upgraded to 24.08": 24.08)
    # what it says is no more, as phrases ("the CloudFront distribution is deleted": "cloudfront distribut")
    gone: frozenset[str]
    signature: str  # the same for descriptions that differ only in case, punctuation and word endings
    vague: str | None  # why the description is vague, or None
    announces: bool = False  # it tells of a change ("moved to", "now", "no longer")
    news: frozenset[str] = EMPTY  # the words of the clauses that tell of it
    denied: frozenset[str] = EMPTY  # the words a negation denies ("never auto-apply")
    named: frozenset[str] = EMPTY  # the things it names (`Cloudflare`, `ANALYTICS_WH`, `~/dotfiles/Brewfile`)
    orders: frozenset[str] = EMPTY  # what its clauses bid ("Install ...": instal) or forbid ("Don't install": !instal)
    kind: str = ""  # the memory's kind (decision, constraint, runbook, ...), given, not read; '' when not known
    spelling: dict[str, str] = field(default_factory=dict, compare=False)  # each of `words` as first written

    def spelled(self, stems) -> list[str]:
        """`stems` as the description (or name) writes them, each once."""
        return list(dict.fromkeys(self.spelling.get(s, s) for s in stems))

    @property
    def negated(self) -> frozenset[str]:
        """What a negation denies: no rule reads it any more (docs/performance.md), so none; kept for
        index/gardener_pairs.terms, whose `!` terms it feeds."""
        return EMPTY

    @functools.cached_property
    def telling(self) -> frozenset[str]:
        """Its words that tell something: all but the generic ones (numbers, names and specific words)."""
        return self.words - generic()

    @functools.cached_property
    def specific(self) -> frozenset[str]:
        """Its telling words that are words (not numbers)."""
        return _frozen(w for w in self.telling if any(ch.isalpha() for ch in w))

    @functools.cached_property
    def stated(self) -> dict[str, dict[str, list[Value]]]:
        """The values it states (not those it gives up) that fill a named slot, by kind and slot."""
        found: dict[str, dict[str, list[Value]]] = {}
        for value in self.values:
            if value.slot and not value.former:
                found.setdefault(value.kind, {}).setdefault(value.slot, []).append(value)
        return found

    @functools.cached_property
    def exact_values(self) -> frozenset[tuple[str, str, str]]:
        """(kind, slot, value) of the values it states that name one thing: a setting's value, a path, a product's
        version written with a dot (`Terraform 1.7.5`; `Route 53` or `Postgres 16` may be a name, or a major
        version of many)."""
        return _frozen(
            (v.kind, v.slot, v.value)
            for v in self.values
            if v.slot
            and not v.former
            and v.kind in ("setting", "path", "version")
            and (v.kind != "version" or "." in v.value)
        )

    @functools.cached_property
    def numbers(self) -> frozenset[str]:
        """Every number it states, whatever its kind."""
        return _frozen(v.value for v in self.values if v.kind in NUMBER_KINDS and v.value[:1].isdigit())


def read(name: str, description: str, kind: str = "") -> Wording:
    """What the gardener reads in a memory's name and description, of a memory of `kind` ('' when not known)."""
    return _read_of_kind(name or "", description or "", kind) if kind else _read(name or "", description or "")


@functools.lru_cache(maxsize=4096)
def _read_of_kind(name: str, description: str, kind: str) -> Wording:
    # kept as _read is: a settle asks again for the readings it let go of (dataclasses.replace costs 10 µs a call)
    return replace(_read(name, description), kind=kind)


@functools.lru_cache(maxsize=4096)
def _read(name: str, description: str) -> Wording:
    toks = tokens(description)
    clauses = _clauses(toks)
    lows = {t.low for t in toks}
    changed_to, gone = changes(clauses, lows)
    announces, told = news(clauses, lows)
    spelling: dict[str, str] = {}
    for tok in toks:
        for part in tok.parts:
            spelling.setdefault(part, tok.text)
    for part in _patterns().part.findall(name):
        if not part.isdigit() and part.casefold() not in STOPWORDS:
            spelling.setdefault(stem(part), part)
    return Wording(
        words=_frozen(spelling),
        values=tuple(values(clauses)),
        names=_frozen(compound_names(toks)),
        changed_to=_frozen(changed_to),
        gone=_frozen(gone),
        signature=_signature([part for tok in toks for part in tok.parts], description),
        vague=vagueness(description, toks, lows),
        announces=announces,
        news=_frozen(told),
        denied=_frozen(denied(clauses, lows, description)),
        named=_frozen(named(toks)),
        orders=_frozen(orders(clauses, lows)),
        spelling=spelling,
    )


def _signature(ordered: list[str], description: str) -> str:
    """Equal for descriptions that differ only in case, punctuation, stop words and word endings; a description
    with no words at all is compared as written (less spaces), so `???` and `!!!` stay apart."""
    text = " ".join(ordered) if ordered else " ".join(description.casefold().split())
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


# --- Vague descriptions: the rules, each a named function of the description, tried in order ---


@dataclass
class Described:
    """A description as the vague-description rules read it: its text, its tokens, and what they share, made once."""

    text: str
    toks: list[Token]
    # 2 when it has something concrete (a number, path, command, identifier) besides bare names (`MLflow`, `JVM`:
    # letters only), 1 when it has only bare names, 0 when it has nothing concrete (made at once: every rule reads it)
    concrete: int = field(init=False)

    def __post_init__(self):
        self.concrete = 0
        for t in self.toks:
            if t.type in CONCRETE:
                if t.type != "identifier" or not t.text.isalpha():
                    self.concrete = 2  # most descriptions
                    break
                self.concrete = 1

    @functools.cached_property
    def lows(self) -> set[str]:
        """Its tokens, casefolded."""
        return {t.low for t in self.toks}

    @functools.cached_property
    def words(self) -> list[Token] | None:
        """Its words, when it has nothing concrete (a name, number, path, command, identifier); None when it has."""
        if self.concrete:
            return None
        return [t for t in self.toks if t.type in ("word", "cjk")]

    @functools.cached_property
    def topics(self) -> list[Token] | None:
        """`words`, a bare name among them (`MLflow`, `JVM`): after "notes on", a name is the topic the description
        does not say anything about. None when it has something else concrete."""
        if self.concrete == 2:
            return None
        return [t for t in self.toks if t.type in ("word", "cjk", "identifier")]

    @functools.cached_property
    def content(self) -> list[tuple[str, str]] | None:
        """(stem, word) for each of `words` that is not a stop word, a compound ("force-push") as its words; None when
        it has something concrete, or words in a script whose generic words are not known (Chinese ...)."""
        return _content(self.words)

    @functools.cached_property
    def specific(self) -> list[str]:
        """Of `content`, the words that are not generic, each once."""
        return _specific(self.content)

    @functools.cached_property
    def topic_specific(self) -> list[str] | None:
        """`specific`, of `topics`; None when there is something concrete besides bare names."""
        content = _content(self.topics)
        return None if content is None else _specific(content)


def _content(words: list[Token] | None) -> list[tuple[str, str]] | None:
    if words is None or any(t.type == "cjk" for t in words):
        return None
    return [(stem(p), p) for t in words for p in t.text.split("-") if p and p.casefold() not in STOPWORDS]


def _specific(content: list[tuple[str, str]] | None) -> list[str]:
    return list(dict.fromkeys(p for s, p in content or () if s not in generic()))


def no_words(d: Described) -> str | None:
    """Nothing but numbers or punctuation: "8765 8001", "!!!"."""
    text = d.text
    if _patterns().letter.search(text) if text.isascii() else any(ch.isalpha() for ch in text):
        return None
    return "it has no words, only numbers or punctuation" if text.strip() else "it is empty"


def few_words(d: Described) -> str | None:
    """Fewer than three words, and nothing concrete (a name, number, path or command): "Misc tips", "TODO"."""
    if d.concrete or d.words is None:
        return None
    count = sum(len(t.parts) if t.type == "cjk" else 1 for t in d.words)
    if count >= 3:
        return None
    return f"it has {count} word{'s' if count != 1 else ''} and nothing concrete (a name, number, path or command)"


def generic_words(d: Described) -> str | None:
    """Nothing concrete, and fewer than two specific words (or fewer than three among mostly generic ones):
    "notes about the console", "Things to keep in mind when working on billing"."""
    if d.concrete or d.content is None:
        return None
    share = sum(s in generic() for s, _ in d.content)
    if len(d.specific) < 2 or (len(d.specific) < 3 and share > 0.6 * len(d.content)):
        common = ", ".join(dict.fromkeys(p for s, p in d.content if s in generic())) or "none"
        return f"generic words ({common}) around {_around(d.specific)} and nothing concrete (a name, number, path or command)"
    return None


def placeholder(d: Described) -> str | None:
    """Nothing concrete, at most three specific words, and a word that stands for what is not said: "Remember the
    rate limit stuff", "The thing with the cache", "Random notes on the JVM", "Remember this when upgrading
    Elixir" (a bare name is a topic here, not something concrete)."""
    if d.concrete == 2 or PLACEHOLDERS.isdisjoint(d.lows):
        return None  # most descriptions
    word = next(t.low for t in d.toks if t.low in PLACEHOLDERS)
    specific = d.topic_specific
    if specific is None or len(specific) > 3:
        return None
    return f"“{word}” stands for what it does not say, around {_around(specific)}, and nothing concrete"


def topic_only(d: Described) -> str | None:
    """Nothing concrete, at most three specific words, and only a generic word and a topic: "Gotcha about iOS
    builds", "A problem we had with push notifications", "Reminder about the holdout set" (generic and stop words, a
    word that introduces a topic, and after it no generic word; a bare name is a topic here)."""
    if d.concrete == 2:
        return None  # most descriptions
    first = next((t for t in d.toks if t.low not in STOPWORDS), None)
    if first is None or stem(first.low) not in generic():
        return None  # it does not open with a generic word
    specific, words = d.topic_specific, d.topics
    if specific is None or words is None or len(specific) > 3:
        return None
    for i, tok in enumerate(words):
        if tok.low in TOPIC_WORDS:
            head, topic = words[:i], words[i + 1 :]
            if not any(stem(t.low) in generic() for t in head):
                return None
            if any(t.low not in STOPWORDS and stem(t.low) not in generic() for t in head):
                return None
            if any(stem(t.low) in generic() for t in topic):
                return None
            named = ", ".join(specific)
            return f"it names a topic ({named}) and says nothing about it: no claim, name, number or command"
        if tok.low not in STOPWORDS and stem(tok.low) not in generic():
            return None
    return None


VAGUE_RULES = (no_words, few_words, generic_words, placeholder, topic_only)


def vagueness(description: str, toks: list[Token] | None = None, lows: set[str] | None = None) -> str | None:
    """Why `description` is one no future agent could act on (the first rule of VAGUE_RULES that says so), or None.
    `toks` and `lows`: its tokens, and their casefolded texts, when they are at hand."""
    described = Described(description, tokens(description) if toks is None else toks)
    if lows is not None:
        described.lows = lows
    # (all but the first need nothing concrete besides bare names: most descriptions are tried by the first alone)
    for rule in VAGUE_RULES if described.concrete < 2 else VAGUE_RULES[:1]:
        why = rule(described)
        if why:
            return why
    return None


def _around(specific: list[str]) -> str:
    n = len(specific)
    listed = f" ({', '.join(specific)})" if specific else ""
    return f"{n or 'no'} specific one{'s' if n != 1 else ''}{listed}"


# --- Stored readings ---


@functools.cache
def reader() -> bytes:
    """What a reading depends on besides the text: these rules (this file), the stemmer and Python's marshal."""
    try:
        rules = Path(__file__).read_bytes()
    except OSError:  # not a file: no stored reading is ever taken as this code's
        rules = repr(object()).encode()
    import Stemmer

    return hashlib.blake2b(rules + f"{Stemmer.version()}|{sys.version_info[:2]}".encode(), digest_size=8).digest()


def key(name: str, description: str) -> bytes:
    """What a stored reading of `name` and `description` is known by: the same only for the same text read by the
    same rules, so an index keeps its readings across runs and reads again only what changed."""
    text = f"{name or ''}\0{description or ''}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16, key=reader()).digest()


def dump(reading: Wording) -> bytes:
    """A reading as bytes to store (sets sorted, so the same reading always gives the same bytes); its words are
    its spelling's keys."""
    return marshal.dumps(
        (
            tuple(sorted(reading.spelling.items())),
            tuple((v.kind, v.slot, v.value, v.former, v.label) for v in reading.values),
            tuple(sorted(reading.names)),
            tuple(sorted(reading.changed_to)),
            tuple(sorted(reading.gone)),
            reading.signature,
            reading.vague,
            reading.announces,
            tuple(sorted(reading.news)),
            tuple(sorted(reading.denied)),
            tuple(sorted(reading.named)),
            tuple(sorted(reading.orders)),
        )
    )


def load(data: bytes, kind: str = "") -> Wording:
    """The reading `dump` stored, of a memory of `kind` (which is not stored: it is not read from the text)."""
    spelling, values_, names, changed_to, gone, signature, vague, announces, told, denied_, named_, orders_ = (
        marshal.loads(data)
    )
    spelled = dict(spelling)
    return Wording(
        words=_frozen(spelled),
        values=tuple(Value(*v) for v in values_),
        names=_frozen(names),
        changed_to=_frozen(changed_to),
        gone=_frozen(gone),
        signature=signature,
        vague=vague,
        announces=announces,
        news=_frozen(told),
        denied=_frozen(denied_),
        named=_frozen(named_),
        orders=_frozen(orders_),
        kind=kind,
        spelling=spelled,
    )
