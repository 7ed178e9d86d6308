-- The gardener's proposals at time T (SPEC sections 4 and 12, docs/queries.md): the archive proposals, what its last
-- settle found (gardener_findings), each worded from its memories as they are, and what the fleet left for a person.
-- While memories changed since that settle, an `unsettled` row comes first and says so: no list passes for current
-- when it is not. CTEs ending in `gardener`, after `WITH RECURSIVE gardener_params(as_of) AS (...),`.

gardener_settings AS MATERIALIZED (  -- once, not once per memory
    SELECT
        p.as_of,
        CAST(strftime('%s', p.as_of) AS INTEGER) AS as_of_epoch,  -- as gardener_findings.since counts time
        s.stale_stage_days,
        s.stale_days,
        s.stale_memories,
        strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days', s.stale_stage_days)) AS stage_cutoff,
        strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days', s.stale_days)) AS stale_cutoff,
        SHELL_QUOTE((SELECT value FROM index_meta WHERE key = 'store')) AS store  -- as its commands name it
    FROM gardener_params AS p, (
        SELECT
            (SELECT value FROM settings WHERE key = 'gardener.stale_stage_days') AS stale_stage_days,
            (SELECT value FROM settings WHERE key = 'gardener.stale_days') AS stale_days,
            (SELECT value FROM settings WHERE key = 'gardener.stale_memories') AS stale_memories
    ) AS s
    WHERE p.as_of IS NOT NULL
),

gardener_candidate_rows AS (
    -- the memories to archive, in two runs each tested on an index alone (a count reads no row): stages done or
    -- without a valid header (memories_gateless_stages), any other by `updated` (memories_updated; none is oldest)
    SELECT k.rowid AS candidate, 1 AS gateless_stage
    FROM gardener_settings AS g
    CROSS JOIN memories AS k INDEXED BY memories_gateless_stages
        ON k.kind = 'stage' AND k.stage_status IN ('done', 'unknown')
        AND coalesce(k.updated, '') < g.stage_cutoff AND NOT k.pinned AND VALID_AT(k, g.as_of)
    UNION ALL
    SELECT k.rowid, 0
    FROM gardener_settings AS g
    CROSS JOIN memories AS k
        ON g.stale_memories AND (k.updated < g.stale_cutoff OR k.updated IS NULL)
        AND NOT (k.kind = 'stage' AND coalesce(k.stage_status, '') IN ('done', 'unknown'))
        AND NOT k.pinned AND VALID_AT(k, g.as_of)
),

gardener_candidates AS (
    -- each with its row (CROSS JOIN keeps that order: SQLite does not reorder it), unless a dismissal holds for it
    SELECT
        g.*, m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path, c.gateless_stage,
        CAST(julianday(g.as_of) - julianday(m.updated) AS INTEGER) AS idle_days
    FROM gardener_settings AS g
    CROSS JOIN gardener_candidate_rows AS c
    CROSS JOIN memories AS m ON m.rowid = c.candidate
    WHERE NOT DISMISSED('archive', json_array(m.id))
),

gardener_state AS MATERIALIZED (
    -- how current the findings are: the last settle, the memories changed since (every active one when the rules
    -- that settled them are not these: '*' pending), the last settle's failure (indexer/gardener/background.py)
    SELECT
        (SELECT value FROM index_meta WHERE key = 'gardener_settled') AS settled,
        CASE WHEN EXISTS (SELECT 1 FROM gardener_pending WHERE id = '*')
            THEN (SELECT count(*) FROM memories WHERE status = 'active')
            ELSE (SELECT count(DISTINCT id) FROM gardener_pending) END AS changed_since,
        EXISTS (SELECT 1 FROM gardener_pending WHERE id = '*') AS unread,
        (SELECT value FROM index_meta WHERE key = 'gardener_error') AS settle_error
),

