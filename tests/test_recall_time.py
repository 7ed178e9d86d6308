"""Recall reads times (SPEC section 13): the time expressions of a query, each a window of days that a memory or note
written then falls in (indexer/query/recall_time.py), read against as_of."""

import pytest

from indexer.query import recall_time
from indexer.query.recall_time import AFTER_DAYS, BEFORE_DAYS, windows

AS_OF = "2026-10-21T15:00:00Z"  # a Wednesday


def days(text: str, as_of: str = AS_OF) -> list[tuple[str, str, str]]:
    """Each time in `text` as (text, first day, last day) as named, before the window is widened."""
    import datetime as dt

    def day(value: str, shift: int) -> str:
        return (dt.date.fromisoformat(value[:10]) + dt.timedelta(days=shift)).isoformat()

    return [(w.text, day(w.start, BEFORE_DAYS), day(w.end, -AFTER_DAYS - 1)) for w in windows(text, as_of)]


@pytest.mark.parametrize(
    "text, named",
    [
        ("what broke on 2026-03-18?", ("2026-03-18", "2026-03-18", "2026-03-18")),
        ("the deploy at 2026-03-18T14:05:00Z", ("2026-03-18T14:05:00Z", "2026-03-18", "2026-03-18")),
        ("what did we do on 3 October 2025", ("3 October 2025", "2025-10-03", "2025-10-03")),
        ("what did we do on 3rd of October, 2025", ("3rd of October, 2025", "2025-10-03", "2025-10-03")),
        ("which city was Calvin at on October 3, 2023?", ("October 3, 2023", "2023-10-03", "2023-10-03")),
        ("what did Maria donate in December 2023?", ("December 2023", "2023-12-01", "2023-12-31")),
        ("since 2026-05", ("2026-05", "2026-05-01", "2026-05-31")),
        ("who joined in 2024?", ("in 2024", "2024-01-01", "2024-12-31")),
        ("what did we change in June?", ("in June", "2026-06-01", "2026-06-30")),  # the latest June
        ("what did we change in November?", ("in November", "2025-11-01", "2025-11-30")),  # not yet this year's
        ("on October 3", ("October 3", "2026-10-03", "2026-10-03")),
        ("yesterday", ("yesterday", "2026-10-20", "2026-10-20")),
        ("today", ("today", "2026-10-21", "2026-10-21")),
        ("what did we decide last week?", ("last week", "2026-10-12", "2026-10-18")),  # Monday to Sunday
        ("this week", ("this week", "2026-10-19", "2026-10-25")),
        ("last month", ("last month", "2026-09-01", "2026-09-30")),
        ("last year", ("last year", "2025-01-01", "2025-12-31")),
        ("last Friday", ("last Friday", "2026-10-16", "2026-10-16")),
        ("in the last 3 days", ("in the last 3 days", "2026-10-18", "2026-10-21")),
        ("over the past two weeks", ("over the past two weeks", "2026-10-07", "2026-10-21")),
        ("2 days ago", ("2 days ago", "2026-10-19", "2026-10-19")),
    ],
)
def test_a_time_is_the_days_it_names(text, named):
    assert days(text) == [named]


def test_a_day_without_a_year_takes_the_year_written_beside_it():
    assert days("where was John between August 11 and August 15 2023?") == [
        ("August 11", "2023-08-11", "2023-08-11"),
        ("August 15 2023", "2023-08-15", "2023-08-15"),
    ]


def test_the_window_is_widened_since_a_memory_is_written_after_what_it_tells():
    (window,) = windows("what happened on 2026-03-18?", AS_OF)
    assert (window.start, window.end) == ("2026-03-15T00:00:00Z", "2026-03-26T00:00:00Z")  # 3 days before, 7 after


@pytest.mark.parametrize(
    "text",
    [
        "what may break the build?",  # may: a month only as May
        "march on",
        "MySQL error 2013 on connect",  # a bare number is a number
        "restore backup-2026-05-01.tar",  # a date inside a name
        "GET /v1/drivers?depot=DE-HAM-01&day=2026-12-07 404",  # a URL's too
        "what did the marketing team decide?",
        "port 8001",
        "",
    ],
)
def test_words_that_only_look_like_a_time_are_none(text):
    assert windows(text, AS_OF) == []


def test_relative_times_are_read_against_as_of():
    assert days("yesterday", "2026-03-02T08:00:00Z") == [("yesterday", "2026-03-01", "2026-03-01")]
    assert days("in June", "2026-03-02T08:00:00Z") == [("in June", "2025-06-01", "2025-06-30")]


@pytest.mark.parametrize(
    "text, left",
    [
        ("[2026-12-01 16:02:44 +0000] [1] [CRITICAL] WORKER TIMEOUT", "[ ] [1] [CRITICAL] WORKER TIMEOUT"),
        ("[2026-04-08 14:02:51,118: ERROR/MainProcess] Process exited", "[ : ERROR/MainProcess] Process exited"),
        ("level=error ts=2026-12-01T09:00:00Z msg=boom", "level=error ts=  msg=boom"),
        ("2026/12/01 16:02:44 http: panic serving", "  http: panic serving"),
        ("16:02:44.123 WARN retrying", "  WARN retrying"),
        ("[2026-11-06, 06:00:03 UTC] {taskinstance.py:2905} ERROR", "[ ] {taskinstance.py:2905} ERROR"),
        ("Nov 09 09:00:00.004 beat-6c9d4f7b8-2xkqp INFO", "  beat-6c9d4f7b8-2xkqp INFO"),  # syslog's
        ("PID 41 started at 2026-11-03T06:01:02.004105+00:00, killed", "PID 41 started at  , killed"),  # a program's
        ("what broke at 2026-12-01 16:02:44?", "what broke at 2026-12-01 16:02:44?"),  # asked about: kept
        ("port 8080:80, at 10:30, in env.ts:5:22", "port 8080:80, at 10:30, in env.ts:5:22"),  # no stamp
    ],
)
def test_a_log_lines_timestamp_is_left_out(text, left):
    assert recall_time.unstamped(text) == left
