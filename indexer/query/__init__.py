"""Answers from the index: running the canned queries, and what the explorer and agents make of them.

queries (run the SQL of `indexer.sql.canned`; history's chain), similar (memories that may say the same),
briefing_text (a briefing as markdown), bounded_sql (expensive SQL capped on the explorer's connections),
page_budget (rendering within a time and size budget). Reads the index only: imports `indexer.store`,
`indexer.git`, `indexer.index`, `indexer.sql` and `indexer.sqlite`, never the write path or a front end.
"""
