-- Recall (SPEC section 4): full-text search over the memories valid now and the notes, ranked by bm25
-- with name and description (a note's title) weighted above tags and body. Invalid memories never come
-- back. project '' searches everything; otherwise that project plus the global scope.
--
-- A fragment: CTEs `recall_memories` and `recall_notes` (same columns), placed after
-- recall_params(q, project) and recall_query.sql. Lower rank is better; each comes out of FTS5 already
-- in rank order (`rank MATCH 'bm25(...)'`), so `... UNION ALL ... ORDER BY rank` merges the two streams
-- without sorting every match, and a LIMIT stops early.

recall_memories AS (
    SELECT
        'memory' AS type, m.id, m.path, m.project, m.kind, m.name, m.description, NULL AS title,
        snippet(memories_fts, 3, '**', '**', '…', 12) AS snippet,
        memories_fts.rank,
        m.updated
    FROM memories_fts JOIN memories AS m ON m.rowid = memories_fts.rowid
    WHERE memories_fts MATCH (SELECT fts FROM recall_query)
        AND memories_fts.rank MATCH 'bm25(8.0, 10.0, 3.0, 1.0)'
        AND coalesce(m.valid_from, '') <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
        AND (m.invalid_at IS NULL OR m.invalid_at > strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
        AND (
            (SELECT coalesce(project, '') FROM recall_params) = ''
            OR m.project IS NULL
            OR m.project = (SELECT project FROM recall_params)
        )
),

recall_notes AS (
    SELECT
        'note' AS type, coalesce(n.id, n.path) AS id, n.path, n.project, NULL AS kind, NULL AS name,
        NULL AS description, n.title,
        snippet(notes_fts, 2, '**', '**', '…', 12) AS snippet,
        notes_fts.rank,
        n.updated
    FROM notes_fts JOIN notes AS n ON n.rowid = notes_fts.rowid
    WHERE notes_fts MATCH (SELECT fts FROM recall_query)
        AND notes_fts.rank MATCH 'bm25(10.0, 3.0, 1.0)'
        AND (
            (SELECT coalesce(project, '') FROM recall_params) = ''
            OR n.project IS NULL
            OR n.project = (SELECT project FROM recall_params)
        )
)
