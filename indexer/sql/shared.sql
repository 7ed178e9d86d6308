-- Expressions the other .sql files share, each written once here. A file names one as NAME(arguments)
-- (or NAME alone when it takes none); indexer.sql.source() puts the expression in its place, each
-- parameter replaced by its argument, so SQLite sees plain SQL (and plans it as if written out).

-- Memory `m` is valid at time `t` (SPEC section 2): valid_from <= t < invalid_at. A missing valid_from
-- means valid since forever; a missing invalid_at, valid until further notice.
VALID_AT(m, t) = (coalesce(m.valid_from, '') <= t AND (m.invalid_at IS NULL OR m.invalid_at > t))

-- Recall's ranking (lower is better): a memory's name and description weigh above its tags and body, a
-- note's title above its tags and body (the columns in the order fts.py gives them).
MEMORY_RANK = bm25(memories_fts, 8.0, 10.0, 3.0, 1.0)
NOTE_RANK = bm25(notes_fts, 10.0, 3.0, 1.0)
