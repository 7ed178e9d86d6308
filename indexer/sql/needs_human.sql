-- What needs a human at time T, in the order to work through it (docs/pages.md: the sections stage, proposal, error,
-- fork and concurrent, and each one's order), each row with its place in its section and the section's size
-- (`section_position`, `in_section`). CTEs ending in `needs_human`, after
-- `WITH RECURSIVE gardener_params(as_of) AS (...), <gardener.sql>, <problem_scope.sql>,`.

needs_human_stages AS (
    SELECT
        'stage' AS section, m.id, m.path, m.kind, m.name, m.description, coalesce(m.project, 'global') AS project,
        m.stage_status, m.updated,
        printf('Status: %s · Gate: human', m.stage_status) AS detail,
        m.stage_status <> 'blocked' AS rank_in_section, NULL AS proposal, NULL AS ids, NULL AS command, NULL AS dismiss
    FROM gardener_params AS p
    CROSS JOIN memories AS k INDEXED BY memories_human_stages  -- (the rows of those valid at T only)
        ON k.kind = 'stage' AND k.stage_gate = 'human' AND k.stage_status IN ('open', 'in_progress', 'blocked')
        AND VALID_AT(k, p.as_of)
    CROSS JOIN memories AS m ON m.rowid = k.rowid
),

needs_human_errors AS (
    -- every error, numbered in the order a file's errors are listed: by path, then line, then code
    SELECT path, line, code, message, project, row_number() OVER (ORDER BY path, line, code, message) AS n
    FROM problem_scopes
    WHERE severity = 'error'
),

needs_human_section_stage AS (
    -- each section's rows as needs_human_items gives them: its place in the list, then its order within
    SELECT 1 AS section_order, *, NULL AS settled, NULL AS changed_since, NULL AS error_path FROM needs_human_stages
),

needs_human_section_proposal AS (
    SELECT
        2 AS section_order, 'proposal' AS section, id, path, kind, name, description,
        coalesce(project, 'global') AS project, stage_status, updated, reason AS detail,
        CASE proposal WHEN 'unsettled' THEN 0 WHEN 'contradiction' THEN 1 WHEN 'duplicate' THEN 2 WHEN 'vague-description' THEN 3 WHEN 'archive' THEN 4 WHEN 'supersession-fork' THEN 5 WHEN 'concurrent-edit' THEN 6
    ELSE 7 END AS rank_in_section, proposal, ids, command, DISMISS_COMMAND(proposal, ids) AS dismiss, settled,
        changed_since, NULL AS error_path
    FROM gardener
    WHERE proposal NOT IN ('supersession-fork', 'concurrent-edit')  -- their own sections, below
),

needs_human_section_error AS (
    SELECT 3 AS section_order, 'error' AS section, NULL AS id, path, NULL AS kind, NULL AS name, message AS description,
        project, NULL AS stage_status, NULL AS updated, printf('line %d: %s', line, code) AS detail,
        n AS rank_in_section, NULL AS proposal, NULL AS ids, NULL AS command, NULL AS dismiss, NULL AS settled,
        NULL AS changed_since, path AS error_path
    FROM needs_human_errors
),

needs_human_section_fork AS (
    SELECT 4 AS section_order, 'fork' AS section, id, path, kind, name, description,
        coalesce(project, 'global') AS project, NULL AS stage_status, updated, reason AS detail, 0 AS rank_in_section,
        'supersession-fork' AS proposal, ids, NULL AS command, NULL AS dismiss, NULL AS settled, NULL AS changed_since,
        path AS error_path
    FROM gardener_forks
),

needs_human_section_concurrent AS (
    SELECT 5 AS section_order, 'concurrent' AS section, id, path, kind, name, description,
        coalesce(project, 'global') AS project, NULL AS stage_status, updated, reason AS detail, 0 AS rank_in_section,
        'concurrent-edit' AS proposal, ids, NULL AS command, NULL AS dismiss, NULL AS settled, NULL AS changed_since,
        NULL AS error_path
    FROM gardener_concurrent
),

needs_human_sorted AS (
    -- every row, with its place: its section, then the section's order (errors and forks by path)
    SELECT * FROM needs_human_section_stage
    UNION ALL SELECT * FROM needs_human_section_proposal
    UNION ALL SELECT * FROM needs_human_section_error
    UNION ALL SELECT * FROM needs_human_section_fork
    UNION ALL SELECT * FROM needs_human_section_concurrent
),

needs_human AS (
    -- one sort for all three numbers: every window has the same partition and order
    SELECT
        row_number() OVER whole AS position,
        row_number() OVER section_order AS section_position,
        count(*) OVER (section_order ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS in_section,
        section, id, path, kind, name, description, project, stage_status, updated, detail, proposal, ids, command,
        dismiss, settled, changed_since
    FROM needs_human_sorted
    WINDOW
        section_order AS (PARTITION BY section_order ORDER BY rank_in_section, error_path, coalesce(updated, ''), id, ids),
        whole AS (ORDER BY section_order, rank_in_section, error_path, coalesce(updated, ''), id, ids)
)
