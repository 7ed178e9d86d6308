-- What needs a human (the explorer's home page, docs/pages.md), at time T, in the order to work through it:
--   stage     live stages (open, in_progress, blocked) gated `human` and valid at T: blocked first, then
--             the one waiting longest (oldest `updated`) first
--   proposal  the gardener's proposals (gardener.sql), as the gardener lists them: contradictions, duplicates,
--             vague descriptions, then archive proposals, each kind oldest first (then by the memories involved); `ids` names every memory one
--             involves (newest last), `detail` is its reason
--   error     every file with an error (it is not indexed): its first error, by path
--   fork      every active memory with a supersession-fork warning: two hosts replaced one memory at once and
--             the merge kept the other successor (SPEC section 10), by path
--   concurrent every active memory a merge commit names in a `Seamless-Concurrent-Edit` trailer (edited on two
--             hosts at once: the later edit won each field both changed) and not written since that merge
-- Each row says its place in its section and how many the section holds (`section_position`, `in_section`),
-- so a page can show the first few and the count.
--
-- A fragment: CTEs ending in `needs_human`, placed after
--     WITH RECURSIVE gardener_params(as_of) AS (...), <gardener.sql>, <problem_scope.sql>,

needs_human_stages AS (
    SELECT
        'stage' AS section, m.id, m.path, m.kind, m.name, m.description, coalesce(m.project, 'global') AS project,
        m.stage_status, m.updated,
        printf('Status: %s · Gate: human', m.stage_status) AS detail,
        m.stage_status <> 'blocked' AS rank_in_section, NULL AS proposal, NULL AS ids
    FROM gardener_params AS p
    JOIN memories AS m
        ON m.kind = 'stage' AND m.stage_status IN ('open', 'in_progress', 'blocked') AND m.stage_gate = 'human'
        AND VALID_AT(m, p.as_of)
),

needs_human_errors AS (
    -- a file's first error: the lowest line, then the code
    SELECT path, line, code, message, project
    FROM (
        SELECT *, row_number() OVER (PARTITION BY path ORDER BY line, code) AS n
        FROM problem_scopes
        WHERE severity = 'error'
    )
    WHERE n = 1
),

needs_human_forks AS (
    SELECT m.id, m.path, m.kind, m.name, m.description, coalesce(m.project, 'global') AS project, m.updated,
        p.message AS detail
    FROM problems AS p JOIN memories AS m ON m.path = p.path
    WHERE p.code = 'supersession-fork' AND m.status = 'active'
),

needs_human_concurrent AS (
    -- each memory's latest trailer; written again since that merge, it has been seen to
    SELECT m.id, m.path, m.kind, m.name, m.description, coalesce(m.project, 'global') AS project, m.updated,
        printf('edited on two hosts at once, merged %s (commit %s): the later edit won each field both changed; '
            || 'the other is in git history', c.committed_at, substr(c."commit", 1, 12)) AS detail
    FROM (
        SELECT *, row_number() OVER (PARTITION BY id ORDER BY committed_at DESC, "commit" DESC) AS n
        FROM concurrent_edits
    ) AS c
    JOIN memories AS m ON m.id = c.id
    WHERE c.n = 1 AND m.status = 'active' AND coalesce(m.updated, '') <= c.committed_at
),

needs_human_others AS (
    -- every section but the gardener's proposals
    SELECT 1 AS section_order, * FROM needs_human_stages
    UNION ALL
    SELECT 3, 'error', NULL, path, NULL, NULL, message, project, NULL, NULL, printf('line %d: %s', line, code), 0,
        NULL, NULL
    FROM needs_human_errors
    UNION ALL
    SELECT 4, 'fork', id, path, kind, name, description, project, NULL, updated, detail, 0, NULL, NULL
    FROM needs_human_forks
    UNION ALL
    SELECT 5, 'concurrent', id, path, kind, name, description, project, NULL, updated, detail, 0, NULL, NULL
    FROM needs_human_concurrent
),

needs_human_items AS (
    SELECT * FROM needs_human_others
    UNION ALL
    SELECT
        2, 'proposal', id, path, kind, name, description, coalesce(project, 'global'), stage_status, updated,
        reason, CASE proposal WHEN 'contradiction' THEN 0 WHEN 'duplicate' THEN 1 WHEN 'vague-description' THEN 2
    ELSE 3 END, proposal, ids
    FROM gardener
),

needs_human_sorted AS (
    -- each row's place: its section, then this order within it (errors and forks by path)
    SELECT *, CASE WHEN section IN ('error', 'fork') THEN path END AS error_path FROM needs_human_items
),

needs_human AS (
    -- one sort for all three numbers: every window has the same partition and order
    SELECT
        row_number() OVER whole AS position,
        row_number() OVER section_order AS section_position,
        count(*) OVER (section_order ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS in_section,
        section, id, path, kind, name, description, project, stage_status, updated, detail, proposal, ids
    FROM needs_human_sorted
    WINDOW
        section_order AS (PARTITION BY section_order ORDER BY rank_in_section, error_path, coalesce(updated, ''), id, ids),
        whole AS (ORDER BY section_order, rank_in_section, error_path, coalesce(updated, ''), id, ids)
)
