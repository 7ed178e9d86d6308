-- The briefing and its ledger (SPEC section 3): every memory in a project's scope at a time T, whether
-- it goes into the briefing and why. One source for the `briefing` and `briefing_ledger` canned queries
-- and the `briefings` view.
--
-- A fragment: a list of CTEs, placed after
--     WITH RECURSIVE briefing_params(project, as_of, budget) AS (...),
-- where each row asks for one briefing: project (NULL = global only), as_of (canonical UTC text; a NULL
-- row is ignored) and budget (characters). Every window and join is keyed by that row, so one statement
-- can compute the briefings of many projects at once. It defines:
--     briefing_included   the briefing, in order (what the ledger marks included, computed cheaply)
--     briefing_ledger     every memory in scope with position, included and reason
-- Both are built from the same two decisions, `briefing_pinned` and `briefing_walk`; nothing is
-- decided twice.

briefing_settings AS (
    SELECT
        row_number() OVER () AS briefing,
        p.project AS briefing_project,
        p.as_of,
        p.budget,
        strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days', coalesce(
            (SELECT value FROM settings WHERE key = 'briefing.max_age_days'), 180))) AS age_cutoff,
        strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, printf('-%d days', coalesce(
            (SELECT value FROM settings WHERE key = 'briefing.stage_unknown_max_age_days'), 7))) AS unknown_cutoff
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
            WHEN coalesce(m.valid_from, '') > s.as_of OR m.invalid_at <= s.as_of THEN 'not valid at T'
            WHEN m.pinned THEN 'pinned'
            WHEN m.stage_status = 'unknown' AND coalesce(m.updated, '') < s.unknown_cutoff THEN 'dropped: stage unknown'
            WHEN coalesce(m.updated, '') < s.age_cutoff THEN 'dropped: age'
        END AS verdict,
        -- briefing order: constraints, then live stages, then the rest; each newest first, ties by id
        CASE WHEN m.pinned AND m.kind = 'constraint' THEN 0 WHEN m.pinned THEN 1 ELSE 2 END AS rank_group
    FROM briefing_settings AS s
    JOIN briefing_scopes AS scope ON scope.briefing = s.briefing
    JOIN memories AS m ON m.project IS scope.project
),

briefing_pinned AS (
    -- pinned memories always go in, first, and count against the budget first
    SELECT
        *,
        row_number() OVER pinned_order AS position,
        sum(length(description)) OVER pinned_order AS running_chars
    FROM briefing_memories
    WHERE pinned = 1 AND verdict = 'pinned'
    WINDOW pinned_order AS (PARTITION BY briefing ORDER BY rank_group, updated DESC, id ROWS UNBOUNDED PRECEDING)
),

briefing_walk(briefing, briefing_project, budget, age_cutoff, id, updated, position, running_chars) AS (
    -- The competing memories, newest first, one at a time, while the running total of description
    -- characters stays within the budget. The first that does not fit is the last step: it and everything
    -- after it are dropped for budget, even a shorter one that would still fit. Each step is two index
    -- seeks (the project's next memory, the global scope's next), so the walk costs what the briefing
    -- holds, not what the store holds. Which memories compete is briefing_memories' verdict alone: the
    -- two arms only choose the index range to look in.
    SELECT
        s.briefing, s.briefing_project, s.budget, s.age_cutoff, '', '~',
        count(p.id), coalesce(max(p.running_chars), 0)
    FROM briefing_settings AS s LEFT JOIN briefing_pinned AS p ON p.briefing = s.briefing
    GROUP BY s.briefing
    UNION ALL
    SELECT w.briefing, w.briefing_project, w.budget, w.age_cutoff, next.id, next.updated, w.position + 1,
           w.running_chars + length(next.description)
    FROM briefing_walk AS w
    JOIN memories AS next ON next.id = (
        SELECT id FROM (
            SELECT * FROM (
                SELECT m.id, m.updated FROM memories AS m
                WHERE m.project = w.briefing_project
                    AND m.updated >= w.age_cutoff AND m.updated <= w.updated AND (m.updated < w.updated OR m.id > w.id)
                    AND EXISTS (SELECT 1 FROM briefing_memories AS b
                                WHERE b.briefing = w.briefing AND b.id = m.id AND b.verdict IS NULL)
                ORDER BY m.updated DESC, m.id LIMIT 1
            )
            UNION ALL
            SELECT * FROM (
                SELECT m.id, m.updated FROM memories AS m
                WHERE m.project IS NULL
                    AND m.updated >= w.age_cutoff AND m.updated <= w.updated AND (m.updated < w.updated OR m.id > w.id)
                    AND EXISTS (SELECT 1 FROM briefing_memories AS b
                                WHERE b.briefing = w.briefing AND b.id = m.id AND b.verdict IS NULL)
                ORDER BY m.updated DESC, m.id LIMIT 1
            )
        )
        ORDER BY updated DESC, id LIMIT 1
    )
    WHERE w.running_chars <= w.budget
),

briefing_included AS (
    SELECT *, 1 AS included, 'pinned' AS reason FROM briefing_pinned
    UNION ALL
    SELECT b.*, w.position, w.running_chars, 1 AS included, 'included' AS reason
    FROM briefing_walk AS w JOIN briefing_memories AS b ON b.briefing = w.briefing AND b.id = w.id
    WHERE w.running_chars <= w.budget
),

briefing_ledger AS (
    SELECT
        b.*,
        coalesce(p.position, CASE WHEN w.running_chars <= b.budget THEN w.position END) AS position,
        coalesce(p.running_chars, w.running_chars) AS running_chars,
        p.id IS NOT NULL OR coalesce(w.running_chars <= b.budget, 0) AS included,
        coalesce(b.verdict, CASE WHEN w.running_chars <= b.budget THEN 'included' ELSE 'dropped: budget' END) AS reason,
        -- the ledger's reading order: the briefing, then what was left out and why
        CASE
            WHEN p.id IS NOT NULL OR w.running_chars <= b.budget THEN 0
            WHEN b.verdict IS NULL THEN 1
            WHEN b.verdict = 'dropped: stage unknown' THEN 2
            WHEN b.verdict = 'dropped: age' THEN 3
            ELSE 4
        END AS ledger_group
    FROM briefing_memories AS b
    LEFT JOIN briefing_pinned AS p ON p.briefing = b.briefing AND p.id = b.id
    LEFT JOIN briefing_walk AS w ON w.briefing = b.briefing AND w.id = b.id
)
