"""Minting the id of a new memory or note: a ULID (SPEC section 1), made by python-ulid."""


def new_id() -> str:
    """A new memory's or note's id: a ULID (the time in ms, then 80 random bits, as 26 characters of Crockford's
    base32)."""
    from ulid import ULID  # here: its import reads package metadata (19 ms); only a new memory or note needs it

    return str(ULID())
