"""What changed between a superseded memory and its successor: a word-level diff, as a `word_diff` template filter.

difflib compares the two texts word by word (words, runs of punctuation and runs of whitespace are the
tokens); what only the old text has is in <del>, what only the new one has in <ins>, every token escaped.
Templates pass the result through the bodies' sanitiser (`|sanitise`, plugins/markdown_bodies.py) like
every body. The source text is compared, not the rendered markdown: a changed heading marker or link
target shows as the characters that changed.
"""

import difflib
import re

from datasette import hookimpl
from markupsafe import Markup, escape

TOKEN = re.compile(r"\w+|[^\w\s]+|\s+")
# difflib's time grows with the product of the lengths; beyond this many tokens a side, no word diff
MAX_TOKENS = 6000


def word_diff(old: str | None, new: str | None) -> Markup | None:
    """`old` against `new` as escaped HTML with <del> and <ins>; None when a side is too long to compare.

    Changes separated only by whitespace, a word of up to three letters or punctuation are shown as one:
    `<del>a is b</del><ins>c is d</ins>`, not six pieces.
    """
    a, b = TOKEN.findall(old or ""), TOKEN.findall(new or "")
    if len(a) > MAX_TOKENS or len(b) > MAX_TOKENS:
        return None
    parts, removed, added = [], [], []

    def close_change():
        if removed:
            parts.append(Markup("<del>%s</del>") % "".join(removed))
        if added:
            parts.append(Markup("<ins>%s</ins>") % "".join(added))
        removed.clear()
        added.clear()

    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
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
            close_change()
            parts.append(escape(same))
    close_change()
    return Markup("").join(parts)


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["word_diff"] = word_diff
