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

-- What recall takes off a candidate's bm25 (lower is better) for the common terms the row at FTS5 rowid r holds,
-- by recall.sql's table of hits `hits`: 4 for each. Those terms are not in the expression (recall_query.sql); 4 was
-- chosen on LoCoMo's dev conversations (docs/queries.md).
RECALL_BONUS(hits, r) = (4.0 * (SELECT count(*) FROM hits AS h WHERE h.fts_rowid = r AND h.common))

-- A row written at time a or b (either may be NULL) was written in a time the recall query names (recall_query.sql's
-- recall_when: each window already widened by recall_time.py).
RECALL_WRITTEN_IN(a, b) = EXISTS (SELECT 1 FROM recall_when AS w WHERE (a >= w.starts AND a < w.ends) OR (b >= w.starts AND b < w.ends))

-- The share of the best candidate's score a row written in a time the query names gains: 0.5, chosen on LoCoMo's dev
-- conversations (docs/queries.md).
RECALL_TIME_BONUS = 0.5

-- Why the row at FTS5 rowid r, written at a or b, matched, by recall.sql's table of hits `hits`: a JSON array of the
-- terms it holds as typed, in the query's order (all those searched when every one was required), then the times
-- the query names that it was written in.
RECALL_MATCHED(hits, r, a, b) = (SELECT json_group_array(text) FROM (SELECT t.n AS k, t.text FROM recall_term AS t WHERE CASE WHEN (SELECT every_term FROM recall_query) THEN t.searched ELSE EXISTS (SELECT 1 FROM hits AS h WHERE h.n = t.n AND h.fts_rowid = r) END UNION ALL SELECT 10000 + w.n, w.text FROM recall_when AS w WHERE (a >= w.starts AND a < w.ends) OR (b >= w.starts AND b < w.ends) ORDER BY k))
