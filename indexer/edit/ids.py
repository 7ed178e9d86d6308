"""Minting the id of a new memory or note: a ULID (SPEC section 1)."""

import os
import time

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # base32 without I, L, O and U


def new_id() -> str:
    """A new memory's or note's id: a ULID (the time in ms, 48 bits, then 80 random bits, as 26 characters of
    Crockford's base32). Not python-ulid's: importing it reads its own version from the installed packages'
    metadata (importlib.metadata), 10-25 ms of every write; the tests check these ids with it."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    return "".join(CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))
