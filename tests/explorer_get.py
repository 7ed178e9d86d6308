"""Ask the explorer (configured as `seamless serve` configures it) for some pages, in a process of its own.

    python tests/explorer_get.py DB PATH...

Prints one JSON line per path: [status, the first 500 characters of the answer]. A test runs it with a
timeout, so a request that would run for hours fails the test instead of holding up the suite.
"""

import asyncio
import json
import sys

from indexer.front.serve import build_datasette


async def main(db: str, paths: list[str]) -> None:
    ds = build_datasette(db)
    await ds.invoke_startup()
    for path in paths:
        response = await ds.client.get(path)
        print(json.dumps([response.status_code, response.text[:500]]), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
