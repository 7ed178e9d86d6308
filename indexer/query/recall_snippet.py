"""Recall's snippets as plain text beside the spans of their matches (SPEC section 13), so no JSON carries a marker.

recall.sql has FTS5 make each result's snippet with every match between canned.MATCH_START and MATCH_END
(private-use characters, which no text of the store means as anything) and hands it to `read`, registered as the
SQL function recall_snippet (recall_terms.register, beside recall_terms). `pieces` reads the spans back for
whoever shows the matches: the CLI as `**word**`, the recall page in <mark>.
"""

import json

from indexer.sql.canned import MATCH_END, MATCH_START

SQL_FUNCTION = "recall_snippet"


def read(marked: str | None) -> str:
    """A marked snippet as the JSON `[plain text, [[start, end], ...]]`: each match's span in characters of the
    plain text, `plain[start:end]` (`[null, []]` for no snippet)."""
    if marked is None:
        return "[null, []]"
    text, spans, at = [], [], 0
    first, *marked_pieces = marked.split(MATCH_START)
    text.append(first)
    at += len(first)
    for piece in marked_pieces:
        match, _, rest = piece.partition(MATCH_END)
        spans.append([at, at + len(match)])
        text += [match, rest]
        at += len(match) + len(rest)
    return json.dumps(["".join(text), spans], ensure_ascii=False)


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
