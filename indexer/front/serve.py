"""The explorer: Datasette over seamless.db, configured from the repository root as a Datasette configuration
directory (metadata.yml, settings.json, plugins/, templates/; the wheel installs them as `seamless_explorer`). This
module adds only what `datasette .` cannot do: serve a database file of any name as `seamless`.
"""

import importlib.util
from pathlib import Path

from indexer.index.database import DATABASE, is_index, not_an_index

ROOT = Path(__file__).resolve().parents[2]  # the repository root, in a checkout (indexer/front/serve.py)
PACKAGE = "seamless_explorer"  # the configuration directory, installed from a wheel


class ExplorerError(Exception):
    """The explorer cannot start; the message says what to do."""


def _candidates() -> list[Path]:
    """Where the configuration may be: the checkout this module runs from, then the installed package."""
    spec = importlib.util.find_spec(PACKAGE)
    installed = spec.submodule_search_locations if spec and spec.submodule_search_locations else []
    return [ROOT, *map(Path, installed)]


def config_dir(root: Path | None = None) -> Path:
    """The Datasette configuration directory (`root`, or the first place found): it holds metadata.yml."""
    places = [root] if root is not None else _candidates()
    for place in places:
        if (place / "metadata.yml").is_file():
            return place
    raise ExplorerError(
        f"no explorer configuration (metadata.yml) in {', '.join(map(str, places))}: "
        "reinstall with `pip install 'seamless-explorer[explorer]'`"
    )


def build_datasette(db_path: str | Path, root: Path | None = None, allowed_hosts: tuple[str, ...] = ()):
    """A Datasette serving `db_path` read-only as database `seamless`, configured from `root` (or as found).

    It answers to localhost, 127.0.0.1 and [::1], and to `allowed_hosts` (plugins/host_guard.py).
    """
    try:
        from datasette.app import Datasette
        from datasette.database import Database
        from datasette.utils import BadMetadataError, StartupError
    except ImportError as e:
        raise ExplorerError(f"the explorer needs Datasette: pip install 'seamless-explorer[explorer]' ({e})") from e

    db_path = Path(db_path)
    if not db_path.is_file():
        raise ExplorerError(f"no index at {db_path}: build it first with `seamless index STORE --db {db_path}`")
    directory = config_dir(root)
    try:
        ds = Datasette(config_dir=directory)
    except (StartupError, BadMetadataError) as e:
        raise ExplorerError(f"bad explorer configuration in {directory}: {e}") from e
    # config_dir also picks up any *.db in the root (and _memory when there is none): serve only ours
    for name in [n for n in ds.databases if n != "_internal"]:
        ds.remove_database(name)
    # mutable (mode=ro), not immutable: a re-index is seen without a restart
    ds.add_database(Database(ds, str(db_path.resolve()), is_mutable=True), name=DATABASE)
    ds.seamless_allowed_hosts = tuple(allowed_hosts)
    return ds


def serve(db_path: str | Path, host: str = "127.0.0.1", port: int = 8001, allowed_hosts: tuple[str, ...] = ()) -> None:
    """Run the explorer until interrupted; it answers to the local names, `host` and `allowed_hosts`."""
    import asyncio  # here: `seamless --help` and `watch` import this module (asyncio: 24 ms of -X importtime, load 7)

    import uvicorn  # the explorer extra, beside Datasette (build_datasette)

    ds = build_datasette(db_path, allowed_hosts=(host, *allowed_hosts))
    asyncio.new_event_loop().run_until_complete(_startup(ds))
    uvicorn.run(ds.app(), host=host, port=port, log_level="info", lifespan="on", workers=1)


async def _startup(ds) -> None:
    """Run the plugins' startup hooks and check the file is a seamless index."""
    await ds.invoke_startup()

    db = ds.get_database(DATABASE)
    try:
        ours = await db.execute_fn(is_index)
    except Exception as e:  # sqlite3.DatabaseError and friends: not SQLite at all
        raise ExplorerError(f"{db.path} is not a seamless index ({e}): build it with `seamless index`") from e
    if not ours:
        raise ExplorerError(
            not_an_index(db.path)
            if ours is False
            else f"{db.path} is an empty database, not an index: build it with `seamless index`"
        )
