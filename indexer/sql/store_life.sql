-- The store's life (the explorer's home page, docs/pages.md): per period and kind, how many memories were
-- written (by `created`), superseded and archived (by `invalid_at`) up to time T. The period is a week
-- (starting Monday) or a month (starting on the 1st): `by` asks for one, else weeks for a history of up to
-- 26 weeks and months for a longer one. Periods with nothing in them give no row.
-- Counted from the `memories_overview` index alone: no memory row is read.
--
-- A fragment: CTEs ending in `store_life`, placed after
--     WITH RECURSIVE life_params(as_of, by) AS (...),
-- with as_of as canonical UTC text (a NULL row gives nothing).

life_settings AS MATERIALIZED (
    SELECT
        p.as_of,
        CASE
            WHEN p.by IN ('week', 'month') THEN p.by
            WHEN julianday(p.as_of) - julianday((SELECT min(created) FROM memories)) > 26 * 7 THEN 'month'
            ELSE 'week'
        END AS by
    FROM life_params AS p
    WHERE p.as_of IS NOT NULL
),

life_events AS (
    SELECT created AS at, kind, 1 AS written, 0 AS superseded, 0 AS archived
    FROM memories
    WHERE created IS NOT NULL
    UNION ALL
    SELECT invalid_at, kind, 0, status = 'superseded', status = 'archived'
    FROM memories
    WHERE invalid_at IS NOT NULL AND status IN ('superseded', 'archived')
),

store_life AS (
    SELECT
        CASE s.by WHEN 'week' THEN date(e.at, '-6 days', 'weekday 1') ELSE date(e.at, 'start of month') END AS period,
        s.by, e.kind, sum(e.written) AS written, sum(e.superseded) AS superseded, sum(e.archived) AS archived
    FROM life_settings AS s
    JOIN life_events AS e ON e.at <= s.as_of
    GROUP BY period, s.by, e.kind
)
