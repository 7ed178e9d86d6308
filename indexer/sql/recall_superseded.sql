-- What replaced the superseded memories a recall query matches (superseded by as_of): recall never returns
-- invalid memories, but when the best matches are old truths, the user should hear what replaced them. One row
-- per current memory reached by following superseded_by (cycles and dangling links end the walk without a row).
--
-- A fragment: CTEs ending in `recall_superseded`, placed after recall_params(q, project, max_rows, as_of, every,
-- superseded_limit), recall_query.sql and `recall_shown(worst)`: recall_shown.sql (recall's results ranked
-- here) or, where recall's results are at hand (the recall page), their worst rank given. Only the best few
-- superseded matches (superseded_limit) are followed, and only those that would have ranked among recall's
-- results are told. An old match is ranked as recall ranks a candidate (bm25 less 4 for each thing typed it holds), but
-- without the bonus for a time the query names (a share of recall's best candidate, which the page does not give).

recall_old_match AS MATERIALIZED (
    -- the superseded matches in scope that were no longer true at as_of, with their bm25
    SELECT memories_fts.rowid AS fts_rowid, m.id, m.name, m.superseded_by, MEMORY_RANK AS fts_rank
    FROM memories_fts CROSS JOIN memories AS m ON m.rowid = memories_fts.rowid
    WHERE memories_fts MATCH (SELECT fts FROM recall_query)
        -- the superseded memories' rowids, from their partial index: a match that is not one is passed over
        -- without reading its row (a common word matches half the store: 50,000 rows read at 100,000 memories,
        -- most of this query's time). The unary + keeps the list from being pushed into FTS5 as a rowid lookup.
        AND +memories_fts.rowid IN (SELECT rowid FROM memories WHERE superseded_by IS NOT NULL)
        AND m.superseded_by IS NOT NULL
        AND m.invalid_at <= (SELECT as_of FROM recall_params)
        AND (
            (SELECT coalesce(project, '') FROM recall_params) = ''
            OR m.project IS NULL
            OR m.project = (SELECT project FROM recall_params)
        )
),

recall_old_held AS MATERIALIZED (
    -- how many of the things typed each holds, as recall.sql's recall_held counts them (the recall page runs this
    -- without recall.sql): a term in the expression through its own matches (at most recall_terms.COMMON_DOCS), kept
    -- for these rows; a common term looked up by rowid for these rows alone, cheaper than going through its matches
    -- (docs/performance.md)
    SELECT fts_rowid, sum(weight) AS typed_held FROM (SELECT fts_rowid, max(weight) AS weight FROM (
        SELECT memories_fts.rowid AS fts_rowid, t.typed, t.weight
        FROM recall_query AS q CROSS JOIN recall_term AS t CROSS JOIN memories_fts
        WHERE NOT q.every_term AND NOT t.common AND t.searched AND memories_fts MATCH t.fts
            AND +memories_fts.rowid IN (SELECT fts_rowid FROM recall_old_match)
        UNION ALL
        SELECT o.fts_rowid, t.typed, t.weight
        FROM recall_query AS q CROSS JOIN recall_term AS t CROSS JOIN recall_old_match AS o CROSS JOIN memories_fts
        WHERE NOT q.every_term AND t.common AND memories_fts MATCH t.fts AND memories_fts.rowid = o.fts_rowid
    ) GROUP BY fts_rowid, typed)
    GROUP BY fts_rowid
),

recall_old AS (
    -- the best superseded matches, ranked as recall ranks its candidates: recall's score without the time's bonus
    SELECT o.id, o.name, o.superseded_by, RECALL_SCORE(o.fts_rank, h) AS rank
    FROM recall_old_match AS o LEFT JOIN recall_old_held AS h ON h.fts_rowid = o.fts_rowid
    ORDER BY rank, o.id
    LIMIT (SELECT superseded_limit FROM recall_params)
),

recall_successors(old_id, id, trail) AS (
    SELECT id, superseded_by, '/' || id || '/' || superseded_by || '/' FROM recall_old
    UNION ALL
    SELECT s.old_id, m.superseded_by, s.trail || m.superseded_by || '/'
    FROM recall_successors AS s JOIN memories AS m ON m.id = s.id
    WHERE m.superseded_by IS NOT NULL AND instr(s.trail, '/' || m.superseded_by || '/') = 0
),

recall_superseded_all AS (
    SELECT
        id, kind, name, description, project,
        group_concat(old_name, ', ') AS replaces,
        group_concat(old_id, ', ') AS replaces_ids,
        min(rank) AS rank
    FROM (
        -- best old match first in each list
        SELECT c.id, c.kind, c.name, c.description, c.project, o.name AS old_name, o.id AS old_id, o.rank
        FROM recall_successors AS s
        JOIN memories AS c ON c.id = s.id AND c.status = 'active'
        JOIN recall_old AS o ON o.id = s.old_id
        ORDER BY o.rank, o.id
    )
    GROUP BY id
),

recall_superseded AS (
    -- only old truths that would have ranked among recall's results are told (all of them when worst is NULL)
    SELECT a.*
    FROM recall_superseded_all AS a, recall_shown AS shown
    WHERE shown.worst IS NULL OR a.rank <= shown.worst
)
