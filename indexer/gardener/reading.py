"""What the gardener reads in a memory's name and description (SPEC section 12), `read`: a `Reading`, which rules.py
judges, and why its description is vague, if it is (`VAGUE_RULES`). No model, no index. Words are stemmed by Snowball
(PyStemmer), Cyrillic, Greek and Arabic ones in their language; Chinese, Japanese and Korean text, written without
spaces, is read as overlapping pairs of characters.
"""

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass

import Stemmer


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
    """
    a an the and or but if then than so as at by for from in into of on onto to with within without via per through
    across against during is are was were be been being am it its it's this that these those there here we our us
    you your they their them he she his her i me my do does did done doing has have had having can could will would
    shall should may might must also too very just only still yet again even ever every about above after before below
    between both each few more most other some such own same any all what which who whom whose when where why how
    while until up down out off over under further once nor not no never e.g i.e etc vs now new
    """
)
# Words that say nothing a future agent could act on by themselves ("notes about the console" is a generic word and
# one topic). Compared as stems, so one form of each word is enough.
GENERIC_WORDS = _words(
    """
    note stuff thing info information misc miscellaneous various detail general overview summary learning learned
    lesson tip thought idea todo update fix bug issue problem gotcha decision runbook protocol reference refuted
    constraint stage work important remember reminder useful interesting relevant related regarding concerning
    context background random check careful keep mind later today yesterday tomorrow session meeting discussion
    discussed decided architecture approach plan next step project code codebase system app application setup config
    configuration settings performance behaviour behavior flaky weird strange broken see body below above question
    investigation research finding workaround trick quirk caveat consideration practice guideline rule process
    procedure way how doing improvement change handle handling help helpful use make get got need know known want
    try tried future forget don't time team people person someone something anything everything area part piece
    point aspect case item list good bad better best worse worst nice okay fine hard easy quick slow fast simple
    complex main current old latest recent recently first last docs doc documentation documented explanation
    explained description hit saw seen found happen noticed ran encounter properly correctly usual usually normal
    normally standard appropriate appropriately error follow
    """
)
ZONES = _words("UTC GMT CET CEST EET PST PDT EST EDT")  # after a number, a time of day; a zone is no name (of when)
GENERIC_UPPER = _words("API UI DB CI CD PR ID URL CLI SDK TODO FYI ASAP NB OK TBD WIP") | ZONES
PLACEHOLDERS = _words("stuff thing things misc miscellaneous various etc whatever random this")  # stand for the unsaid
NEGATIONS = _words("not never no nor cannot can't without nobody nothing none neither forbidden disabled false off")
FORMER = _words("from instead formerly previously replacing replaced was were not than past dropping")  # given up
MODALS = _words("must should shall will")  # KEY must be V
ASSIGNS = _words("is = are defaults default set equals raised lowered dropped increased reduced bumped") | MODALS
GONE = _words("retired removed deleted dropped gone unbound cancelled canceled decommissioned uninstalled")
CHANGED = _words(
    "moved migrated switched upgraded downgraded raised lowered increased decreased reduced bumped changed"
)
NEWS = CHANGED | GONE | _words("now again anymore longer replaced replaces renamed")  # "moved to", "no longer"
# skipped looking back from a version to its product: "Airflow is pinned to 2.9.3", "Expo SDK 51", "Go bumped to 1.24"
BEFORE_VERSION = CHANGED | _words("version versions pinned pin api floor minimum min v release lts sdk is at to on")
COPULAS = _words("is are was were be been being has have had got now also")
# nouns of things a store holds many of: the word before one says which ("the events topic", "web dynos")
OBJECT_NOUNS = _words(
    "topic table queue bucket service app database cluster index repo branch dyno worker pod host server"
)
BOOLEANS = {"true": "yes", "yes": "yes", "y": "yes", "on": "yes", "enabled": "yes", "false": "no", "no": "no", "n": "no",
            "off": "no", "disabled": "no"}  # fmt: skip
SECONDS = {"ms": 0.001, "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60,
           "minute": 60, "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "d": 86400,
           "day": 86400, "days": 86400, "week": 604800, "weeks": 604800}  # fmt: skip

