"""Timestamps as the store keeps them: UTC text `YYYY-MM-DDTHH:MM:SSZ`."""

import datetime as dt
import re

# Canonical text that is surely a real time: days 29-31 are left to the calendar (normalize's slow path),
# so `2026-02-30T00:00:00Z` or `25:00:00` are never taken as written
CANONICAL = re.compile(r"(?!0000)\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ\Z")


def normalize(text: str) -> str:
    """ISO 8601 `text` (a date: midnight; a time without an offset: UTC) as canonical UTC text; ValueError for
    anything else, and for a time that leaves years 1-9999 once in UTC."""
    text = text.strip()
    if CANONICAL.match(text):
        return text
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError:
        example = "like 2026-07-10 or 2026-07-10T18:00:00Z"
        raise ValueError(f"{text!r} is not an ISO 8601 date or time ({example})") from None
    if value.tzinfo is not None:
        try:
            value = value.astimezone(dt.UTC)
        except OverflowError:  # 0001-01-01T00:00:00+01:00 is in year 0 in UTC, which datetime cannot hold
            raise ValueError(f"{text!r} is outside years 1 to 9999 once converted to UTC") from None
    return canonical(value)


def canonical(value: dt.datetime) -> str:
    """`value` (UTC or naive) as canonical text; the year always four digits (strftime gives `24` for 0024)."""
    return value.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def now() -> str:
    return canonical(dt.datetime.now(dt.UTC))
