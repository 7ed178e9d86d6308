-- The briefing and its ledger (SPEC section 3): every memory in the scope of a project at a time T, whether it goes
-- into the briefing and why, both from the same two decisions (the pinned verdict and `briefing_walk`). CTEs after
-- `WITH RECURSIVE briefing_params(project, as_of, budget) AS (...),`: a row per briefing (project NULL: global only;
-- as_of NULL: none), every window and join keyed by it, so one statement computes many. The order within a briefing
-- is (rank_group, updated DESC, id): the position and running total a window gives are those the walk counted.

briefing_settings AS (
    SELECT
        row_number() OVER () AS briefing,
        p.project AS briefing_project,
        p.as_of,
        p.budget,
        -- a maximum age reaching back past year 0 (SQLite's calendar; strftime gives NULL there) drops nothing
        -- dated: the cutoff is the calendar's first day
        coalesce(strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days',
            (SELECT value FROM settings WHERE key = 'briefing.max_age_days'))), '0000-01-01T00:00:00Z') AS age_cutoff,
        coalesce(strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days',
            (SELECT value FROM settings WHERE key = 'briefing.stage_unknown_max_age_days'))),
            '0000-01-01T00:00:00Z') AS unknown_cutoff
    FROM briefing_params AS p
    WHERE p.as_of IS NOT NULL
),

briefing_scopes AS (
    -- what a briefing may draw on: its project (if any) and the global scope, each an index lookup
    SELECT briefing, briefing_project AS project FROM briefing_settings WHERE briefing_project IS NOT NULL
    UNION ALL
    SELECT briefing, NULL FROM briefing_settings
),

