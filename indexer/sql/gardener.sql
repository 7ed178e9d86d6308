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
    -- or more are, a vague description when one is. T is read from gardener_settings by a subquery, not a join:
    -- with gardener_findings alone in FROM, its gardener_findings_order index can give the gardener's order
    SELECT (SELECT as_of FROM gardener_settings) AS as_of, f.proposal, f.reason, f.command, f.other,
        f.since <= (SELECT as_of FROM gardener_settings) AS current, f.id AS first, f.rank,
        f.updated AS first_updated, f.ids AS stored_ids,
        CASE WHEN f.since <= (SELECT as_of FROM gardener_settings) THEN f.ids
        ELSE (SELECT json_group_array(value) FROM (
            SELECT j.value FROM json_each(f.ids) AS j JOIN memories AS v ON v.id = j.value
            WHERE VALID_AT(v, (SELECT as_of FROM gardener_settings)) ORDER BY j.key))
        END AS ids
    FROM gardener_findings AS f
    WHERE EXISTS (SELECT 1 FROM gardener_settings)
),

gardener_found_valid AS (
    -- from `since` on, the finding's own memory (`id`, its first) and its ids as stored, which are enough: no JSON
    -- is read for those
    SELECT f.*, m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path
    FROM gardener_found AS f
    JOIN memories AS m ON m.id = CASE WHEN f.current THEN f.first ELSE json_extract(f.ids, '$[0]') END
    WHERE f.current OR (
        f.ids IS NOT NULL
        AND json_array_length(f.ids) >= CASE WHEN f.other IS NOT NULL OR f.proposal = 'duplicate' THEN 2 ELSE 1 END
    )
),

gardener_found_proposals AS (
    -- the findings as the gardener lists them; for the `current` ones (valid throughout T) the gardener's order is
    -- (rank, first_updated, first, stored_ids), which the gardener_findings_order index gives without reading the rest
    SELECT
        as_of, proposal, id, kind, name, description, project, stage_status, updated, NULL AS idle_days, reason, path,
        ids, command, current, rank, first_updated, first, stored_ids
    FROM gardener_found_valid
),

gardener AS (
    SELECT
        as_of, proposal, id, kind, name, description, project, stage_status, updated, idle_days, reason, path, ids,
        command
    FROM gardener_found_proposals
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
