-- The home page's cards at time T (docs/pages.md says what each counts): one per project with memories, notes or
-- problems, and 'global', counted from the `memories_overview` index alone. CTEs ending in `overview`, after
-- `WITH RECURSIVE overview_params(as_of) AS (...), <problem_scope.sql>,` (as_of NULL: no cards).

overview_settings AS MATERIALIZED (
    SELECT as_of, strftime('%Y-%m-%dT%H:%M:%SZ', as_of, '-7 days') AS week_ago
    FROM overview_params
    WHERE as_of IS NOT NULL
),

overview_counts AS (
    -- one pass over the memories, counted by what the cards tell apart (a few rows per project): every memory,
    -- those valid at T, and those written, edited, superseded or archived in the 7 days up to T. Memories alone in
    -- FROM (T from a subquery), grouped by the memories_overview index's own leading columns, which hold every
    -- column read: SQLite counts as it scans that index once, with no sort and no row read (docs/performance.md)
    SELECT m.project, m.kind, m.status, m.pinned, m.stage_status, count(*) AS memories,
        sum(VALID_AT(m, (SELECT as_of FROM overview_settings))) AS n,
        sum((m.updated > (SELECT week_ago FROM overview_settings) AND m.updated <= (SELECT as_of FROM overview_settings))
            OR (m.invalid_at > (SELECT week_ago FROM overview_settings)
                AND m.invalid_at <= (SELECT as_of FROM overview_settings))) AS changed
    FROM memories AS m
    GROUP BY m.project, m.kind, m.status, m.pinned, m.stage_status  -- the index's order: no sort
),

overview_memories AS MATERIALIZED (  -- read twice below: computed once
    SELECT
        coalesce(project, 'global') AS project,
        sum(memories) AS memories,
        coalesce(sum(n), 0) AS active,
        coalesce(sum(n * pinned), 0) AS pinned,
        coalesce(sum(n * (kind = 'stage' AND stage_status = 'open')), 0) AS stages_open,
        coalesce(sum(n * (kind = 'stage' AND stage_status = 'in_progress')), 0) AS stages_in_progress,
        coalesce(sum(n * (kind = 'stage' AND stage_status = 'blocked')), 0) AS stages_blocked,
        coalesce(sum(changed), 0) AS changed_7d
    FROM overview_counts
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