gardener_unsettled AS (
    -- while the findings wait for a settle: one row that says so, first
    SELECT g.as_of, 'unsettled' AS proposal, NULL AS id, NULL AS kind, NULL AS name, NULL AS description,
        NULL AS project, NULL AS stage_status, NULL AS updated, NULL AS idle_days,
        CASE WHEN s.settled IS NULL THEN printf('the gardener has not read this index with its rules yet: %d active '
            || 'memories to read; no duplicate, contradiction or vague description is listed', s.changed_since)
        WHEN s.unread THEN printf('the gardener has not read this index with its rules yet: %d active memories to '
            || 'read; the findings listed are those of %s, by other rules', s.changed_since, s.settled)
        ELSE printf('the findings listed were settled at %s; %d memor%s changed since, which they may not show',
            s.settled, s.changed_since, CASE WHEN s.changed_since = 1 THEN 'y' ELSE 'ies' END) END
        || CASE WHEN s.settle_error IS NOT NULL THEN '; the last settle failed at ' || s.settle_error ELSE '' END
        || '; `seamless gardener` settles them and then lists them' AS reason,
        NULL AS path, '[]' AS ids, NULL AS command, s.settled, s.changed_since
    FROM gardener_settings AS g, gardener_state AS s
    WHERE s.changed_since > 0
),

gardener_found AS (
    -- the findings, listed at T when all their memories are valid at T (from `since` on: they are active). T from a
    -- subquery, not a join: alone in FROM, gardener_findings' gardener_findings_order gives the gardener's order.
    SELECT (SELECT as_of FROM gardener_settings) AS as_of, f.rowid AS finding, PROPOSAL_OF(f.rank) AS proposal,
        f.evidence, f.other, f.since <= (SELECT as_of_epoch FROM gardener_settings) AS current, f.rank,
        f.updated AS first_updated, f.ids AS stored_ids, f.ids
    FROM gardener_findings AS f
    WHERE EXISTS (SELECT 1 FROM gardener_settings)
),

gardener_found_valid AS (
    -- the finding's own memory (`id`: its first), unless a dismissal holds for it
    SELECT f.*, m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path
    FROM gardener_found AS f
    JOIN memories AS m ON m.id = json_extract(f.ids, '$[0]')
    WHERE f.current AND NOT DISMISSED(f.proposal, f.ids)
),

gardener_found_proposals AS (
    -- each reason and command worded from the memories as they are: `f`'s own to act on (the oldest), `n` the newest
    -- (the last of ids). For the `current` ones the order (rank, first_updated, stored_ids) is gardener_findings_order
    SELECT
        f.as_of, f.proposal, f.id, f.kind, f.name, f.description, f.project, f.stage_status, f.updated,
        NULL AS idle_days,
        CASE
            WHEN f.proposal = 'vague-description' THEN
                CASE WHEN json_array_length(f.ids) > 1 THEN json_array_length(f.ids) || ' memories have the description '
                    ELSE 'the description ' END
                || QUOTED(n.description) || ': ' || f.evidence
                || '; rewrite it so an agent can act on it without opening the body'
            WHEN f.other IS NULL THEN
                json_array_length(f.ids) || ' active memories of ' || coalesce(n.project, 'the global scope')
                || ' have the same description (up to case, punctuation and word endings): keep one, the newest is '
                || n.name || ' (' || n.id || '), and supersede the others'
            WHEN f.proposal = 'duplicate' THEN
                'says the same as ' || n.name || ' (' || n.id || '), which is newer: ' || f.evidence
            ELSE 'disagrees with ' || n.name || ' (' || n.id || '), which is newer: ' || f.evidence
                || '; if the newer is right, supersede this one'
        END AS reason,
        f.path, f.ids,
        -- the write that keeps the newest as it is and supersedes the oldest with it (docs/writing.md)
        CASE WHEN f.proposal IN ('duplicate', 'contradiction') THEN
            'seamless write ' || (SELECT store FROM gardener_settings)
            || ' --project ' || SHELL_QUOTE(coalesce(n.project, 'global')) || ' --kind ' || SHELL_QUOTE(n.kind)
            || ' --name ' || SHELL_QUOTE(n.name) || ' --description ' || SHELL_QUOTE(n.description)
            || ' --supersedes ' || SHELL_QUOTE(f.id)
        END AS command,
        (SELECT settled FROM gardener_state) AS settled, (SELECT changed_since FROM gardener_state) AS changed_since,
        f.finding, f.current, f.rank, f.first_updated, f.stored_ids
    FROM gardener_found_valid AS f
    JOIN memories AS n ON n.id = json_extract(f.ids, '$[#-1]')
),

