"""Each request reads the index from one snapshot: its queries run on one connection, in one read transaction begun
at its first query and ended once the response is sent (Datasette runs each of a page's queries on any free thread in
a transaction of its own: a run committed between two made a page of two states). docs/hardening.md says why here.
"""

import asyncio
import contextvars
import threading

from datasette import hookimpl
from datasette.database import Database

from indexer.index.database import DATABASE

IDLE = 4  # connections kept for the next requests; more are closed when their request ends


class Snapshot:
    """One request's read of the index: a connection and its read transaction, begun at the request's first query."""

    def __init__(self) -> None:
        self.conn = None
        self.ended = False
        self.turns = asyncio.Lock()  # the request's queries take turns on its connection (a page may ask at once)
        self.using = threading.Lock()  # held while a thread uses the connection, which may outlive a cancelled query


REQUEST: contextvars.ContextVar[Snapshot | None] = contextvars.ContextVar("seamless_snapshot", default=None)


class SnapshotDatabase(Database):
    """Datasette's database, whose queries during a request run in the request's snapshot."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._idle: list = []

    async def execute_fn(self, fn):
        snapshot = REQUEST.get()
        if snapshot is None or snapshot.ended or self.ds.executor is None:
            return await super().execute_fn(fn)
        async with snapshot.turns:
            return await asyncio.get_running_loop().run_in_executor(self.ds.executor, self._in_snapshot, snapshot, fn)

    def _in_snapshot(self, snapshot: Snapshot, fn):
        with snapshot.using:
            if snapshot.conn is None:
                snapshot.conn = self._idle.pop() if self._idle else self._connect()
                snapshot.conn.execute("begin")  # deferred: the request's first read fixes the snapshot
            try:
                return fn(snapshot.conn)
            finally:
                if snapshot.ended:  # the request was cancelled while this query ran: nothing else will end it
                    self._release(snapshot)

    def _connect(self):
        conn = self.connect()
        self.ds._prepare_connection(conn, self.name)  # as Datasette prepares each of its own connections
        return conn

    def _release(self, snapshot: Snapshot) -> None:
        """End the snapshot's read transaction and keep its connection for another request (`using` held)."""
        conn, snapshot.conn = snapshot.conn, None
        if conn is None:
            return
        if conn.in_transaction:
            conn.execute("commit")  # the next request sees what was committed meanwhile
        if len(self._idle) < IDLE:
            self._idle.append(conn)
        else:
            conn.close()
            self._all_file_connections.remove(conn)

    def _end(self, snapshot: Snapshot) -> None:
        with snapshot.using:
            self._release(snapshot)

    async def end(self, snapshot: Snapshot) -> None:
        """The request is answered: end its snapshot, even if the request is being cancelled."""
        snapshot.ended = True  # a query the request's tasks make from now on runs outside it
        if snapshot.conn is None:
            return
        if snapshot.using.acquire(blocking=False):  # no query of it is running: a read ends in microseconds
            try:
                self._release(snapshot)
            finally:
                snapshot.using.release()
        else:  # a cancelled query still runs in its thread: end the snapshot after it, off the event loop
            await asyncio.shield(asyncio.get_running_loop().run_in_executor(self.ds.executor, self._end, snapshot))


@hookimpl
def startup(datasette):
    db = datasette.databases.get(DATABASE)
    if db is None or isinstance(db, SnapshotDatabase):
        return
    datasette.remove_database(DATABASE)
    datasette.add_database(
        SnapshotDatabase(datasette, db.path, is_mutable=db.is_mutable), name=DATABASE, route=db.route
    )


@hookimpl
def asgi_wrapper(datasette):
    def wrap(app):
        async def in_one_snapshot(scope, receive, send):
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            snapshot = Snapshot()
            token = REQUEST.set(snapshot)
            try:
                await app(scope, receive, send)
            finally:
                REQUEST.reset(token)
                db = datasette.databases.get(DATABASE)
                if isinstance(db, SnapshotDatabase):
                    await db.end(snapshot)

        return in_one_snapshot

    return wrap
