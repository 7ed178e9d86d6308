"""Recall's SQL function, recall_terms(q, all, as_of), on the explorer's connections as the CLI and MCP register it on
theirs: the `recall` canned query, its page and its JSON answer as `seamless recall` does."""

from datasette import hookimpl

from indexer.index.database import DATABASE
from indexer.query import recall_terms


@hookimpl
def prepare_connection(conn, database):
    if database == DATABASE:
        recall_terms.register(conn)