gardener_forks AS (
    -- a memory that says `supersedes: X` while X names another successor (the indexer's supersession-fork warning):
    -- X, its other successor, and this one, the one to act on
    SELECT m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path, p.message AS reason,
        CASE WHEN x.superseded_by IS NOT NULL AND x.superseded_by <> m.id
            THEN json_array(m.supersedes, x.superseded_by, m.id) ELSE json_array(m.supersedes, m.id) END AS ids
    FROM problems AS p
    JOIN memories AS m ON m.path = p.path
    LEFT JOIN memories AS x ON x.id = m.supersedes
    WHERE p.code = 'supersession-fork' AND m.status = 'active'
),

gardener_concurrent AS (
    -- each memory's latest Seamless-Concurrent-Edit trailer; written again since that merge, it has been seen to
    SELECT m.id, m.kind, m.name, m.description, m.project, m.stage_status, m.updated, m.path,
        printf('edited on two hosts at once, merged %s (commit %s): the later edit won each field both changed; '
            || 'the other is in git history', c.committed_at, substr(c."commit", 1, 12)) AS reason,
        json_array(m.id) AS ids
    FROM (
        SELECT *, row_number() OVER (PARTITION BY id ORDER BY committed_at DESC, "commit" DESC) AS n
        FROM concurrent_edits
    ) AS c
    JOIN memories AS m ON m.id = c.id
    WHERE c.n = 1 AND m.status = 'active' AND coalesce(m.updated, '') <= c.committed_at
),

gardener_archive AS (
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
        'seamless archive ' || store || ' ' || id AS command,
        NULL AS settled, NULL AS changed_since
    FROM gardener_candidates
),

-- Every proposal in runs, each read apart in the order (rank, updated, ids), from an index where it has one: the canned
-- query is their compound (canned.GARDENER_RUNS), so its first thousand rows never wait for the fifty thousandth.

gardener_run_unsettled AS (
    SELECT
        proposal, id, kind, name, description, project, stage_status, updated, idle_days, reason, path, ids, command,
        settled, changed_since, as_of, 0 AS rank
    FROM gardener_unsettled
),

gardener_run_current AS (
    SELECT
        proposal, id, kind, name, description, project, stage_status, first_updated AS updated, idle_days, reason,
        path, stored_ids AS ids, command, settled, changed_since, as_of, rank
    FROM gardener_found_proposals
    WHERE current
),

gardener_run_archive AS (
    SELECT
        proposal, id, kind, name, description, project, stage_status, updated, idle_days, reason, path, ids, command,
        settled, changed_since, as_of, 4 AS rank
    FROM gardener_archive
),

gardener_run_forks AS (
    SELECT 'supersession-fork' AS proposal, k.id, k.kind, k.name, k.description, k.project, k.stage_status, k.updated,
        NULL AS idle_days, k.reason, k.path, k.ids, NULL AS command, NULL AS settled, NULL AS changed_since, g.as_of,
        5 AS rank
    FROM gardener_settings AS g, gardener_forks AS k
),

gardener_run_concurrent AS (
    SELECT 'concurrent-edit' AS proposal, c.id, c.kind, c.name, c.description, c.project, c.stage_status, c.updated,
        NULL AS idle_days, c.reason, c.path, c.ids, NULL AS command, NULL AS settled, NULL AS changed_since, g.as_of,
        6 AS rank
    FROM gardener_settings AS g, gardener_concurrent AS c
),

gardener AS (
    SELECT * FROM gardener_run_unsettled
    UNION ALL SELECT * FROM gardener_run_current
    UNION ALL SELECT * FROM gardener_run_archive
    UNION ALL SELECT * FROM gardener_run_forks
    UNION ALL SELECT * FROM gardener_run_concurrent
)
