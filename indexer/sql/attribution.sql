-- Attribution (SPEC section 10, docs/history.md#attribution): per model and per git author (of the memory's first
-- revision), the memories written and how they fared, with the median days from written (`created`, else
-- `valid_from`) to superseded. CTEs ending in `attribution`, after `WITH RECURSIVE` (it takes no parameters).

attribution_fate AS MATERIALIZED (
    -- each memory once: who wrote it and how it fared. Its first revision's author is one seek into revisions_id,
    -- which covers the columns asked (a join with every first revision took longer at 100,000 memories)
    SELECT
        m.model,
        (
            SELECT r.author FROM revisions AS r WHERE r.id = m.id
            ORDER BY r.generation, r.committed_at, r."commit" LIMIT 1
        ) AS author,
        m.status = 'superseded' AS superseded,
        m.status = 'archived' AS archived,
        m.status = 'superseded' AND successor.kind = 'refuted' AS refuted,
        CASE WHEN m.status = 'superseded'
            THEN julianday(m.invalid_at) - julianday(coalesce(m.created, m.valid_from)) END AS days
    FROM memories AS m
    LEFT JOIN memories AS successor ON successor.id = m.superseded_by
),

attribution_counts AS (
    -- counted per model and per author apart: two groupings of the memories, not one of twice as many rows
    SELECT 'model' AS by, model AS who, count(*) AS written, sum(superseded) AS superseded, sum(archived) AS archived,
        sum(coalesce(refuted, 0)) AS refuted
    FROM attribution_fate WHERE model IS NOT NULL GROUP BY model
    UNION ALL
    SELECT 'author', author, count(*), sum(superseded), sum(archived), sum(coalesce(refuted, 0))
    FROM attribution_fate WHERE author IS NOT NULL GROUP BY author
),

attribution_ranked AS (
    -- each one's superseded memories in order of days: the median is the middle one, or the mean of the two
    SELECT by, who, days,
        row_number() OVER (PARTITION BY by, who ORDER BY days) AS n,
        count(*) OVER (PARTITION BY by, who) AS of
    FROM (
        SELECT 'model' AS by, model AS who, days FROM attribution_fate WHERE days IS NOT NULL AND model IS NOT NULL
        UNION ALL
        SELECT 'author', author, days FROM attribution_fate WHERE days IS NOT NULL AND author IS NOT NULL
    )
),

attribution AS (
    SELECT c.*, round((
        SELECT avg(r.days) FROM attribution_ranked AS r
        WHERE r.by = c.by AND r.who = c.who AND r.n IN ((r.of + 1) / 2, (r.of + 2) / 2)
    ), 2) AS median_days_to_superseded
    FROM attribution_counts AS c
)
