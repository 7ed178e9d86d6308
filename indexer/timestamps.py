"""Timestamps as the store keeps them: UTC text `YYYY-MM-DDTHH:MM:SSZ`."""

import datetime as dt
import re

CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z")
FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def normalize(text: str) -> str:
    """Return ISO 8601 `text` (a date, or a date and time) as canonical UTC text.

    A date means midnight UTC; a time without an offset is taken as UTC.
    Raises ValueError for anything else.
    """
    text = text.strip()
    if CANONICAL.match(text):
        return text
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 date or time") from None
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc)
    return value.strftime(FORMAT)


def now() -> str:
    """The current time as canonical UTC text."""
    return dt.datetime.now(dt.timezone.utc).strftime(FORMAT)
