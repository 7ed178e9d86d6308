"""The gardener (SPEC sections 4 and 12): what a person should tidy in the store, proposed, never done. Above the
store, below the index (its program imports the index too); `__all__` is all that other layers call.
"""

from indexer.gardener.background import running, settle_all, start
from indexer.gardener.proposals import hints, proposals, state, state_line
from indexer.gardener.stamp import RULES_VERSION, in_step


def settle(db, changed) -> bool:
    """The index run's share, in its transaction: the memories with ids `changed` (None: those whose fingerprint
    changed) settled now when few (findings.IN_RUN), else noted for a settle of its own (True)."""
    from indexer.gardener import findings

    return findings.settle(db, changed, findings.IN_RUN)


__all__ = ["RULES_VERSION", "hints", "in_step", "proposals", "running", "settle", "settle_all", "start", "state",
           "state_line"]  # fmt: skip
