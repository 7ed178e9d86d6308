"""Bounds on what one SQL function call may cost, for connections that run SQL from anyone (the explorer's):
Datasette's time limit is checked between steps, so one call runs to its end. The limits and the functions replaced
by linear ones: docs/hardening.md.
"""

import ctypes
import importlib
import re

from indexer.sqlite import sqlite3
from indexer.store.settings import DEFAULTS

# sqlite3.h's limit categories
LIMIT_LENGTH = 0
LIMIT_SQL_LENGTH = 1
LIMIT_FUNCTION_ARG = 6
LIMIT_LIKE_PATTERN_LENGTH = 8
LIMITS = {
    LIMIT_LENGTH: DEFAULTS["index.max_file_bytes"] + (1 << 20),  # raised to the index's own setting (see bound)
    LIMIT_SQL_LENGTH: 1 << 20,
    LIMIT_FUNCTION_ARG: 100,
    LIMIT_LIKE_PATTERN_LENGTH: 200,  # LIKE and GLOB compare pattern and text in up to length x length steps
}


def bound(conn: sqlite3.Connection) -> None:
    """Set LIMITS on `conn` (values as long as the index's largest file) and make instr, replace and trims linear;
    an index re-built with a larger `index.max_file_bytes` is read in full by connections opened after it."""
    limits = dict(LIMITS)
    try:
        row = conn.execute("select value from settings where key = 'index.max_file_bytes'").fetchone()
    except sqlite3.DatabaseError:  # not an index of ours (yet): the default
        row = None
    if row and isinstance(row[0], int):
        limits[LIMIT_LENGTH] = max(limits[LIMIT_LENGTH], row[0] + (1 << 20))
    for category, value in limits.items():
        set_limit(conn, category, value)
    length = limits[LIMIT_LENGTH]
    conn.create_function("instr", 2, instr, deterministic=True)
    conn.create_function("replace", 3, lambda text, old, new: replace(text, old, new, length), deterministic=True)
    for name, left, right in (("trim", True, True), ("ltrim", True, False), ("rtrim", False, True)):
        conn.create_function(name, 2, _trim(left, right), deterministic=True)


def set_limit(conn: sqlite3.Connection, category: int, value: int) -> int:
    """`conn.setlimit(category, value)`, also on pysqlite3's connections, which lack the method; the old value."""
    if hasattr(conn, "setlimit"):
        return conn.setlimit(category, value)
    return _sqlite3_limit()(_handle(conn), category, value)


def _handle(conn: sqlite3.Connection) -> int:
    # pysqlite3's Connection is the standard library's: its `sqlite3 *db` comes right after the object header
    return ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value


_limit_function = None


def _sqlite3_limit():
    """sqlite3_limit of the SQLite that the sqlite3 module in use is linked with."""
    global _limit_function
    if _limit_function is None:
        library = ctypes.CDLL(sqlite3._sqlite3.__file__ if hasattr(sqlite3, "_sqlite3") else _module_file())
        _limit_function = library.sqlite3_limit
        _limit_function.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        _limit_function.restype = ctypes.c_int
    return _limit_function


def _module_file() -> str:
    return importlib.import_module(sqlite3.Connection.__module__.rpartition(".")[0] + "._sqlite3").__file__


def _text(value) -> str | None:
    """A value as SQLite's text functions read it."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def instr(haystack, needle) -> int | None:
    """SQLite's instr: 1 + where `needle` first starts in `haystack` (bytes if both are blobs), 0 if nowhere."""
    if haystack is None or needle is None:
        return None
    if not (isinstance(haystack, bytes) and isinstance(needle, bytes)):
        haystack, needle = _text(haystack), _text(needle)
    return haystack.find(needle) + 1  # CPython's find is linear (two-way) for long needles


def replace(text, old, new, most: int = LIMITS[LIMIT_LENGTH]):
    """SQLite's replace: every `old` in `text` replaced by `new`; `text` itself if `old` is empty."""
    if text is None or old is None:
        return None
    if not _text(old):
        return _text(text)  # SQLite's order of checks: `new` is not looked at
    if new is None:
        return None
    text, old, new = _text(text), _text(old), _text(new)
    grows = len(new) - len(old)
    if grows > 0 and len(text) + text.count(old) * grows > most:
        # not built: a blob just over the limit gets SQLite's own "string or blob too big" (an exception
        # would only say "user-defined function raised exception")
        return bytes(most + 1)
    return text.replace(old, new)


def _trim(left: bool, right: bool):
    """SQLite's trim(X, Y), ltrim or rtrim: the characters of Y taken off the ends of X."""
    strip = str.strip if left and right else str.lstrip if left else str.rstrip

    def trim(text, characters):
        if text is None or characters is None:
            return None
        text, characters = _text(text), _text(characters)
        if len(characters) <= 16:  # str.strip looks each character up in those given: linear when they are few
            return strip(text, characters)
        run = re.compile("[" + "".join(map(re.escape, set(characters))) + "]*")  # a set: one step per character
        start = run.match(text).end() if left else 0
        end = len(text) - run.match(text[::-1]).end() if right else len(text)
        return text[start : max(start, end)]

    return trim