briefing_memories AS NOT MATERIALIZED (
    -- every memory in scope (the project's and the global ones) with the verdict of the rules that come
    -- before the budget; NULL means it competes for the budget. A missing valid_from means valid since
    -- forever; a missing updated date counts as the oldest possible. NOT MATERIALIZED: each reader
    -- (the pinned list, the walk's one-memory lookups, the ledger) gets its own plan over the indexes.
    SELECT
        s.briefing, s.briefing_project, s.as_of, s.budget, s.age_cutoff,
        m.id, m.kind, m.name, m.description, m.project, m.status, m.pinned, m.stage_status, m.stage_gate,
        m.updated, m.valid_from, m.invalid_at,
        CASE
            WHEN NOT VALID_AT(m, s.as_of) THEN 'not valid at T'
            WHEN m.pinned THEN 'pinned'
            WHEN m.stage_status = 'unknown' AND coalesce(m.updated, '') < s.unknown_cutoff THEN 'dropped: stage unknown'
            WHEN coalesce(m.updated, '') < s.age_cutoff THEN 'dropped: age'
        END AS verdict,
        -- briefing order: constraints, then live stages, then the rest; each newest first, ties by id
        CASE WHEN m.pinned AND m.kind = 'constraint' THEN 0 WHEN m.pinned THEN 1 ELSE 2 END AS rank_group
    FROM briefing_settings AS s
    JOIN briefing_scopes AS scope ON scope.briefing = s.briefing
    -- CROSS JOIN keeps the scopes outside: SQLite 3.51 otherwise scanned every pinned memory of the
    -- store and matched each to a scope (docs/performance.md)
    CROSS JOIN memories AS m ON m.project IS scope.project
),

briefing_walk(briefing, briefing_project, budget, age_cutoff, id, updated, position, running_chars) AS (
    -- The competing memories, newest first, one at a time, while the running total of description
    -- characters stays within the budget. The first that does not fit is the last step: it and everything
    -- after it are dropped for budget, even a shorter one that would still fit. Each step is a few index
    -- seeks, so the walk costs what the briefing holds, not what the store holds: in each scope (the
    -- project's, the global one) the next memory after (w.updated, w.id) is the first at the same updated
    -- with a greater id, else the first below, each a seek on memories_project_newest (one search for both
    -- read every memory sharing w's updated at each step). Which memories compete is briefing_memories'
    -- verdict alone: the four arms only choose the index range to look in.
    -- It starts after the pinned memories, which always go in and count against the budget first.
    SELECT
        s.briefing, s.briefing_project, s.budget, s.age_cutoff, '', '~',
        coalesce(p.memories, 0), coalesce(p.chars, 0)
    FROM briefing_settings AS s LEFT JOIN (
        SELECT briefing, count(*) AS memories, sum(length(description)) AS chars
        FROM briefing_memories
        WHERE pinned = 1 AND verdict = 'pinned'
        GROUP BY briefing
    ) AS p ON p.briefing = s.briefing
    UNION ALL
    SELECT w.briefing, w.briefing_project, w.budget, w.age_cutoff, next.id, next.updated, w.position + 1,
           w.running_chars + length(next.description)
    FROM briefing_walk AS w
    JOIN memories AS next ON next.id = (
        SELECT id FROM (
            SELECT * FROM (  -- the project's: the next at the same updated
                SELECT m.id, m.updated FROM memories AS m
                WHERE m.project = w.briefing_project AND m.updated = w.updated AND m.id > w.id
                    AND EXISTS (SELECT 1 FROM briefing_memories AS b
                                WHERE b.briefing = w.briefing AND b.id = m.id AND b.verdict IS NULL)
                ORDER BY m.id LIMIT 1
            )
            UNION ALL
            SELECT * FROM (  -- the project's: else the first below it
                SELECT m.id, m.updated FROM memories AS m
                WHERE m.project = w.briefing_project AND m.updated < w.updated AND m.updated >= w.age_cutoff
                    AND EXISTS (SELECT 1 FROM briefing_memories AS b
                                WHERE b.briefing = w.briefing AND b.id = m.id AND b.verdict IS NULL)
                ORDER BY m.updated DESC, m.id LIMIT 1
            )
            UNION ALL
            SELECT * FROM (  -- the global scope's: the next at the same updated
                SELECT m.id, m.updated FROM memories AS m
                WHERE m.project IS NULL AND m.updated = w.updated AND m.id > w.id
                    AND EXISTS (SELECT 1 FROM briefing_memories AS b
                                WHERE b.briefing = w.briefing AND b.id = m.id AND b.verdict IS NULL)
                ORDER BY m.id LIMIT 1
            )
            UNION ALL
            SELECT * FROM (  -- the global scope's: else the first below it
                SELECT m.id, m.updated FROM memories AS m
                WHERE m.project IS NULL AND m.updated < w.updated AND m.updated >= w.age_cutoff
                    AND EXISTS (SELECT 1 FROM briefing_memories AS b
                                WHERE b.briefing = w.briefing AND b.id = m.id AND b.verdict IS NULL)
                ORDER BY m.updated DESC, m.id LIMIT 1
            )
        )
        ORDER BY updated DESC, id LIMIT 1
    )
    WHERE w.running_chars <= w.budget
),

briefing_included_rows AS (
    -- the memories that go in: the pinned ones, and the competing ones the walk fitted in the budget
    SELECT
        briefing, as_of, budget, id, kind, name, description, project, status, pinned, stage_status, stage_gate,
        updated, valid_from, invalid_at, rank_group, 1 AS included, 'pinned' AS reason
    FROM briefing_memories
    WHERE pinned = 1 AND verdict = 'pinned'
    UNION ALL
    SELECT
        b.briefing, b.as_of, b.budget, b.id, b.kind, b.name, b.description, b.project, b.status, b.pinned,
        b.stage_status, b.stage_gate, b.updated, b.valid_from, b.invalid_at, b.rank_group, 1, 'included'
    FROM briefing_walk AS w JOIN briefing_memories AS b ON b.briefing = w.briefing AND b.id = w.id
    WHERE w.running_chars <= w.budget
),

briefing_included AS (
    -- The briefing query (queries.BRIEFING_SELECT) numbers briefing_included_rows with this same window in
    -- its outermost SELECT, where one sort serves both the window and its ORDER BY.
    SELECT
        *,
        row_number() OVER briefing_order AS position,
        sum(length(description)) OVER briefing_order AS running_chars
    FROM briefing_included_rows
    WINDOW briefing_order AS (PARTITION BY briefing ORDER BY rank_group, updated DESC, id ROWS UNBOUNDED PRECEDING)
),

briefing_ledger AS (
    SELECT
        b.*,
        i.position,
        coalesce(i.running_chars, w.running_chars) AS running_chars,
        i.id IS NOT NULL AS included,
        coalesce(b.verdict, CASE WHEN i.id IS NOT NULL THEN 'included' ELSE 'dropped: budget' END) AS reason,
        -- the ledger's reading order: the briefing, then what was left out and why
        CASE
            WHEN i.id IS NOT NULL THEN 0
            WHEN b.verdict IS NULL THEN 1
            WHEN b.verdict = 'dropped: stage unknown' THEN 2
            WHEN b.verdict = 'dropped: age' THEN 3
            ELSE 4
        END AS ledger_group
    FROM briefing_memories AS b
    LEFT JOIN briefing_included AS i ON i.briefing = b.briefing AND i.id = b.id
    LEFT JOIN briefing_walk AS w ON w.briefing = b.briefing AND w.id = b.id
)
