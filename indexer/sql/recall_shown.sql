-- The worst rank among recall's results, or NULL when recall gave fewer rows than it could (every match was
-- shown): recall_superseded.sql tells only the old truths that would have ranked among them.
--
-- A fragment: one CTE, `recall_shown`, placed after recall_params and recall.sql.

recall_shown AS (
    SELECT CASE WHEN count(*) < (SELECT max_rows FROM recall_params) THEN NULL ELSE max(rank) END AS worst
    FROM recall
)
