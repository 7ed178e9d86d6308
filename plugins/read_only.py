"""Read-only to the core: every connection to the index refuses writes (query_only closes the write connection a
writable canned query or another plugin would use), and no page but Datasette's own /-/ endpoints takes a POST.
"""

from datasette import hookimpl
from datasette.utils.asgi import Response

from indexer.index.database import DATABASE
from indexer.query import bounded_sql, queries

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


@hookimpl
def prepare_connection(conn, database):
    if database == DATABASE:
        conn.execute("PRAGMA query_only = 1")
        conn.execute(f"PRAGMA mmap_size = {queries.MMAP_BYTES}")  # as the CLI reads it
        bounded_sql.bound(conn)  # one value, or one function call, cannot stall the server or take its memory


@hookimpl
def asgi_wrapper():
    def wrap(app):
        async def read_only(scope, receive, send):
            if scope["type"] == "http" and scope["method"] not in SAFE_METHODS and not scope["path"].startswith("/-/"):
                response = Response.text("The explorer is read-only.\n", status=405, headers={"allow": "GET, HEAD"})
                await response.asgi_send(send)
                return
            await app(scope, receive, send)

        return read_only

    return wrap