TOKEN = re.compile(
    r"`(?P<code>[^`]*)`|(?P<stop>[;:,.!?]+(?=\s|$)|\s[-–—]+\s|[()\[\]{}|])|(?P<raw>[^\s,;()\[\]{}\"`|]+)"
)
PART = re.compile(r"[^\W_]+")  # the letters-and-digits runs of an identifier
URL = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S+$|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|io|dev|net|app|shop|internal)"
    r"(?:/\S*)?$",
    re.I,
)
NUMBER = re.compile(r"^[-+]?(\d+(?:[.,]\d+)?)(%|x|ms|s|h|m|d|k|g|kb|mb|gb|px)?\+?$", re.I)
VERSION = re.compile(
    r"^(?:v|>=|<=|==|~=|\^)?(\d+(?:\.\d+)+(?:[.+-]?[a-z][\w.]*)?|\d{4}-\d{2}-\d{2}\.[a-z]\w*)\+?$", re.I
)
# a time of day (`1:00`, `13:30`, `1am`, `1:30 p.m.`, `3 CET`), written `HH:MM` before it is read (`_clock`)
CLOCK = re.compile(r"(?<![\w.:/-])(\d{1,2})(?::(\d\d))?(?::\d\d)?(?:\s*([ap])\.?m\b\.?)?(?![\w:/-])", re.I)
ZONE = re.compile(rf"\s+(?:{'|'.join(ZONES)})\b")
SHAPES = (
    ("time", re.compile(r"^(?:[01]\d|2[0-3]):[0-5]\d$")),
    ("url", URL),
    ("port", re.compile(r"^(?:[A-Za-z][\w-]*(?:\.[\w-]+)*|\d+(?:\.\d+){3}):(\d{2,5})(?:/\S*)?$|^:\d{2,5}$")),
    ("assignment", re.compile(r"^([A-Za-z_][\w.-]*)=(\S+)$")),
    ("pin", re.compile(r"^([A-Za-z][\w.-]*)@[v^~=]*(\d+(?:\.\d+)*(?:[.+-]?[a-z][\w.]*)?)$", re.I)),  # expo@51.0.28
    ("flag", re.compile(r"^--?[a-z][\w-]*(?:=\S+)?$", re.I)),
    ("date", re.compile(r"^\d{4}-\d{2}-\d{2}(?:T[\d:]+Z?)?$")),
    ("version", VERSION),
    ("number", NUMBER),
)
IDENTIFIER = re.compile(r"_|[a-z][A-Z][a-z]|[A-Z]{2,}[a-z]|\w\.\w|^[.@#]|\(\)")  # snake_case, camelCase, a.b, .env
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
NAMING = frozenset(["identifier", "code", "path", "url", "pin", "flag", "assignment"])  # what names a thing
CONCRETE = NAMING | {"number", "version", "port", "time"}  # a name, number, path, command, identifier (a date is not)
NUMBERED = frozenset(["number", "version", "date", "time", "port", "assignment", "pin", "flag"])
EDGE = "\"'.,:;!?*“”‘’«»"  # stripped from a raw token's ends
ARROWS = ("->", "→", "=>")  # "Postgres 14 -> 16": the value before the arrow is the one given up
STEMMERS: dict[str, Stemmer.Stemmer] = {}


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball stem of one word, in its script's language (English for Latin letters)."""
    word = word.casefold()
    first = next((ch for ch in word if ch.isalpha()), "a")
    script = unicodedata.name(first, "").split(" ")[0] if not first.isascii() else ""
    language = {"CYRILLIC": "russian", "GREEK": "greek", "ARABIC": "arabic"}.get(script, "english")
    if language not in STEMMERS:
        STEMMERS[language] = Stemmer.Stemmer(language)
    return STEMMERS[language].stemWord(word)


GENERIC = frozenset(stem(w) for w in GENERIC_WORDS)
OBJECTS = frozenset(stem(w) for w in OBJECT_NOUNS)


@dataclass(slots=True)
class Token:
    text: str  # as written, without edge punctuation
    type: str  # word, number, version, date, path, url, port, assignment, pin, flag, identifier, code, cjk
    clause: int  # which clause of the description it is in
    parts: tuple[str, ...]  # the stems it adds to the word set
    low: str  # text.casefold()
    keyed: bool = False  # written `KEY:` (`maxUnavailable: 1`): the token after it is its value


