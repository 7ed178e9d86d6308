-- Supersession history (SPEC section 4): the whole chain of a memory, oldest first, and the chain's current truth;
-- dangling links and cycles marked, never followed twice. CTEs ending in `history`, after `WITH RECURSIVE
-- history_params(id) AS (...),`: a row per memory to start from (`start_id` on its rows), so one statement walks many.

history_forward(start_id, id, depth, trail) AS (
    -- from the start, follow superseded_by to the end of the chain (or until a memory comes round again)
    SELECT m.id, m.id, 0, '/' || m.id || '/'
    FROM history_params AS p JOIN memories AS m ON m.id = p.id
    UNION ALL
    SELECT f.start_id, next.id, f.depth + 1, f.trail || next.id || '/'
    FROM history_forward AS f
    JOIN memories AS m ON m.id = f.id
    JOIN memories AS next ON next.id = m.superseded_by
    WHERE instr(f.trail, '/' || next.id || '/') = 0
),

history_end AS (
    SELECT start_id, id AS end_id
    FROM (SELECT *, row_number() OVER (PARTITION BY start_id ORDER BY depth DESC) AS r FROM history_forward)
    WHERE r = 1
),

history_loop AS (
    -- when the end's superseded_by points back into the walk, the walk from that point on is a cycle
    SELECT e.start_id, f.depth AS loop_depth
    FROM history_end AS e
    JOIN memories AS m ON m.id = e.end_id
    JOIN history_forward AS f ON f.start_id = e.start_id AND f.id = m.superseded_by
),

history_back(start_id, id, depth, trail) AS (
    -- from the end, every memory that leads to it: all members of the chain, the start among them
    SELECT start_id, end_id, 0, '/' || end_id || '/' FROM history_end
    UNION ALL
    SELECT b.start_id, m.id, b.depth + 1, b.trail || m.id || '/'
    FROM history_back AS b JOIN memories AS m ON m.superseded_by = b.id
    WHERE instr(b.trail, '/' || m.id || '/') = 0
),

history_members AS (
    SELECT
        b.start_id, b.depth, m.id, m.kind, m.name, m.description, m.project, m.status,
        m.valid_from, m.invalid_at, m.superseded_by,
        CASE
            WHEN m.superseded_by IS NOT NULL AND successor.id IS NULL THEN 'dangling'
            WHEN f.depth >= l.loop_depth THEN 'cycle'
        END AS link,
        m.id = b.start_id AS is_start,
        e.end_id AS chain_end_id,
        CASE WHEN last.status = 'active' THEN last.id END AS current_id
    FROM history_back AS b
    JOIN memories AS m ON m.id = b.id
    LEFT JOIN memories AS successor ON successor.id = m.superseded_by
    LEFT JOIN history_forward AS f ON f.start_id = b.start_id AND f.id = b.id
    LEFT JOIN history_loop AS l ON l.start_id = b.start_id
    JOIN history_end AS e ON e.start_id = b.start_id
    JOIN memories AS last ON last.id = e.end_id
),

history AS (
    -- oldest first: farthest from the end first; what leads into a cycle comes before the cycle
    SELECT
        row_number() OVER (
            PARTITION BY start_id ORDER BY link IS 'cycle', depth DESC, valid_from, id
        ) AS position,
        *
    FROM history_members
)
