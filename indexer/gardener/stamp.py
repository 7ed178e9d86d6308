"""Which rules and kinds settled the findings, asked by every command that shows them: no rule imported (~25 ms)."""

RULES_VERSION = 6  # bumped by hand whenever a verdict may change (tests/test_gardener_rules.py pins the verdicts)
# each kind of finding and the setting that turns it on (SPEC 12: a kind not sure enough is off by default)
KINDS = {"duplicate": "gardener.duplicates", "contradiction": "gardener.contradictions",
         "vague-description": "gardener.vague_descriptions"}  # fmt: skip


def stamp(db) -> str:
    """What the tables should say settled them: these rules, and the kinds the store's settings turn on."""
    on = dict(db.execute("select key, value from settings where key like 'gardener.%'").fetchall())
    return f"{RULES_VERSION} " + " ".join(kind for kind, key in KINDS.items() if on.get(key))


def in_step(db) -> bool:
    """Whether the tables were settled by these rules with nothing pending since."""
    settled = db.execute("select value from index_meta where key = 'gardener'").fetchone()
    return settled == (stamp(db),) and db.execute("select 1 from gardener_pending limit 1").fetchone() is None