def tokens(text: str) -> list[Token]:
    """The description's tokens, each with its type and clause."""
    found: list[Token] = []
    clause = 0
    for code, stop, raw in TOKEN.findall(CLOCK.sub(_clock, text)):
        core, type_, keyed, ends = _raw(raw) if raw else (code.strip(), "code", False, bool(stop))
        if core:
            found.append(Token(core, type_, clause, _parts(core, type_), core.casefold(), keyed))
        clause += ends
    return found


def _clock(m: re.Match) -> str:
    """A time of day as `HH:MM` (`1pm`: 13:00): a number with minutes, `am` or `pm`, or a time zone after it."""
    hours, minutes, half = int(m[1]), int(m[2] or 0), (m[3] or "").casefold()
    if not (m[2] or half or ZONE.match(m.string, m.end())) or minutes > 59 or hours > (12 if half else 23):
        return m[0]
    hours = hours % 12 + (12 if half == "p" else 0) if half else hours
    return f"{hours:02d}:{minutes:02d}"


@functools.lru_cache(maxsize=100_000)
def _raw(raw: str) -> tuple[str, str, bool, bool]:
    """A raw token without its edge punctuation, its type, whether it is a key written `KEY:` (its value follows),
    and whether it ends a clause (`word;`, `done.`)."""
    core = raw.strip(EDGE)
    core = core[:-2] if core.endswith(("'s", "’s")) and len(core) > 2 else core  # SDK 52's architecture
    core = ":" + core if raw.startswith(":") and 2 <= len(core) <= 5 and core.isdigit() else core  # `on :8080`
    type_ = _type_of(core) if core else ""
    end = raw.rstrip("\"'*”’»")
    keyed = end.endswith(":") and not end.endswith("::") and type_ == "identifier"
    return core, type_, keyed, end.endswith((".", ":", ";", "!", "?")) and type_ not in ("url", "path") and not keyed


@functools.lru_cache(maxsize=100_000)
def _type_of(token: str) -> str:
    type_ = next((type_ for type_, pattern in SHAPES if pattern.match(token)), "word")
    if type_ != "word":
        return type_
    if "/" in token and (token[0] in "/~." or token.endswith("/") or "." in token.rsplit("/", 1)[-1]):
        return "path"
    if CJK.search(token):
        return "cjk"
    if IDENTIFIER.search(token) or (token.isupper() and len(token) > 1 and token not in GENERIC_UPPER):
        return "identifier"
    return "identifier" if any(c.isdigit() for c in token) and any(c.isalpha() for c in token) else "word"


@functools.lru_cache(maxsize=100_000)
def _parts(text: str, type_: str) -> tuple[str, ...]:
    """The stems a token of this text and type adds to the word set: a number as `number_text` gives it, a path as
    its file's name (`/callback`: never its folders' words), a run of CJK characters as its pairs."""
    if type_ in ("number", "version", "date", "time"):
        return (number_text(text),)
    if type_ == "path":
        return ("/" + text.rstrip("/").rsplit("/", 1)[-1].casefold(),)
    if type_ == "cjk":
        letters = [ch for ch in text if not ch.isspace()]
        return tuple("".join(letters[i : i + 2]) for i in range(max(1, len(letters) - 1)))
    text = re.sub(r"^[a-z][a-z0-9+.-]*://(www\.)?", "", text, flags=re.I) if type_ == "url" else text
    parts = []
    for part in PART.findall(text):
        if part.isdecimal():  # isdigit() is also true of ¹ and ①, which int() refuses
            parts.append(str(int(part)) if len(part) < 6 else part)
        elif part.casefold() not in STOPWORDS:
            parts.append(stem(part))
    return tuple(parts)


def number_text(text: str) -> str:
    """A number as compared: no unit or `v`, no leading zeros (`v3.12+` -> `3.12`), a minus kept (`-1`)."""
    m = NUMBER.match(text)
    if not m:
        return text.strip("v+^~=<>@").casefold()
    number = m[1].replace(",", "")
    return ("-" if text.startswith("-") else "") + (number.lstrip("0") or "0" if number.isdigit() else number)


