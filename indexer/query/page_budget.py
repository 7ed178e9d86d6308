"""Work a page does on a stored text (rendering markdown, diffing bodies), kept off the server's event loop and
bounded (MAX_CHARS, SECONDS: docs/hardening.md, "Bodies"), so one page can never stall the others.
"""

import asyncio
from concurrent.futures import ThreadPoolExecutor

MAX_CHARS = 100_000
SECONDS = 1.0
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="page-work")  # a slow text holds this, not the loop


_in_flight: dict[tuple, tuple[asyncio.Future, float]] = {}  # work under way: its future and its deadline


async def within_budget(fallback, work, *args):
    """`work(*args)` run on the page worker's thread, or `fallback` if it takes longer than SECONDS (it finishes in
    the background: a cached function has the answer for the next view). A caller asking for work under way waits
    for it until the same deadline, so one page never shows a text both ways (a body's cell and its template)."""
    loop = asyncio.get_running_loop()
    key = (id(loop), work, *args)
    if key not in _in_flight:
        future = loop.run_in_executor(_worker, work, *args)
        _in_flight[key] = (future, loop.time() + SECONDS)
        future.add_done_callback(lambda _: _in_flight.pop(key, None))
    future, deadline = _in_flight[key]
    try:
        return await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - loop.time()))
    except TimeoutError:
        return fallback
