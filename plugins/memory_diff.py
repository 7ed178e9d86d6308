"""What changed between a superseded memory and its successor: a word-level diff (difflib, line by line, then the
changed lines word by word), as a `word_diff` template filter: escaped, with <del> and <ins>. It runs off the event
loop within the budget bodies are rendered in (indexer/query/page_budget.py): over it, "too long to compare" (None).
"""

import difflib
import re
from functools import lru_cache

from datasette import hookimpl
from markupsafe import Markup, escape

from indexer.query.page_budget import MAX_CHARS, within_budget

TOKEN = re.compile(r"\w+|[^\w\s]+|\s+")
# difflib's time grows with the product of the lengths it compares: a body of more lines than this is not
# compared, and a changed block of more tokens than this is shown removed and added whole, not word by word
MAX_LINES = 5000
MAX_BLOCK_TOKENS = 600


async def word_diff_filter(old: str | None, new: str | None) -> Markup | None:
    """word_diff as the templates' `word_diff` filter: off the event loop, None when too long or too slow."""
    if len(old or "") > MAX_CHARS or len(new or "") > MAX_CHARS:
        return None
    return await within_budget(None, word_diff, old, new)


@lru_cache(maxsize=256)
def word_diff(old: str | None, new: str | None) -> Markup | None:
    """`old` against `new` as escaped HTML with <del> and <ins> (changes apart by only a short word or a stop shown as
    one: `<del>a is b</del><ins>c is d</ins>`); None when a side is too long to compare."""
    a, b = (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True)
    if len(a) > MAX_LINES or len(b) > MAX_LINES:
        return None
    parts = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        removed, added = "".join(a[i1:i2]), "".join(b[j1:j2])
        parts.append(escape(removed) if tag == "equal" else changed_words(removed, added))
    return Markup("").join(parts)


def changed_words(old: str, new: str) -> Markup:
    """Two changed blocks of lines, word by word (or whole, when a block is too long to compare)."""
    # the line breaks both blocks end with are not a change (difflib, taking spaces as junk, may not match them)
    breaks = min(len(old) - len(old.rstrip("\n")), len(new) - len(new.rstrip("\n")))
    if breaks:
        return changed_words(old[:-breaks], new[:-breaks]) + Markup("\n" * breaks)
    a, b = TOKEN.findall(old), TOKEN.findall(new)
    if len(a) > MAX_BLOCK_TOKENS or len(b) > MAX_BLOCK_TOKENS:
        return changed(old, new)
    parts, removed, added = [], [], []
    opcodes = difflib.SequenceMatcher(str.isspace, a, b, autojunk=False).get_opcodes()  # spaces: never matched alone
    for n, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        same = "".join(a[i1:i2])
        if tag != "equal":
            removed.extend(a[i1:i2])
            added.extend(b[j1:j2])
        elif (removed or added) and n + 1 < len(opcodes) and len(same.strip()) <= 3:
            # only whitespace, a short word or a stop between two changes: shown as one change, easier to read
            removed.append(same)
            added.append(same)
        else:
            parts.append(changed("".join(removed), "".join(added)))
            removed, added = [], []
            parts.append(escape(same))
    parts.append(changed("".join(removed), "".join(added)))
    return Markup("").join(parts)


def changed(old: str, new: str) -> Markup:
    """`<del>old</del><ins>new</ins>`, escaped, leaving out an empty side."""
    return (Markup("<del>%s</del>") % old if old else Markup("")) + (
        Markup("<ins>%s</ins>") % new if new else Markup("")
    )


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["word_diff"] = word_diff_filter  # awaited: templates are rendered asynchronously
