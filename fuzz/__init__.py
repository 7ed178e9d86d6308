"""The fuzz campaign: `python -m fuzz` (see __main__.py)."""