def _seconds(text: str, unit: str = "") -> str:
    """A duration in seconds (`15m`, `15` `min`, `900s`: 900), or '' when `text` (and `unit`) is not one."""
    m = NUMBER.match(text)
    unit = (unit or (m[2] if m else "") or "").casefold()
    return f"{float(m[1].replace(',', '')) * SECONDS[unit]:g}" if m and unit in SECONDS else ""


def _proper(word: str) -> bool:
    """Whether a word is written as a name: capitalised, or with a capital inside (iOS, macOS)."""
    return not word.islower() and any(ch.isupper() for ch in word)


# --- Values: the settings and versions a description gives ---


@dataclass(slots=True)
class Value:
    """A setting's value (`slot`: its key, as stems), a product's version (`slot`: the product's stem) or a time of
    day (`slot`: time); `former`: the one given up ("moved from 8001", "14 -> 16"); `label`: the slot as written;
    `of`: a setting's, what it is of, as stems (`_beside`)."""

    kind: str
    slot: str
    value: str
    former: bool = False
    label: str = ""
    of: tuple[str, ...] = ()


def values(clauses: list[list[Token]]) -> list[Value]:
    """The settings, versions and times of day the description gives, clause by clause."""
    found = []
    for n, c in enumerate(clauses):
        for i, tok in enumerate(c):
            if tok.type == "word" and tok.low not in BOOLEANS and not (i and c[i - 1].keyed):
                continue  # most tokens
            if tok.type == "assignment" or (tok.type == "flag" and "=" in tok.text):
                key, _, value = tok.text.lstrip("-").partition("=")
                found.append(_setting(key, value, _former(c, i), "", _beside(clauses, n, i, key)))
            elif tok.type == "pin":
                package, _, version = tok.text.rpartition("@")
                found.append(Value("version", _last_word(package), number_text(version), _former(c, i), package))
            elif (setting := _key_before(c, i)) is not None:
                unit = c[i + 1].low if i + 1 < len(c) and c[i + 1].low in SECONDS else ""
                found.append(_setting(setting, tok.text, _former(c, i), unit, _beside(clauses, n, i, setting)))
            elif tok.type == "time":
                found.append(Value("time", "time", tok.text, _former(c, i), "the time"))
            elif tok.type in ("number", "version", "date") and (product := _product(c, i)):
                found.append(Value("version", product, number_text(tok.text), _former(c, i), product))
    return found


def _setting(key: str, value: str, former: bool, unit: str, of: tuple[str, ...]) -> Value:
    """A setting's value, its key as the stems of its parts (`CHROMA_PORT`, `chroma-port`: `chroma port`); a duration
    in seconds (`15m`, `15 minutes` and `900s` are one), a yes/no word as yes or no."""
    value = value.strip(EDGE)
    value = _seconds(value, unit) or (number_text(value) if NUMBER.match(value) or VERSION.match(value) else value)
    slot = " ".join(stem(part) for part in PART.findall(key))
    return Value("setting", slot, BOOLEANS.get(value.casefold(), value.casefold()), former, key.strip(EDGE), of)


def _beside(clauses: list[list[Token]], n: int, i: int, key: str) -> tuple[str, ...]:
    """What a setting at token `i` of clause `n` is of, named in its clause (or the clause before, when its own opens
    with it: "`events` topic: retention.ms=..."): an identifier, code or a compound word (`orders-api`), but its `key`
    and a file it is kept in (`in .env`), or the word before a noun of its kind ("the events topic", "web dynos")."""
    near = clauses[n] if i > 1 or not n else clauses[n - 1] + clauses[n]
    keyed = {stem(part) for part in PART.findall(key)}
    found: list[str] = []
    for k, t in enumerate(near):
        kept = _file(t.text) and k and near[k - 1].low in ("in", "from", "into", "via")
        named = t.type in ("identifier", "code") or (t.type == "word" and "-" in t.text.strip("-"))
        if named and t is not clauses[n][i] and not set(t.parts) <= keyed and not kept:
            found += t.parts
        elif k and t.type == near[k - 1].type == "word" and t.parts[-1:] and t.parts[-1] in OBJECTS:
            found += [p for p in near[k - 1].parts if p not in GENERIC and near[k - 1].low not in STOPWORDS]
    return tuple(found)


