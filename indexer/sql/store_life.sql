-- The store's life (docs/pages.md, the explorer's /-/life): per week (from Monday) or month and kind, the memories
-- written (by `created`), superseded and archived (by `invalid_at`) up to time T, from the `memories_overview` index
-- alone; `by` '' chooses weeks for up to 26 weeks of history. CTEs ending in `store_life`, after `WITH RECURSIVE
-- life_params(as_of, by, scope) AS (...),` (scope '': every memory; as_of NULL: nothing).

life_settings AS MATERIALIZED (
    SELECT
        p.as_of,
        p.scope,
        CASE
            WHEN p.by IN ('week', 'month') THEN p.by
            WHEN julianday(p.as_of) - julianday((
                SELECT min(created) FROM memories WHERE p.scope = '' OR coalesce(project, 'global') = p.scope
            )) > 26 * 7 THEN 'month'
            ELSE 'week'
        END AS by
    FROM life_params AS p
    WHERE p.as_of IS NOT NULL
),

life_days AS (
    -- per day and kind first, with substr (cheap) rather than date() over every memory: date() then runs
    -- once per day below, not once per memory
    SELECT substr(created, 1, 10) AS day, kind, count(*) AS written, 0 AS superseded, 0 AS archived
    FROM life_settings AS s
    CROSS JOIN memories AS m
    WHERE m.created <= s.as_of AND (s.scope = '' OR coalesce(m.project, 'global') = s.scope)
    GROUP BY day, kind
    UNION ALL
    SELECT substr(invalid_at, 1, 10), kind, 0, sum(status = 'superseded'), sum(status = 'archived')
    FROM life_settings AS s
    CROSS JOIN memories AS m
    WHERE m.invalid_at <= s.as_of AND m.status IN ('superseded', 'archived')
        AND (s.scope = '' OR coalesce(m.project, 'global') = s.scope)
    GROUP BY 1, kind
),

store_life AS (
    SELECT
        CASE s.by WHEN 'week' THEN date(d.day, '-6 days', 'weekday 1') ELSE date(d.day, 'start of month') END AS period,
        s.by, d.kind, sum(d.written) AS written, sum(d.superseded) AS superseded, sum(d.archived) AS archived
    FROM life_settings AS s
    CROSS JOIN life_days AS d
    GROUP BY period, s.by, d.kind
)
