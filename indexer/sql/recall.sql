-- Recall (SPEC sections 4 and 13; docs/queries.md, "The ranking"): full-text search over the memories valid at as_of
-- (now, unless asked) and the notes, the best `candidates` by bm25 ranked again (shared.sql's score and time bonus).
-- Invalid memories never come back. project '' searches everything; otherwise that project plus the global scope.
--
-- A fragment: CTEs ending in `recall`, placed after recall_params(q, project, max_rows, as_of, every) and
-- recall_query.sql. `recall` holds the best max_rows results, memories and notes together, with
-- the columns type, id, path, project, kind, name, description, title, snippet (plain text), highlights (a JSON
-- array of the [start, end) character spans of the snippet's matches), rank, updated, matched (a JSON
-- array of the terms it holds, as typed, then the times named it was written in) and the reading order's
-- tie-breaker `arm` (a memory before a note): read
-- it `ORDER BY rank, arm, id` (lower rank is better; equal ranks by id, a note's id being its path when it has
-- none). The order is total, so two indexes of the same files give the same answer whatever order their rows
-- were written in (SPEC section 10).
--
-- Where the time goes: bm25 reads every match's column sizes, so ranking a word in half the store is
-- most of the cost, and it is paid once. bm25() with ORDER BY ... LIMIT keeps only the best rows while
-- ranking (`ORDER BY rank` on the FTS table would sort every match first). Snippets are made for the
-- rows returned only. With no project, the best matches are ranked on the FTS table alone and then
-- checked for validity (most matches are valid): when too few of the best are valid, or when the results
-- would end inside a run of equal ranks that the best matches cut (which of them come back would then
-- depend on FTS5's rowids, not on the ids), every valid match is ranked instead, with ids. With a project,
-- the scope is checked first and only the matches in it are ranked.
-- The plan is pinned where SQLite 3.51 chose worse than 3.40 (docs/performance.md): CROSS JOIN keeps the FTS
-- table outside (it had looked notes up by project and matched each one), and the ranked arms are
-- MATERIALIZED (one used twice was computed twice). Preparing: SQLite prepares a CTE holding correlated
-- subqueries again in each place that reads it, so the heavy ones are read once each (docs/performance.md).

recall_scope AS (
    SELECT
        coalesce(project, '') AS project,
        max_rows,
        -- how many of the best matches are ranked before the validity check
        max(4 * max_rows, 100) AS candidates,
        as_of
    FROM recall_params
),

recall_memory_best AS MATERIALIZED (
    -- no project: the best matches, valid or not, with their rows (LIMIT 0, nothing is read, when there is
    -- a project). The ranking is a subquery the join reads: materialized directly, SQLite built a record of
    -- every match for its sort.
    SELECT b.fts_rowid, b.fts_rank, m.id, m.valid_from, m.created, VALID_AT(m, (SELECT as_of FROM recall_scope)) AS valid
    FROM (
        SELECT memories_fts.rowid AS fts_rowid, MEMORY_RANK AS fts_rank
        FROM memories_fts
        WHERE memories_fts MATCH (SELECT fts FROM recall_query)
        ORDER BY fts_rank, fts_rowid
        LIMIT (SELECT CASE WHEN project = '' THEN candidates ELSE 0 END FROM recall_scope)
    ) AS b
    CROSS JOIN memories AS m ON m.rowid = b.fts_rowid
),

recall_best_decides AS (
    -- with no project, the best matches decide when they were every match, or when max_rows of them are valid
    -- and rank better than the worst of them (every match that ranks as well is among them)
    SELECT project = '' AND (
        (SELECT count(*) FROM recall_memory_best) < candidates
        OR (SELECT fts_rank FROM recall_memory_best WHERE valid ORDER BY fts_rank, id
            LIMIT 1 OFFSET (SELECT max_rows FROM recall_scope) - 1)
            < (SELECT max(fts_rank) FROM recall_memory_best)) AS decided
    FROM recall_scope
),

recall_memory_ranked AS MATERIALIZED (
    -- the candidates: the memories that best match, in scope and valid at as_of (the rest of their rows is read
    -- for the results only)
    SELECT fts_rowid, fts_rank, id, valid_from, created
    FROM recall_memory_best
    WHERE valid AND (SELECT decided FROM recall_best_decides)
    UNION ALL
    -- otherwise every match in scope and valid at as_of is ranked (LIMIT 0 when the best matches decided)
    SELECT * FROM (
        SELECT memories_fts.rowid AS fts_rowid, MEMORY_RANK AS fts_rank, m.id, m.valid_from, m.created
        FROM memories_fts CROSS JOIN memories AS m ON m.rowid = memories_fts.rowid
        WHERE memories_fts MATCH (SELECT fts FROM recall_query)
            AND VALID_AT(m, (SELECT as_of FROM recall_scope))
            AND (
                (SELECT project FROM recall_scope) = ''
                OR m.project IS NULL
                OR m.project = (SELECT project FROM recall_scope)
            )
        ORDER BY fts_rank, m.id
        LIMIT (SELECT CASE WHEN (SELECT decided FROM recall_best_decides) THEN 0 ELSE candidates END FROM recall_scope)
    )
),

recall_note_best AS MATERIALIZED (
    -- notes have no validity: with no project the FTS table alone ranks them, as the memories' best above
    SELECT b.fts_rowid, b.fts_rank, coalesce(n.id, n.path) AS id, n.path, n.project, n.title, n.updated, n.created
    FROM (
        SELECT notes_fts.rowid AS fts_rowid, NOTE_RANK AS fts_rank
        FROM notes_fts
        WHERE notes_fts MATCH (SELECT fts FROM recall_query)
        ORDER BY fts_rank, fts_rowid
        LIMIT (SELECT CASE WHEN project = '' THEN candidates ELSE 0 END FROM recall_scope)
    ) AS b
    CROSS JOIN notes AS n ON n.rowid = b.fts_rowid
),

recall_note_best_decides AS (
    SELECT project = '' AND (
        (SELECT count(*) FROM recall_note_best) < candidates
        OR (SELECT fts_rank FROM recall_note_best ORDER BY fts_rank, id
            LIMIT 1 OFFSET (SELECT max_rows FROM recall_scope) - 1)
            < (SELECT max(fts_rank) FROM recall_note_best)) AS decided
    FROM recall_scope
),

recall_note_ranked AS MATERIALIZED (
    SELECT * FROM recall_note_best WHERE (SELECT decided FROM recall_note_best_decides)
    UNION ALL
    -- with a project, or when the best notes did not decide: every match in scope, ranked with ids
    SELECT * FROM (
        SELECT notes_fts.rowid AS fts_rowid, NOTE_RANK AS fts_rank, coalesce(n.id, n.path) AS id, n.path,
            n.project, n.title, n.updated, n.created
        FROM notes_fts CROSS JOIN notes AS n ON n.rowid = notes_fts.rowid
        WHERE notes_fts MATCH (SELECT fts FROM recall_query)
            AND (
                (SELECT project FROM recall_scope) = ''
                OR n.project IS NULL
                OR n.project = (SELECT project FROM recall_scope)
            )
        ORDER BY fts_rank, id
        LIMIT (SELECT CASE WHEN (SELECT decided FROM recall_note_best_decides) THEN 0 ELSE candidates END
            FROM recall_scope)
    )
),

recall_hit AS MATERIALIZED (
    -- which candidates hold which terms (and of which thing typed), for `matched` and the bonus: a term's own matches when
    -- it is in the expression (at most recall_terms.COMMON_DOCS), else the expression's matches that hold it;
    -- only the candidates' are kept (`+` keeps the rowid test out of FTS5, which would match once per rowid).
    -- Not needed when every term is required: every row holds them all. arm 0: memories, 1: notes.
    SELECT 0 AS arm, t.n, t.typed, t.weight, memories_fts.rowid AS fts_rowid
    FROM recall_query AS q CROSS JOIN recall_term AS t CROSS JOIN memories_fts
    WHERE NOT q.every_term
        AND memories_fts MATCH CASE WHEN t.common THEN '(' || q.fts || ') AND ' || t.fts ELSE t.fts END
        AND +memories_fts.rowid IN (SELECT fts_rowid FROM recall_memory_ranked)
    UNION ALL
    SELECT 1, t.n, t.typed, t.weight, notes_fts.rowid
    FROM recall_query AS q CROSS JOIN recall_term AS t CROSS JOIN notes_fts
    WHERE NOT q.every_term
        AND notes_fts MATCH CASE WHEN t.common THEN '(' || q.fts || ') AND ' || t.fts ELSE t.fts END
        AND +notes_fts.rowid IN (SELECT fts_rowid FROM recall_note_ranked)
),

recall_held AS MATERIALIZED (
    -- how many of the things typed each candidate holds: each once, however many of its parts it holds (in a paste,
    -- each as much as its rarest part held: recall_terms.LONG_PASTE)
    SELECT arm, fts_rowid, sum(weight) AS typed_held FROM (
        SELECT arm, fts_rowid, max(weight) AS weight FROM recall_hit GROUP BY arm, fts_rowid, typed
    )
    GROUP BY arm, fts_rowid
),

recall_candidate AS MATERIALIZED (
    -- each candidate with its score (its bm25 less 4 for each thing typed it holds: shared.sql) and the times it was written:
    -- a memory's valid_from and created, a note's created and updated (notes have no lifecycle). Joins, not
    -- subqueries per row: SQLite took as long again to prepare those.
    SELECT c.arm, c.fts_rowid, c.id, c.written, c.written_too, RECALL_SCORE(c.fts_rank, h) AS base
    FROM (
        SELECT 0 AS arm, fts_rowid, fts_rank, id, valid_from AS written, created AS written_too
        FROM recall_memory_ranked
        UNION ALL
        SELECT 1, fts_rowid, fts_rank, id, created, updated FROM recall_note_ranked
    ) AS c
    LEFT JOIN recall_held AS h ON h.arm = c.arm AND h.fts_rowid = c.fts_rowid
),

recall_best AS MATERIALIZED (
    -- the best of them, each written in a time the query names ranked higher by a share of the best one's score
    SELECT arm, fts_rowid, id, written, written_too, min(best, 0) AS best,
        base + CASE WHEN written_then THEN RECALL_TIME_BONUS * min(best, 0) ELSE 0 END AS rank
    FROM (
        SELECT c.arm, c.fts_rowid, c.id, c.written, c.written_too, c.base, min(c.base) OVER () AS best,
            count(w.n) AS written_then
        FROM recall_candidate AS c LEFT JOIN recall_when AS w ON RECALL_WRITTEN_IN(w, c.written, c.written_too)
        GROUP BY c.arm, c.fts_rowid
    )
    ORDER BY rank, arm, id
    LIMIT (SELECT max_rows FROM recall_scope)
),

recall_row AS MATERIALIZED (
    -- materialized (at most max_rows rows, read once): SQLite prepares the statement 1.5 ms sooner so, the same time
    -- to run at 100,000 memories (docs/performance.md, "Start-up")
    SELECT
        CASE WHEN b.arm = 0 THEN 'memory' ELSE 'note' END AS type, b.id,
        CASE WHEN b.arm = 0 THEN m.path ELSE n.path END AS path,
        CASE WHEN b.arm = 0 THEN m.project ELSE n.project END AS project,
        m.kind, m.name, m.description, n.title,
        -- FTS5's snippet, each match marked (canned.MATCH_START, MATCH_END): `recall` makes it plain text beside the
        -- spans of its matches
        CASE WHEN b.arm = 0
            THEN (SELECT snippet(memories_fts, 3, char(57344), char(57345), '…', 12) FROM memories_fts
                WHERE memories_fts MATCH (SELECT fts FROM recall_query) AND memories_fts.rowid = b.fts_rowid)
            ELSE (SELECT snippet(notes_fts, 2, char(57344), char(57345), '…', 12) FROM notes_fts
                WHERE notes_fts MATCH (SELECT fts FROM recall_query) AND notes_fts.rowid = b.fts_rowid)
        END AS marked,
        b.rank, CASE WHEN b.arm = 0 THEN m.updated ELSE n.updated END AS updated,
        RECALL_MATCHED(b) AS matched, b.arm, b.fts_rowid
    FROM recall_best AS b
    LEFT JOIN memories AS m ON b.arm = 0 AND m.rowid = b.fts_rowid
    LEFT JOIN notes AS n ON b.arm = 1 AND n.rowid = b.fts_rowid
),

recall AS (
    -- the snippet as plain text, and the [start, end) spans of its matches in characters (a JSON array: recall_snippet,
    -- a Python function, reads them from the marks; a recursive CTE took SQLite 10 ms longer to prepare)
    SELECT type, id, path, project, kind, name, description, title,
        replace(replace(marked, char(57344), ''), char(57345), '') AS snippet, recall_snippet(marked) AS highlights,
        rank, updated, matched, arm, fts_rowid
    FROM recall_row
)
