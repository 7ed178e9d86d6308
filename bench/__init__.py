"""Benchmarks for issue 5: generated stores, the indexer and the queries timed beside two references."""
