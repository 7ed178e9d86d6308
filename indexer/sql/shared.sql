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

-- A recall candidate's score (lower is better): its bm25 `rank` less 4 for each thing typed that it holds, whole or any
-- part of it, `held` its row of recall.sql's recall_held (NULL: none counted, as when every term is required). Why,
-- and how 4 was chosen: docs/queries.md, "The ranking".
RECALL_SCORE(rank, held) = (rank - 4.0 * coalesce(held.typed_held, 0))

-- A row written at time a or b (either may be NULL) was written in the window w (a row of recall_query.sql's
-- recall_when: a time the recall query names, widened by recall_time.py).
RECALL_WRITTEN_IN(w, a, b) = ((a >= w.starts AND a < w.ends) OR (b >= w.starts AND b < w.ends))

-- The share of the best candidate's score a row written in a time the query names gains: 0.5, chosen on LoCoMo's dev
-- conversations (docs/queries.md).
RECALL_TIME_BONUS = 0.5

-- Why recall's result b (a row of recall.sql's recall_best) matched: a JSON array of the terms it holds as typed, in
-- the query's order (all those searched when every one was required), then the times the query names that it was
-- written in.
RECALL_MATCHED(b) = (SELECT json_group_array(text) FROM (SELECT t.n AS k, t.text FROM recall_term AS t WHERE CASE WHEN (SELECT every_term FROM recall_query) THEN t.searched ELSE EXISTS (SELECT 1 FROM recall_hit AS h WHERE h.arm = b.arm AND h.n = t.n AND h.fts_rowid = b.fts_rowid) END UNION ALL SELECT 10000 + w.n, w.text FROM recall_when AS w WHERE RECALL_WRITTEN_IN(w, b.written, b.written_too) ORDER BY k))

-- `value` as one word of a POSIX shell command, as Python's shlex.quote writes it: as it is when it holds only
-- letters, digits and @%+=:,./-_ (ASCII), else in single quotes, each ' inside written '"'"'
SHELL_QUOTE(value) = (CASE WHEN value <> '' AND value NOT GLOB '*[^A-Za-z0-9_@%+=:,./-]*' THEN value ELSE '''' || replace(value, '''', '''"''"''') || '''' END)

-- A description as a reason quotes it: in curly quotes, cut to 77 characters and "..." past 80
QUOTED(value) = ('“' || CASE WHEN length(value) <= 80 THEN value ELSE substr(value, 1, 77) || '...' END || '”')

-- What a finding of the gardener's is, from its rank (gardener_findings.rank: its place in canned.PROPOSAL_ORDER)
PROPOSAL_OF(rank) = (CASE rank WHEN 1 THEN 'contradiction' WHEN 2 THEN 'duplicate' WHEN 3 THEN 'vague-description' END)

-- A dismissal (gardener/dismissed.jsonl, in gardener_dismissed) holds for the gardener's proposal of kind `proposed`
-- with the memories `listed` (JSON text, as findings.py and json_array write it) while each of those memories keeps the
-- `updated` it had when dismissed (SPEC 12). The first test is made once a query: a store with no dismissal pays for
-- none. Its arguments name their table (`f.ids`): a bare `ids` would be read from gardener_dismissed
DISMISSED(proposed, listed) = (EXISTS (SELECT 1 FROM gardener_dismissed) AND EXISTS (SELECT 1 FROM gardener_dismissed AS dismissal WHERE dismissal.kind = proposed AND dismissal.ids = listed AND NOT EXISTS (SELECT 1 FROM json_each(dismissal.updated) AS was WHERE was.value IS NOT (SELECT updated FROM memories WHERE id = was.key))))

-- The command that dismisses the gardener's proposal of kind `proposed` with the memories `listed` (JSON), in the store
-- the index holds (gardener.sql's gardener_settings), its reason left to say; NULL for a kind no dismissal answers
-- (canned.ANSWERABLE)
DISMISS_COMMAND(proposed, listed) = (CASE WHEN proposed IN ('contradiction', 'duplicate', 'vague-description', 'archive') THEN 'seamless gardener dismiss ' || (SELECT store FROM gardener_settings) || ' --kind ' || proposed || ' ' || trim(replace(replace(listed, '", "', ' '), '","', ' '), '[]"') || ' --why ''...''' END)
