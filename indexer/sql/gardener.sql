-- The gardener (SPEC sections 4 and 12): proposals only, it never acts. At time T it proposes to archive
--   * a `done` or `unknown` stage not updated for gardener.stale_stage_days, and
--   * any other memory that is not pinned and not updated for gardener.stale_days;
-- Pinned memories (constraints, live stages) are never proposed to archive. Only memories valid at T are looked at.
-- It also lists what the last index run found among the active memories of each scope (gardener_findings,
-- indexer/index/gardener_pairs.py): `duplicate`, `contradiction` and `vague-description`, each with the memories
-- it involves (`ids`, newest last) that are valid at T.
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

gardener_found AS (
    -- the findings, each with its memories valid at T, oldest first. Its memories are active, so from `since`
    -- on all of them are valid (the usual case, read as it is); before, a pair when both are, copies when two
    -- or more are, a vague description when one is
    SELECT g.as_of, f.proposal, f.reason, f.command, f.other,
        CASE WHEN f.since <= g.as_of THEN f.ids
        ELSE (SELECT json_group_array(value) FROM (
            SELECT j.value FROM json_each(f.ids) AS j JOIN memories AS v ON v.id = j.value
            WHERE VALID_AT(v, g.as_of) ORDER BY j.key))
        END AS ids
    FROM gardener_settings AS g CROSS JOIN gardener_findings AS f
),

gardener_found_valid AS (
    SELECT f.*, m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path
    FROM gardener_found AS f
    JOIN memories AS m ON m.id = json_extract(f.ids, '$[0]')
    WHERE f.ids IS NOT NULL
        AND json_array_length(f.ids) >= CASE WHEN f.other IS NOT NULL OR f.proposal = 'duplicate' THEN 2 ELSE 1 END
),

gardener AS (
    SELECT
        as_of, proposal, id, kind, name, description, project, stage_status, updated, NULL AS idle_days, reason, path,
        ids, command
    FROM gardener_found_valid
    UNION ALL
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
        path,
        json_array(id) AS ids,
        NULL AS command
    FROM gardener_candidates
)
