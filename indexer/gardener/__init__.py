"""The gardener (SPEC sections 4 and 12): what a person should tidy in the store, proposed, never done.

How a description reads (wording), whether two memories say the same thing or disagree (sameness), and the
findings kept in the index for every active memory (pairs, with reader reading many memories in a second
process). Sits above the store, below the index: an index run settles the findings for what it changed.
Imports `indexer.store`, `indexer.sql` and `indexer.sqlite`; never the index, the queries, the write path or a
front end.
"""
