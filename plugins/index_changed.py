"""A page drawn while a run changed the index says so: "The index changed while this page was drawn".

Datasette 0.65 cannot draw a table page from one snapshot: it runs the page's queries (the rows, the count,
each facet) one after another, each on whichever of its SQL threads is free, each thread with its own
connection, each statement in a read transaction of its own. A run that commits between two of them leaves
a page whose count and rows describe two states of the index. Every run that changes the index's content
counts one more generation in the same transaction (indexer.index.database.next_generation); this reads the
generation before a page's first query and again once its queries are done (when the HTML is rendered,
or when the JSON is sent). If the two differ, the HTML page shows a line asking for a reload, and the
JSON carries `"index_changed": true` (in an object with `rows`) and the header `seamless-index-changed: 1`.
A page drawn from an unchanged index never shows the line: no-op runs and the watcher's heartbeat do not
count a generation.
"""

import json

from datasette import hookimpl

from indexer.index.database import DATABASE, GENERATION

NOTED = "seamless.generation"  # the ASGI scope's key for the generation read before the page's first query
HEADER = b"seamless-index-changed"


def _drawn_from_the_index(path: str) -> bool:
    """Pages and JSON drawn from the index: everything but static files and the freshness line (one query)."""
    return not path.startswith(("/static/", "/-/static", "/-/freshness", "/favicon.ico"))


async def _generation(datasette) -> int | None:
    """The index's generation now, or None when it cannot be read (no such database, an index without index_meta)."""
    try:
        return (await datasette.get_database(DATABASE).execute(GENERATION)).single_value()
    except Exception:  # never a failed page for want of the check: the page is drawn as it always was
        return None


@hookimpl
def asgi_wrapper(datasette):
    def wrap(app):
        async def generation_noted(scope, receive, send):
            if scope["type"] != "http" or not _drawn_from_the_index(scope["path"]):
                await app(scope, receive, send)
                return
            before = await _generation(datasette)
            held: list[dict] = []  # a JSON response, until its last part: it may gain the flag

            async def checked_send(message):
                if message["type"] == "http.response.start" and _is_json(message):
                    held.append(message)
                elif held and message["type"] == "http.response.body":
                    held.append(message)
                    if not message.get("more_body"):
                        await _send_json(held, before is not None and await _generation(datasette) != before, send)
                else:
                    await send(message)

            await app(dict(scope, **{NOTED: before}), receive, checked_send)
            if held:  # a response left unfinished: send what there is, unchecked
                await _send_json(held, False, send)

        return generation_noted

    return wrap


def _is_json(start: dict) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in start["headers"])


async def _send_json(held: list[dict], changed: bool, send) -> None:
    """Send a held JSON response, with the flag if the index changed while it was drawn."""
    start, body = held[0], b"".join(m.get("body", b"") for m in held[1:])
    held.clear()
    headers = list(start["headers"])
    if changed:
        headers.append((HEADER, b"1"))
        body = _flagged(body)
        headers = [(k, str(len(body)).encode() if k.lower() == b"content-length" else v) for k, v in headers]
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _flagged(body: bytes) -> bytes:
    """`body` with `"index_changed": true`, if it is a JSON object of rows (other shapes keep only the header)."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if not isinstance(data, dict) or "rows" not in data:
        return body  # an array, or an object keyed by primary key: no place for a flag
    return json.dumps({**data, "index_changed": True}).encode()


@hookimpl(trylast=True)  # after the other plugins' variables, which may run queries of their own
def extra_template_vars(datasette, request):
    async def inner():
        before = request.scope.get(NOTED) if request is not None else None
        if before is None:
            return {}
        return {"index_changed": await _generation(datasette) != before}

    return inner