def _former(c: list[Token], i: int) -> bool:
    """Whether the value at `i` is the one given up: after `from`, `instead of`, `not`, `was`, `dropping` (a product's
    name between: "from Postgres 14"), or before an arrow (`14 -> 16`)."""
    if i + 1 < len(c) and c[i + 1].text in ARROWS:
        return True
    for j in range(i - 1, max(-1, i - 4), -1):
        if c[j].low in FORMER:
            return True
        if c[j].low not in ("of", "the", "longer", "on", "at") and not (j == i - 1 and _proper(c[j].text)):
            return False
    return False


def _key_before(c: list[Token], i: int) -> str | None:
    """The setting the value at `i` is given to: `KEY: V`, `--flag V`, `KEY is V`, `KEY = V`, `KEY defaults to V`,
    `KEY raised to V`, `KEY must be V`, the key written as one (`_key_like`); a word is a value only after `=` or
    `KEY:`, or a yes/no (`y`, `off`, `disabled`)."""
    j = i - 1
    if j >= 0 and c[j].type == "flag" and c[i].type in ("number", "version"):
        return c[j].text.lstrip("-")
    if j >= 0 and c[j].keyed and _key_like(c[j]):
        return c[j].text
    if c[i].type not in ("number", "version") and c[i].low not in BOOLEANS and not (j >= 0 and c[j].low == "="):
        return None
    j -= j >= 0 and c[j].low == "to"
    j -= j >= 0 and c[j].low in ("now", "again")
    j -= j >= 1 and c[j].low == "be" and c[j - 1].low in MODALS
    return c[j - 1].text if j >= 1 and c[j].low in ASSIGNS and _key_like(c[j - 1]) else None


def _key_like(tok: Token) -> bool:
    """Whether a token is written as a setting's key (`CHROMA_PORT`, `pull.rebase`, `tracesSampleRate`,
    `auto-suspend`), not as a product's name (`SQLite`, `python3`)."""
    text = tok.text
    if tok.type == "word":
        return "-" in text.strip("-")
    return tok.type in ("identifier", "code") and (
        any(ch in text for ch in "_.-") or (text[:1].islower() and not text.islower()) or text.isupper()
    )


def _product(c: list[Token], i: int) -> str:
    """What a number is the version of: the name right before it, written as one (`Postgres 16`, `Expo SDK 51`,
    `Airflow is pinned to 2.9.3`, `Postgres 14 -> 16`), its last run of letters stemmed; '' when there is none."""
    i -= 2 if i > 1 and c[i - 1].text in ARROWS else 0
    tok = next((t for t in reversed(c[max(0, i - 4) : i]) if t.low not in BEFORE_VERSION), None)
    if tok is None or tok.low in STOPWORDS or tok.text in GENERIC_UPPER:
        return ""
    named = tok.type == "identifier" or (tok.type == "word" and (_proper(tok.text) or "-" in tok.text))
    return _last_word(tok.text) if named else ""


def _last_word(text: str) -> str:
    letters = re.findall(r"[^\W\d_]+", text)
    return stem(letters[-1]) if letters else ""


# --- The reading ---


@dataclass(slots=True)
class Reading:
    """What the gardener reads in one memory's name and description."""

    words: frozenset[str]  # stems of the name and the description, numbers, identifiers' parts, paths' file names
    # its words that tell something: all but the generic ones and paths (two memories that name one route, `/api`,
    # may say anything of it)
    telling: frozenset[str]
    names: tuple[tuple[str, ...], ...]  # each thing it names, as the stems it is known by (`_thing`)
    numbers: frozenset[str]  # every number it states (a duration in seconds), time of day and setting's value
    values: tuple[Value, ...]  # the settings, versions and times of day it gives
    denies: bool  # it says not, never, don't ...
    news: bool  # it tells of a change: "moved to", "now", "no longer", "is retired"
    sequence: tuple[str, ...]  # its description's telling words (`telling`), in order
    gone: frozenset[str]  # what it says is no more ("goose is retired": goos), as the stems of a phrase
    signature: str  # the same for descriptions that differ only in case, punctuation and word endings
    vague: str | None  # why the description is vague, or None
    spelling: dict  # each of `words` as first written

    def spelled(self, stems) -> list[str]:
        return list(dict.fromkeys(self.spelling.get(s, s) for s in stems))


