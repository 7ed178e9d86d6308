-- What the explorer shows of what needs a human (plugins/home_page.py): a window of one section's rows and their
-- count, in needs_human's order and shape, without ordering the rest: at 100,000 memories numbering the gardener's
-- 50,000 proposals took most of a second, and a window costs what its rows cost, however deep. The proposals come in
-- three runs, each read apart: the `unsettled` notice, the findings (picked in the gardener's order from the
-- gardener_findings_order index), the archive proposals. The other sections are short: read whole and cut
-- (needs_human.sql's needs_human_section_*). CTEs placed after needs_human.sql (canned.NEEDS_HUMAN_PAGE).

needs_human_proposal_size AS (
    -- how many proposals of each run. From the latest `since` of any finding on (index_meta `gardener_since`, kept
    -- by every settle: at least that), every finding is valid throughout as_of: counted from its smallest index
    SELECT
        (SELECT count(*) FROM gardener_unsettled) AS unsettled,
        CASE WHEN (SELECT as_of_epoch FROM gardener_settings) >= (SELECT since FROM needs_human_latest)
            THEN (SELECT count(*) FROM gardener_findings AS found
                WHERE EXISTS (SELECT 1 FROM gardener_settings) AND NOT DISMISSED(PROPOSAL_OF(found.rank), found.ids))
            ELSE (SELECT count(*) FROM gardener_findings AS found WHERE since <= (SELECT as_of_epoch FROM gardener_settings)
                AND NOT DISMISSED(PROPOSAL_OF(found.rank), found.ids))
        END AS findings,
        (SELECT count(*) FROM gardener_candidate_rows) - (  -- less those a dismissal holds for, counted from them
            SELECT count(DISTINCT m.rowid) FROM gardener_dismissed AS x CROSS JOIN memories AS m ON m.id = x.ids ->> 0
            WHERE x.kind = 'archive' AND DISMISSED('archive', x.ids)
                AND m.rowid IN (SELECT candidate FROM gardener_candidate_rows)
        ) AS archive
),

needs_human_latest AS MATERIALIZED (
    SELECT coalesce((SELECT CAST(value AS INTEGER) FROM index_meta WHERE key = 'gardener_since'),
        (SELECT max(since) FROM gardener_findings)) AS since
),

needs_human_unsettled AS (
    SELECT 'proposal' AS section, id, path, kind, name, description, project, stage_status, updated, reason AS detail,
        proposal, ids, command, NULL AS dismiss, settled, changed_since
    FROM gardener_unsettled
),

needs_human_findings AS (
    -- :take findings from the :skip-th on of those valid throughout T, in the gardener's order: picked from the
    -- index alone, then read (their memories, reason and command) for those few
    SELECT 'proposal' AS section, f.id, f.path, f.kind, f.name, f.description, coalesce(f.project, 'global') AS project,
        f.stage_status, f.first_updated AS updated, f.reason AS detail, f.proposal, f.stored_ids AS ids, f.command,
        DISMISS_COMMAND(f.proposal, f.stored_ids) AS dismiss, f.settled, f.changed_since
    FROM gardener_found_proposals AS f
    WHERE f.finding IN (
        SELECT found.rowid FROM gardener_findings AS found WHERE since <= (SELECT as_of_epoch FROM gardener_settings)
            AND NOT DISMISSED(PROPOSAL_OF(found.rank), found.ids)
        ORDER BY rank, updated, ids LIMIT :take OFFSET :skip
    )
    ORDER BY f.rank, f.first_updated, f.stored_ids
),


needs_human_archive AS (
    -- :take archive proposals from the :skip-th on (the command that dismisses one worded for those alone)
    SELECT *, DISMISS_COMMAND(proposal, ids) AS dismiss FROM (
        SELECT 'proposal' AS section, id, path, kind, name, description, coalesce(project, 'global') AS project,
            stage_status, updated, reason AS detail, proposal, ids, command, settled, changed_since
        FROM gardener_archive
        ORDER BY coalesce(updated, ''), id, ids
        LIMIT :take OFFSET :skip
    )
)
