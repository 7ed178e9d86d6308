-- The explorer's home page (docs/pages.md): one card per scope at time T. A scope is every project that
-- has memories, notes or problems, and the global scope as project 'global' (always there). Each counts:
--   active        memories valid at T
--   pinned        of those, the pinned ones (constraints and live stages)
--   stages_*      of those, the live stages by status: open, in_progress, blocked
--   changed_7d    memories written, edited, superseded or archived in the 7 days up to T
--   memories      every memory, whatever its status; notes; errors and warnings (problem_scope.sql)
-- Counted from the `memories_overview` index alone: no memory row is read.
--
-- A fragment: CTEs ending in `overview`, placed after
--     WITH RECURSIVE overview_params(as_of) AS (...), <problem_scope.sql>,
-- with as_of as canonical UTC text (a NULL row gives no cards).

overview_settings AS MATERIALIZED (
    SELECT as_of, strftime('%Y-%m-%dT%H:%M:%SZ', as_of, '-7 days') AS week_ago
    FROM overview_params
    WHERE as_of IS NOT NULL
),

overview_memories AS (
    -- grouped by the index's own order (project first), each row's validity and change tested once
    SELECT
        coalesce(project, 'global') AS project,
        count(*) AS memories,
        sum(valid) AS active,
        sum(valid AND pinned) AS pinned,
        sum(valid AND kind = 'stage' AND stage_status = 'open') AS stages_open,
        sum(valid AND kind = 'stage' AND stage_status = 'in_progress') AS stages_in_progress,
        sum(valid AND kind = 'stage' AND stage_status = 'blocked') AS stages_blocked,
        sum(changed) AS changed_7d
    FROM (
        SELECT
            m.project, m.kind, m.pinned, m.stage_status,
            coalesce(m.valid_from, '') <= s.as_of AND (m.invalid_at IS NULL OR m.invalid_at > s.as_of) AS valid,
            (m.updated > s.week_ago AND m.updated <= s.as_of)
                OR (m.invalid_at > s.week_ago AND m.invalid_at <= s.as_of) AS changed
        FROM overview_settings AS s, memories AS m
    )
    GROUP BY project
),

overview_notes AS (
    SELECT coalesce(project, 'global') AS project, count(*) AS notes FROM notes GROUP BY project
),

overview_problems AS (
    SELECT project, sum(severity = 'error') AS errors, sum(severity = 'warning') AS warnings
    FROM problem_scopes
    GROUP BY project
),

overview_scopes AS (
    SELECT project FROM overview_memories
    UNION SELECT project FROM overview_notes
    UNION SELECT project FROM overview_problems
    UNION SELECT 'global'
),

overview AS (
    SELECT
        c.project,
        coalesce(m.active, 0) AS active,
        coalesce(m.pinned, 0) AS pinned,
        coalesce(m.stages_open, 0) AS stages_open,
        coalesce(m.stages_in_progress, 0) AS stages_in_progress,
        coalesce(m.stages_blocked, 0) AS stages_blocked,
        coalesce(m.changed_7d, 0) AS changed_7d,
        coalesce(m.memories, 0) AS memories,
        coalesce(n.notes, 0) AS notes,
        coalesce(p.errors, 0) AS errors,
        coalesce(p.warnings, 0) AS warnings,
        s.as_of
    FROM overview_scopes AS c
    CROSS JOIN overview_settings AS s
    LEFT JOIN overview_memories AS m ON m.project = c.project
    LEFT JOIN overview_notes AS n ON n.project = c.project
    LEFT JOIN overview_problems AS p ON p.project = c.project
)
