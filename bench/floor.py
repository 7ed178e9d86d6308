"""The floor: walk a store and read every file's bytes, nothing else. No indexer can do less.

python -m bench.floor STORE    # prints {"seconds": ..., "files": ..., "bytes": ...}
"""

import json
import os
import sys
import time


def floor(root: str) -> tuple[int, int]:
    """Read every `*.md` under `root`/memories and `root`/notes; return (files, bytes)."""
    files = size = 0
    folders = [path for path in (os.path.join(root, "memories"), os.path.join(root, "notes")) if os.path.isdir(path)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif entry.name.endswith(".md"):
                    fd = os.open(entry.path, os.O_RDONLY)  # no file object: a third of the cost of open()
                    try:
                        while chunk := os.read(fd, 1 << 16):
                            size += len(chunk)
                    finally:
                        os.close(fd)
                    files += 1
    return files, size


if __name__ == "__main__":
    started = time.perf_counter()
    files, size = floor(sys.argv[1])
    print(json.dumps({"seconds": time.perf_counter() - started, "files": files, "bytes": size}))
