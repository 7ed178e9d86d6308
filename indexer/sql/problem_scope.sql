-- Which scope each problem belongs to, for the explorer's home page (overview.sql, needs_human.sql).
-- A file that is indexed (a warning) belongs to its memory's or note's project; a file that is not (an
-- error) to the folder it sits in, `memories/<scope>/...` or `notes/<scope>/...`, the convention agents
-- write by: `_global`, or a file directly under memories/ or notes/, is global. Global is 'global', as in
-- the `briefings` view.
--
-- A fragment: one CTE, `problem_scopes`, with every column of `problems` plus `project`.

problem_scopes AS (
    SELECT
        p.path, p.line, p.severity, p.code, p.message,
        CASE
            WHEN m.path IS NOT NULL THEN coalesce(m.project, 'global')
            WHEN n.path IS NOT NULL THEN coalesce(n.project, 'global')
            WHEN instr(p.rest, '/') > 1 AND substr(p.rest, 1, instr(p.rest, '/') - 1) <> '_global'
                THEN substr(p.rest, 1, instr(p.rest, '/') - 1)
            ELSE 'global'
        END AS project
    FROM (SELECT *, substr(path, instr(path, '/') + 1) AS rest FROM problems) AS p
    LEFT JOIN memories AS m ON m.path = p.path
    LEFT JOIN notes AS n ON n.path = p.path
)
