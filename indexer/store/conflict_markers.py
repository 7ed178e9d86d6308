"""Conflict markers a git merge left in a file: a `<<<<<<<` line, then `=======`, then `>>>>>>>` (with `|||||||`
between the first two in git's diff3 style). The indexer reports them as the error `conflict-markers`, naming
their lines, and no commit or push of ours carries a file that holds them (SPEC section 10)."""

import re
from dataclasses import dataclass

SHOWN = 3  # conflicts named in a message; the rest are counted
# git writes seven characters, then a space and a label ( `<<<<<<< HEAD`), the `=======` line alone
MARKER = re.compile(r"^(?:(<{7}|\|{7}|>{7})(?:[ \t].*)?|(={7}))\r?$", re.MULTILINE)


@dataclass(slots=True)
class Conflict:
    """One conflict of a file, by the lines (from 1) of its markers."""

    start: int  # <<<<<<<
    middle: int  # =======
    end: int  # >>>>>>>


def find(text: str) -> list[Conflict]:
    """The conflicts in `text`: markers in the order git writes them (a lone `=======`, a setext heading's
    underline, is none)."""
    if "<<<<<<<" not in text:  # the common case, cheap
        return []
    found, start, middle = [], None, None
    line, at = 1, 0
    for match in MARKER.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        mark = (match.group(1) or match.group(2))[0]
        if mark == "<":
            start, middle = line, None
        elif mark == "=" and start is not None:
            middle = line
        elif mark == ">" and start is not None and middle is not None:
            found.append(Conflict(start, middle, line))
            start = middle = None
    return found


def find_bytes(data: bytes) -> list[Conflict]:
    """`find` on a file's bytes (not UTF-8 text: none)."""
    if b"<<<<<<<" not in data:
        return []
    try:
        return find(data.decode("utf-8"))
    except UnicodeDecodeError:
        return []


def describe(conflicts: list[Conflict]) -> str:
    """The markers' lines, for a person: `<<<<<<< at line 10, ======= at line 13, >>>>>>> at line 16`."""
    shown = "; ".join(
        f"<<<<<<< at line {c.start}, ======= at line {c.middle}, >>>>>>> at line {c.end}" for c in conflicts[:SHOWN]
    )
    more = len(conflicts) - SHOWN
    return shown + (f"; and {more} more conflict{'s' if more != 1 else ''}" if more > 0 else "")


# What a person does about them, in every message that names them
RESOLVE = "keep the text you want and delete the marker lines"
