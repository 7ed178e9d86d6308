"""The most memories an index run settles the gardener's findings for itself (indexer/gardener/findings.py's
IN_RUN), set for the time of a `with`: 0 leaves every run's findings to a settle of their own, None settles any
number in the run."""

import contextlib

from indexer.gardener import findings


@contextlib.contextmanager
def in_run(most: int | None):
    kept = findings.IN_RUN
    findings.IN_RUN = most
    try:
        yield
    finally:
        findings.IN_RUN = kept
