-- The gardener (SPEC section 4): proposals only, it never acts. At time T it proposes to archive
--   * a `done` or `unknown` stage not updated for gardener.stale_stage_days, and
--   * any other memory that is not pinned and not updated for gardener.stale_days.
-- Pinned memories (constraints, live stages) are never proposed. Only memories valid at T are looked at.
--
-- A fragment: a list of CTEs ending in `gardener`, placed after
--     WITH RECURSIVE gardener_params(as_of) AS (...),
-- with as_of as canonical UTC text (NULL rows are ignored).

gardener_settings AS MATERIALIZED (  -- once, not once per memory
    SELECT
        p.as_of,
        s.stale_stage_days,
        s.stale_days,
        strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days', s.stale_stage_days)) AS stage_cutoff,
        strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days', s.stale_days)) AS stale_cutoff
    FROM gardener_params AS p, (
        SELECT
            (SELECT value FROM settings WHERE key = 'gardener.stale_stage_days') AS stale_stage_days,
            (SELECT value FROM settings WHERE key = 'gardener.stale_days') AS stale_days
    ) AS s
    WHERE p.as_of IS NOT NULL
),

gardener_candidates AS (
    -- the memories to propose: valid at T, not pinned, and not updated since their cutoff. The tests read `k`,
    -- whose columns the memories_overview index holds, so `m`, the whole row, is read for the proposals alone;
    -- CROSS JOIN keeps that order (SQLite does not reorder it).
    SELECT
        g.*, m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path,
        m.kind = 'stage' AND m.stage_status IN ('done', 'unknown') AS gateless_stage,
        -- a missing updated date counts as the oldest possible
        CAST(julianday(g.as_of) - julianday(m.updated) AS INTEGER) AS idle_days
    FROM gardener_settings AS g
    CROSS JOIN memories AS k
        ON VALID_AT(k, g.as_of)
        AND NOT k.pinned
        AND coalesce(k.updated, '') < CASE WHEN k.kind = 'stage' AND k.stage_status IN ('done', 'unknown')
            THEN g.stage_cutoff ELSE g.stale_cutoff END
    CROSS JOIN memories AS m ON m.rowid = k.rowid
),

gardener AS (
    SELECT
        as_of,
        'archive' AS proposal,
        id, kind, name, description, project, stage_status, updated, idle_days,
        CASE
            WHEN gateless_stage THEN printf(
                '%s and not updated for %s (gardener.stale_stage_days = %d)',
                CASE stage_status WHEN 'done' THEN 'stage is done' ELSE 'stage has no valid Status header' END,
                coalesce(idle_days || ' days', 'an unknown time'), stale_stage_days)
            ELSE printf(
                'not pinned and not updated for %s (gardener.stale_days = %d)',
                coalesce(idle_days || ' days', 'an unknown time'), stale_days)
        END AS reason,
        path
    FROM gardener_candidates
)