@functools.lru_cache(maxsize=4096)
def read(name: str, description: str) -> Reading:
    """What the gardener reads in a memory's name and description."""
    toks = tokens(description or "")
    clauses: dict[int, list[Token]] = {}
    spelling: dict[str, str] = {}
    names, numbers = [], set()
    for n, tok in enumerate(toks):
        clauses.setdefault(tok.clause, []).append(tok)
        if thing := _thing(tok.text, tok.type, n == 0):
            names.append(thing)
        for part in tok.parts + (thing if thing and thing[0][:1] == "/" else ()):
            spelling.setdefault(part, tok.text)
        if tok.type in NUMBERED:
            numbers.add(_number(tok.text, tok.type, toks[n + 1].low if n + 1 < len(toks) else ""))
    name_parts = [p for p in PART.findall(name or "") if not p.isdigit() and p.casefold() not in STOPWORDS]
    for part in name_parts:
        spelling.setdefault(stem(part), part)
    lows = {t.low for t in toks} | {p.casefold() for p in name_parts}
    given = tuple(values(list(clauses.values())))
    return Reading(
        words=frozenset(spelling),
        telling=frozenset(w for w in spelling if w[0] != "/" and w not in GENERIC),
        names=tuple(dict.fromkeys(names)),
        numbers=frozenset(numbers | {v.value for v in given if v.kind == "setting"}) - {""},
        values=given,
        denies=not NEGATIONS.isdisjoint(lows) or any(t.low.endswith(("n't", "n’t")) for t in toks),
        news=not NEWS.isdisjoint(lows),
        sequence=tuple(p for t in toks if t.low not in STOPWORDS for p in t.parts if p not in GENERIC and p[0] != "/"),
        gone=frozenset(_gone(list(clauses.values()))) if not NEWS.isdisjoint(lows) else frozenset(),
        signature=_signature([p for t in toks for p in t.parts], description or ""),
        vague=vagueness(description or "", toks),
        spelling=spelling,
    )


def _file(text: str) -> bool:
    """Whether an identifier is written as a file's name: `transcode.sh`, `.env`."""
    return bool(re.search(r"\.[A-Za-z]{1,5}$", text)) and "/" not in text


@functools.lru_cache(maxsize=100_000)
def _thing(text: str, type_: str, first: bool) -> tuple[str, ...] | None:
    """The thing a token names, as the stems it is known by, or None. A thing is named by an identifier, code, a path
    or a file (known by its file's name: `/transcode.sh`), an address, a flag, a package, a setting (by its key), a
    compound word (`pytest-xdist`), or a word written as a name, not first (any sentence capitalises its first)."""
    parts = _parts(text, type_)
    if type_ == "path" or (type_ == "identifier" and _file(text)):
        return ("/" + text.rstrip("/").rsplit("/", 1)[-1].casefold(),)
    if type_ == "assignment":
        return _parts(text.partition("=")[0], "word") or None
    if type_ == "word" and "-" in text.strip("-"):
        return None if set(parts) <= GENERIC else parts
    if type_ == "word":
        proper = text.isalpha() and len(text) > 1 and _proper(text) and text not in GENERIC_UPPER
        if first or not proper or set(parts) <= GENERIC or text.casefold() in STOPWORDS:
            return None
    elif type_ not in NAMING:
        return None
    return tuple(p for p in parts if not p[:1].isdigit()) or parts or None


@functools.lru_cache(maxsize=100_000)
def _number(text: str, type_: str, after: str) -> str:
    """The number a token states ('' when none), a duration in seconds (`4 hours` and `14400 s` are one)."""
    if type_ == "time":
        return text
    if type_ in ("number", "version", "date"):
        return _seconds(text) or _seconds(text, after) or number_text(text)
    if type_ == "port" or (type_ == "flag" and "=" not in text):
        return text.rpartition(":")[2].split("/")[0] if type_ == "port" else ""
    value = re.split(r"[=@]", text, maxsplit=1)[1].lstrip("v^~=")
    return (_seconds(value) or number_text(value)) if value[:1].isdigit() else ""


