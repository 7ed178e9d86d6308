-- Recall's query (SPEC section 13): the terms of what was typed, the FTS5 expression that finds them, and the
-- times it names.
--
-- A fragment: CTEs ending in `recall_query(fts, every_term)`, `recall_term(n, text, fts, common, searched, typed,
-- weight)` and `recall_when(n, text, starts, ends)`, placed after
--     WITH RECURSIVE recall_params(q, project, max_rows, as_of, every) AS (...),
-- All come from recall_terms(q, all, as_of), a Python function registered on every connection that runs recall
-- (indexer/query/recall_terms.py), so the CLI, MCP, the canned query and the pages search alike. Text with no term
-- gives '""', which matches nothing (an empty MATCH would be a syntax error). The function's answer is materialized
-- (it is called once); the CTEs that read it are not: SQLite took longer to plan recall so.

recall_input AS MATERIALIZED (
    SELECT recall_terms(q, every, as_of) AS j FROM recall_params
),

recall_term AS (
    SELECT CAST(t.key AS INTEGER) AS n, json_extract(t.value, '$[0]') AS text, json_extract(t.value, '$[1]') AS fts,
        json_extract(t.value, '$[2]') AS common, json_extract(t.value, '$[3]') AS searched,
        json_extract(t.value, '$[4]') AS typed, json_extract(t.value, '$[5]') AS weight
    FROM recall_input AS i, json_each(json_extract(i.j, '$.terms')) AS t
),

recall_when AS MATERIALIZED (
    -- the times the text names, each a window [start, end) of UTC text (recall_time.py)
    SELECT CAST(w.key AS INTEGER) AS n, json_extract(w.value, '$[0]') AS text, json_extract(w.value, '$[1]') AS starts,
        json_extract(w.value, '$[2]') AS ends
    FROM recall_input AS i, json_each(json_extract(i.j, '$.when')) AS w
),

recall_query(fts, every_term) AS (
    SELECT json_extract(j, '$.fts'), json_extract(j, '$.every') FROM recall_input
)
