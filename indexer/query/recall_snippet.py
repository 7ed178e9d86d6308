"""Recall's snippets as plain text beside the spans of their matches (SPEC section 13), so no JSON carries a marker.
recall.sql marks each match between canned.MATCH_START and MATCH_END and takes the marks out; `read` (the SQL function
recall_snippet) gives the spans, and `pieces` reads them back for the CLI (`**word**`) and the recall page (<mark>).
"""

import json

from indexer.sql.canned import MATCH_END, MATCH_START

SQL_FUNCTION = "recall_snippet"


def read(marked: str | None) -> str:
    """The spans of a marked snippet's matches as the JSON `[[start, end], ...]`, in characters of the snippet without
    its marks (`plain[start:end]`); recall.sql takes the marks out of the text itself."""
    spans = []
    first, *marked_pieces = (marked or "").split(MATCH_START)
    at = len(first)
    for piece in marked_pieces:
        match, _, rest = piece.partition(MATCH_END)
        spans.append(f"[{at},{at + len(match)}]")
        at += len(match) + len(rest)
    return f"[{','.join(spans)}]"


def pieces(snippet: str | None, highlights) -> list[tuple[str, bool]]:
    """A recall snippet as its pieces in order, each with whether it is a match (`highlights`: its spans, as a list
    or as the JSON the canned query's rows hold); spans out of order or past the text are passed over."""
    if isinstance(highlights, str):
        highlights = json.loads(highlights or "[]")
    text, at, found = snippet or "", 0, []
    for start, end in highlights or ():
        if at <= start < end <= len(text):
            found += [(text[at:start], False), (text[start:end], True)]
            at = end
    return [piece for piece in [*found, (text[at:], False)] if piece[0]]
