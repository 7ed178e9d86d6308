"""Work a page does on a stored text (rendering markdown, diffing bodies), kept off the server's event loop.

Some texts take a library seconds or minutes (64 KB of `![` in markdown-it, 5,000 equal short lines in
difflib): a text over MAX_CHARS is not worked on, and work slower than SECONDS gives way to a fallback,
so one page can never stall the others.
"""

import asyncio
from concurrent.futures import ThreadPoolExecutor

MAX_CHARS = 100_000
SECONDS = 1.0
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="page-work")  # a slow text holds this, not the loop


async def within_budget(fallback, work, *args):
    """`work(*args)` run on the page worker's thread, or `fallback` if it takes longer than SECONDS.

    The work finishes in the background: a cached function has the answer for the next view.
    """
    future = asyncio.get_running_loop().run_in_executor(_worker, work, *args)
    try:
        return await asyncio.wait_for(asyncio.shield(future), SECONDS)
    except TimeoutError:
        return fallback