def _gone(clauses: list[list[Token]]) -> set[str]:
    """What the description says is no more, as the stems of up to three telling words: before `is retired`, `was
    removed` ("goose is retired": goos), after `moved from` ("moved from the cookie store to Redis": cooki store) or
    `replaced` ("ruff replaced Black": black)."""
    found = set()
    for c in clauses:
        if c[0].low in ("a", "an", "any", "every", "each"):
            continue  # what happens to any such thing ("a job that waits an hour is cancelled"), not a change
        lows = [t.low for t in c]
        for i, word in enumerate(lows):
            if word in GONE and i and lows[i - 1] in COPULAS:
                k = i - 1
                while k >= 0 and lows[k] in COPULAS:
                    k -= 1
                phrase = c[max(0, k - 2) : k + 1]
            elif word in CHANGED and lows[i + 1 : i + 2] == ["from"]:
                phrase = c[i + 2 : min(lows.index("to", i) if "to" in lows[i:] else len(c), i + 5)]
            elif word in ("replaced", "replaces", "replacing"):
                phrase = c[i + 1 : i + 2]
            else:
                continue
            told = [p for t in phrase if t.type in ("word", "identifier", "code") for p in t.parts if p not in GENERIC]
            if told and not any(p[:1].isdigit() for p in told):
                found.add(" ".join(told))
    return found


def _signature(ordered: list[str], description: str) -> str:
    """Equal for descriptions that differ only in case, punctuation, stop words and word endings; a description
    with no words at all is compared as written (less spaces), so `???` and `!!!` stay apart."""
    text = " ".join(ordered) if ordered else " ".join(description.casefold().split())
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


# --- Vague descriptions (SPEC 12: too few words, or nothing concrete and only generic words): each rule a named
# function of the description and its tokens, tried in order ---


def too_few_words(text: str, toks: list[Token]) -> str | None:
    """No words at all ("8765 8001", "!!!"), or fewer than three and nothing concrete (a name, number, path or
    command): "Misc tips", "TODO"."""
    if not any(ch.isalpha() for ch in text):
        return "it has no words, only numbers or punctuation"
    count = sum(len(t.parts) if t.type == "cjk" else 1 for t in toks if t.type in ("word", "cjk"))
    if count >= 3 or any(t.type in CONCRETE for t in toks):
        return None
    return f"it has {count} word{'s' if count != 1 else ''} and nothing concrete (a name, number, path or command)"


def only_generic_words(text: str, toks: list[Token]) -> str | None:
    """Nothing concrete but bare names (`JVM`: a topic here), and at most one specific word, or two among mostly
    generic ones, or three beside a word that stands for what is not said: "notes about the console", "Things to keep
    in mind when working on billing", "Remember the rate limit stuff"."""
    if any(t.type == "cjk" or (t.type in CONCRETE and not (t.type == "identifier" and t.text.isalpha())) for t in toks):
        return None  # (in a script whose generic words are not known, Chinese ..., nothing is said to be generic)
    content = [(stem(p), p) for t in toks if t.type in ("word", "identifier") for p in t.text.split("-")]
    content = [(s, p) for s, p in content if p and p.casefold() not in STOPWORDS]
    specific = list(dict.fromkeys(p for s, p in content if s not in GENERIC))
    placeholder = any(t.low in PLACEHOLDERS for t in toks)
    generic = sum(s in GENERIC for s, _ in content) > 0.6 * len(content)
    if len(specific) > (3 if placeholder else 2 if generic else 1):
        return None
    common = ", ".join(dict.fromkeys(p for s, p in content if s in GENERIC)) or "none"
    around = f"{len(specific) or 'no'} specific one{'s' if len(specific) != 1 else ''}"
    around += f" ({', '.join(specific)})" if specific else ""
    return f"generic words ({common}) around {around} and nothing concrete (a name, number, path or command)"


VAGUE_RULES = (too_few_words, only_generic_words)


def vagueness(description: str, toks: list[Token] | None = None) -> str | None:
    """Why `description` is one no future agent could act on (the first rule of VAGUE_RULES that says so), or None."""
    toks = tokens(description) if toks is None else toks
    return next((why for rule in VAGUE_RULES if (why := rule(description, toks))), None)
