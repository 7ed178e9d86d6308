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

-- What recall takes off a candidate's bm25 (lower is better) for the common terms it holds, `held` its row of
-- recall.sql's recall_memory_held or recall_note_held (NULL: none): 4 for each. Those terms are not in the
-- expression (recall_query.sql); 4 was chosen on LoCoMo's dev conversations (docs/queries.md).
RECALL_BONUS(held) = (4.0 * coalesce(held.common_held, 0))

-- The terms of the recall query the row at FTS5 rowid r holds, by recall.sql's table of hits `hits`, as a JSON
-- array of the terms as typed, in the query's order: all those searched when every one was required.
RECALL_MATCHED(hits, r) = (SELECT json_group_array(text) FROM (SELECT t.text FROM recall_term AS t WHERE CASE WHEN (SELECT every_term FROM recall_query) THEN t.searched ELSE EXISTS (SELECT 1 FROM hits AS h WHERE h.n = t.n AND h.fts_rowid = r) END ORDER BY t.n))
