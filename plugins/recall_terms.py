"""Recall's SQL function on the explorer's connections: recall_terms(q, all, as_of), which recall_query.sql calls.

The one function that turns text into recall's terms (indexer/query/recall_terms.py) is registered here as the CLI
and MCP register it on theirs, so the `recall` canned query, its page and its JSON answer as `seamless recall` does.
"""

from datasette import hookimpl

from indexer.index.database import DATABASE
from indexer.query import recall_terms


@hookimpl
def prepare_connection(conn, database):
    if database == DATABASE:
        recall_terms.register(conn)
