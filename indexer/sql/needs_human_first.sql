-- The home page's share of what needs a human (plugins/home_page.py): each section's first :shown rows and how
-- many it holds, the rows `needs_human WHERE section_position <= :shown` gives, numbered the same way
-- (tests/test_gardener_reads.py checks it). needs_human numbers every row: at 100,000 memories the gardener
-- proposes some 50,000 things, and ordering all of them was most of the page's time. Here each section is
-- ordered on its own and cut at :shown, the gardener's findings apart from its archive proposals (every finding
-- comes before every archive proposal) and read from an index in their order, and each section is counted
-- without its rows. A proposal's row is the one needs_human.sql makes of it (needs_human_items): the two are kept
-- alike by that test.
--
-- A fragment: CTEs ending in `needs_human_first`, placed after needs_human.sql; :shown is the rows kept a section.

needs_human_sizes AS MATERIALIZED (
    SELECT 1 AS section_order, (SELECT count(*) FROM needs_human_stages) AS size
    UNION ALL
    SELECT 2, (SELECT count(*) FROM gardener_found_valid) + (SELECT count(*) FROM gardener_candidates)
    UNION ALL
    SELECT 3, (SELECT count(*) FROM needs_human_errors)
    UNION ALL
    SELECT 4, (SELECT count(*) FROM needs_human_forks)
    UNION ALL
    SELECT 5, (SELECT count(*) FROM needs_human_concurrent)
),

needs_human_proposals_cut AS (
    -- the gardener's first proposals: the first :shown findings valid throughout T, read in the order of the
    -- gardener_findings_order index, the findings valid only for part of it (read from their memories: few, but for
    -- a T long ago), and the first :shown archive proposals
    SELECT * FROM (
        SELECT * FROM gardener_found_proposals WHERE current
        ORDER BY rank, first_updated, first, stored_ids LIMIT :shown
    )
    UNION ALL
    SELECT * FROM gardener_found_proposals WHERE NOT current
    UNION ALL
    SELECT * FROM (
        SELECT *, 1, 3, coalesce(updated, ''), id, ids FROM gardener WHERE proposal = 'archive'
        ORDER BY coalesce(updated, ''), id, ids LIMIT :shown
    )
),

needs_human_cut AS (
    -- as needs_human_items and needs_human_sorted give them (the other sections are short: each whole)
    SELECT
        2 AS section_order, 'proposal' AS section, id, path, kind, name, description, coalesce(project, 'global')
            AS project, stage_status, updated, reason AS detail, rank AS rank_in_section, proposal, ids,
        NULL AS error_path
    FROM needs_human_proposals_cut
    UNION ALL
    SELECT
        section_order, section, id, path, kind, name, description, project, stage_status, updated, detail,
        rank_in_section, proposal, ids, CASE WHEN section IN ('error', 'fork') THEN path END
    FROM needs_human_others
),

needs_human_first AS (
    SELECT
        coalesce((SELECT sum(b.size) FROM needs_human_sizes AS b WHERE b.section_order < c.section_order), 0)
            + row_number() OVER section_order AS position,
        row_number() OVER section_order AS section_position,
        z.size AS in_section,
        section, id, path, kind, name, description, project, stage_status, updated, detail, proposal, ids
    FROM needs_human_cut AS c JOIN needs_human_sizes AS z USING (section_order)
    WINDOW section_order AS (
        PARTITION BY section_order ORDER BY rank_in_section, error_path, coalesce(updated, ''), id, ids
    )
)
