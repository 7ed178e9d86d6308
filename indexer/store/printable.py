"""Store text printed on one line: its control characters shown escaped, so a file named with a newline cannot
print a second, forged line, nor a terminal escape sequence hide one.
"""

import re

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # C0, DEL, C1, and the Unicode line separators


def escaped(text: str) -> str:
    """`text` with each control character written as Python writes it in a string (`\\n`, `\\x1b`)."""
    if text.isprintable():
        return text
    return CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
