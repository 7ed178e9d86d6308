"""When a recall query is about (SPEC section 13): the time expressions of its text, each a window of time
(docs/queries.md, "Times", lists what is read). `windows(text, as_of)` finds them; `unstamped` leaves out the
timestamps a pasted log line was printed with. Each window is [start, end) in the store's UTC text, widened by
BEFORE_DAYS and AFTER_DAYS.

Nothing is compiled at import time, and recall_terms imports this module only when it reads a query.
"""

import datetime as dt
import functools
import re
from dataclasses import dataclass

# How long after a window a memory written about it still counts as written then, and how long before (a day named
# is often a day or two off): chosen on LoCoMo's dev conversations (docs/queries.md).
AFTER_DAYS = 7
BEFORE_DAYS = 3

MONTHS = (
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december"),
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
)  # fmt: skip
NUMBERS = ("a", "an", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# the words without which (or a digit, or a month) no time is written
TIME_WORDS = ("today", "tonight", "this ", "yesterday", "last", "past", "previous", "ago")
# words that make a month's name or a year a time: `in June`, `during 2023`
BEFORE_A_TIME = (
    "in|during|since|until|till|by|before|after|throughout|of|early|late|mid|last|this|next|spring|summer|autumn|fall"
    "|winter"
)


@dataclass(slots=True)
class Window:
    """One time expression: `text` as written, the window [start, end) it means (widened), and where the text
    is in the query (`at`, `to`), so its words are known as a time's."""

    text: str
    start: str
    end: str
    at: int
    to: int


@functools.cache
def _pattern() -> re.Pattern:
    # a word that may be a month (its first three letters), read by _month_number: a short pattern compiles fast
    month = r"(?P<{0}>(?:" + "|".join(MONTHS[1]) + r")[a-z]*\.?)"
    day = r"(?P<{0}>[0-3]?\d)(?:st|nd|rd|th)?"
    year = r"(?P<{0}>(?:19|20)\d\d)"
    number = r"(?P<{0}>\d{{1,3}}|" + "|".join(NUMBERS) + ")"
    unit = r"(?P<{0}>day|week|month|year)s?"
    parts = [
        # not inside an identifier: backup-2026-05-01.tar and ?day=2026-12-07 are names
        r"(?<![\w.=/-])(?P<iso>(?P<iy>(?:19|20)\d\d)-(?P<im>[01]\d)(?:-(?P<id>[0-3]\d)(?:t[0-9:.]+(?:z|[+-]\d\d:?\d\d)?)?)?)"
        r"(?![\w-]|\.\w)",
        day.format("dd") + r"(?:\s+of)?\s+" + month.format("dm") + r"(?:,?\s+" + year.format("dy") + ")?",
        month.format("md") + r"\s+" + day.format("mdd") + r"(?![\d:])(?:(?:,\s*|\s+)" + year.format("mdy") + ")?",
        month.format("my") + r",?\s+" + year.format("myy"),
        r"(?P<mp>"
        + BEFORE_A_TIME
        + r")(?:\s+the)?(?:\s+(?:beginning|start|middle|end)\s+of)?[\s-]+"
        + month.format("mo")
        + r"(?![.,\s]+\d)",  # `before August 3, 2023` is a day
        r"(?:" + BEFORE_A_TIME + r")[\s-]+(?:of\s+)?" + year.format("yo") + r"(?![-/]\d)",
        r"(?P<today>today|tonight|this\s+morning|this\s+afternoon|this\s+evening)",
        r"(?P<yesterday>yesterday|last\s+night)",
        r"(?P<this>this)\s+(?P<thisu>week|month|year)",
        r"(?P<last>last|past|previous)\s+(?P<lastu>week|month|year|weekend|" + "|".join(WEEKDAYS) + ")",
        r"(?:in|over|during|within)?\s*(?:the\s+)?(?:last|past)\s+" + number.format("n") + r"\s+" + unit.format("u"),
        number.format("an") + r"\s+" + unit.format("au") + r"\s+ago",
    ]
    # matched against the text lower-cased: IGNORECASE took half as long again to compile
    return re.compile(r"\b(?:" + "|".join(f"(?:{p})" for p in parts) + r")\b")


def windows(text: str, as_of: str | None = None) -> list[Window]:
    """The time expressions of `text`, in the order written, each once (docs/queries.md lists them); `as_of` is
    the store's UTC text (None: now)."""
    lower = str(text or "").lower()
    if not any(c.isdigit() for c in lower) and not any(word in lower for word in (*TIME_WORDS, *MONTHS[1])):
        return []  # no time, and the pattern is not even compiled (a few milliseconds)
    now = _now(as_of)
    found = list(_pattern().finditer(lower))
    years = [int(y) for m in found for y in (m["iy"], m["dy"], m["mdy"], m["myy"], m["yo"]) if y]
    written = years[0] if years else None
    result: list[Window] = []
    for m in found:
        span = _span(m, now, written, text)
        if span is None:
            continue
        start, end = span
        start, end = start - dt.timedelta(days=BEFORE_DAYS), end + dt.timedelta(days=AFTER_DAYS)
        window = Window(" ".join(text[m.start() : m.end()].split()), _text(start), _text(end), *m.span())
        if all(w.text.lower() != window.text.lower() for w in result):
            result.append(window)
    return result


@functools.cache
def _stamp() -> re.Pattern:
    clock = r"[0-2]?\d:[0-5]\d"
    day = r"(?:19|20)\d\d([-/])[01]\d\1[0-3]\d(?:[T ]|,\s)|(?i:" + "|".join(MONTHS[1]) + r")\s+[0-3]?\d\s+"
    return re.compile(
        r"(?<![\w.:/-])(?:(?:" + day + ")" + clock + r"(?::[0-5]\d)?|" + clock + r":[0-5]\d)"
        r"(?P<fraction>[.,]\d+)?(?:\s?(?:[zZ]|UTC|GMT|[+-]\d\d:?\d\d))?(?!\w|:\d)"
    )


@functools.cache
def _asked() -> re.Pattern:
    return re.compile(r"\b(?:at|on|since|before|after|until|till|by|from|around|about)\s+$", re.IGNORECASE)


def unstamped(text: str) -> str:
    """`text` without the timestamps a log line is printed with (each made a space), which are no time asked about
    and whose numbers are no words: those after a word that makes them a time (`at`, `on`, `since`...) stay, unless
    they count fractions of a second, which a program prints and a person does not type."""
    if ":" not in text:
        return text
    return _stamp().sub(lambda m: m[0] if _asked().search(text, 0, m.start()) and not m["fraction"] else " ", text)


def blank(text: str, found: list[Window]) -> str:
    """`text` with the time expressions `found` in it made spaces: the words that are not a time's."""
    for w in found:
        text = text[: w.at] + " " * (w.to - w.at) + text[w.to :]
    return text


def _span(m: re.Match, now, written: int | None, text: str):
    """The [start, end) match `m` of the lower-cased `text` means, as datetimes, or None when it is no time (a word
    that only looked like one)."""
    day = dt.timedelta(days=1)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    group = next((g for g in ("dm", "md", "my", "mo") if m[g]), None)
    month = _month_number(m[group]) if group else 0
    if month is None or (group and m[group] == "may" and text[m.start(group) : m.end(group)] != "May"):
        return None  # `in marketing`, `3 decisions`; `this may help`, `may 3 workers`
    try:
        if m["iso"]:
            year, month = int(m["iy"]), int(m["im"])
            if m["id"]:
                start = dt.datetime(year, month, int(m["id"]))
                return start, start + day
            return _month(year, month)
        if m["dm"] or m["md"]:
            number = int(m["dd"] or m["mdd"])
            year = m["dy"] or m["mdy"]
            if year:
                start = dt.datetime(int(year), month, number)
            else:
                start = _latest(lambda y: dt.datetime(y, month, number), today, written)
            return start, start + day
        if m["my"]:
            return _month(int(m["myy"]), month)
        if m["mo"]:
            if written:
                return _month(written, month)
            start = _latest(lambda y: dt.datetime(y, month, 1), today, None)
            return _month(start.year, month)
        if m["yo"]:
            year = int(m["yo"])
            return dt.datetime(year, 1, 1), dt.datetime(year + 1, 1, 1)
        if m["today"]:
            return today, today + day
        if m["yesterday"]:
            return today - day, today
        if m["this"]:
            return _calendar(m["thisu"], today, 0)
        if m["last"]:
            unit = m["lastu"]
            if unit in WEEKDAYS:
                back = (today.weekday() - WEEKDAYS.index(unit) - 1) % 7 + 1
                return today - back * day, today - (back - 1) * day
            if unit == "weekend":
                saturday = today - ((today.weekday() - 5 - 1) % 7 + 1) * day
                return saturday, saturday + 2 * day
            if m["last"] == "past":  # the past week: the seven days to now
                return _back(today, 1, unit), today + day
            return _calendar(unit, today, -1)
        if m["n"]:
            return _back(today, _count(m["n"]), m["u"]), today + day
        if m["an"]:
            count, unit = _count(m["an"]), m["au"]
            start = _back(today, count, unit)
            return start, _back(today, count - 1, unit) if unit != "day" else start + day
    except (ValueError, OverflowError):  # 31 February, year 0
        return None
    return None


def _month_number(word: str) -> int | None:
    """1 to 12 for a month's name or its abbreviation (`Sep.`, `Sept`), None for any other word."""
    word = word.lower().rstrip(".")
    if word in MONTHS[0]:
        return MONTHS[0].index(word) + 1
    return MONTHS[1].index(word[:3]) + 1 if word in (*MONTHS[1], "sept") else None


def _month(year: int, month: int):
    return dt.datetime(year, month, 1), dt.datetime(year + month // 12, month % 12 + 1, 1)


def _latest(make, today, written: int | None):
    """The date `make(year)` of the year written in the query, else the latest one not after today."""
    if written:
        return make(written)
    for year in (today.year, today.year - 1, today.year - 2, today.year - 3, today.year - 4):
        try:
            candidate = make(year)
        except ValueError:  # 29 February
            continue
        if candidate <= today:
            return candidate
    raise ValueError("no such date")


def _calendar(unit: str, today, offset: int):
    """The calendar week (from Monday), month or year holding today, `offset` of them before."""
    if unit == "week":
        monday = today - dt.timedelta(days=today.weekday() - 7 * offset)
        return monday, monday + dt.timedelta(days=7)
    if unit == "month":
        index = today.year * 12 + today.month - 1 + offset
        return _month(index // 12, index % 12 + 1)
    return dt.datetime(today.year + offset, 1, 1), dt.datetime(today.year + offset + 1, 1, 1)


def _back(today, count: int, unit: str):
    """`count` days, weeks, months or years before today."""
    if unit in ("day", "week"):
        return today - dt.timedelta(days=count * (7 if unit == "week" else 1))
    index = today.year * 12 + today.month - 1 - count * (12 if unit == "year" else 1)
    year, month = index // 12, index % 12 + 1
    return today.replace(year=year, month=month, day=min(today.day, 28))


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else max(1, NUMBERS.index(word) - 1)


def _now(as_of: str | None):
    """`as_of` (ISO text; the SQL gives the store's UTC text) as a naive UTC datetime; now when None or unreadable."""
    try:
        value = dt.datetime.fromisoformat(str(as_of).strip())
    except ValueError:
        value = dt.datetime.now(dt.UTC)
    return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value


def _text(value) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")
