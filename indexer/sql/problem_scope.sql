-- Which scope each problem belongs to (overview.sql, needs_human.sql): an indexed file's (a warning), its memory's or
-- note's project; a file that is not (an error) the folder it sits in, `memories/<scope>/...` (`_global`, or none:
-- 'global'). One CTE, `problem_scopes`: every column of `problems` plus `project`.

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
