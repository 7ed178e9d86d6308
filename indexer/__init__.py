"""Seamless memory store indexer: markdown files in, a validated SQLite index out."""

__version__ = "0.1.0"
