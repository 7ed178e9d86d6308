-- Turns what a user typed into a full-text query FTS5 always accepts: every word is double-quoted (inner
-- quotes doubled), so quotes, NOT, OR, `name:` and other FTS5 syntax are searched as plain words; a
-- trailing * keeps prefix search. All words must match (porter stemming: "races" finds "race").
--
-- A fragment: CTEs ending in `recall_query(fts)`, placed after
--     WITH RECURSIVE recall_params(q, project) AS (...),
-- Text with no words gives '""', which matches nothing (an empty MATCH would be a syntax error).

recall_words(word, rest) AS (
    SELECT '', trim(replace(replace(replace(q, char(9), ' '), char(10), ' '), char(13), ' ')) || ' '
    FROM recall_params
    UNION ALL
    SELECT substr(rest, 1, instr(rest, ' ') - 1), ltrim(substr(rest, instr(rest, ' ') + 1))
    FROM recall_words
    WHERE rest <> ''
),

recall_query(fts) AS (
    SELECT coalesce(group_concat(
        '"' || replace(rtrim(word, '*'), '"', '""') || '"' || CASE WHEN word LIKE '%*' THEN '*' ELSE '' END,
        ' '), '""')
    FROM recall_words
    WHERE rtrim(word, '*') <> ''
)
