"""The home page, `/`, and what needs a human a section at a time, `/-/needs-human?section=S&page=N` (docs/pages.md):
the `needs_human` list read a window at a time (needs_human_page.sql), so a page costs what its rows cost at any
store size. A query over the explorer's time limit does not fail the page: it shows what it read and says what not.
"""

import asyncio
import json
import shlex
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from datasette import hookimpl
from datasette.database import QueryInterrupted
from datasette.utils import tilde_encode
from datasette.utils.asgi import BadRequest, Response
from datasette.utils.sqlite import sqlite3

from indexer import gardener
from indexer.index.database import DATABASE
from indexer.query.needs_human import SECTIONS
from indexer.sql import canned
from indexer.sql.canned import NEEDS_HUMAN_PAGE, QUERIES
from indexer.store.timestamps import normalize

SHOWN_PER_SECTION = 20  # on the home page; the rest are one link away
PER_PAGE = 100  # rows a page of /-/needs-human, unless `_size` asks for more (at most MAX_PER_PAGE) or fewer
MAX_PER_PAGE = 1000
OTHERS_SHOWN = 5  # of a proposal's other memories (10,000 copies of one description name 9,999 others)
PROPOSALS = {  # how an entry of each kind opens, before its reason
    "unsettled": "Not settled",
    "contradiction": "Contradiction",
    "duplicate": "Duplicate",
    "vague-description": "Vague description",
    "archive": "Archive?",
}


@dataclass
class Window:
    """Rows `skip` + 1 on of one section, numbered as needs_human numbers them, and what could not be read."""

    section: str
    skip: int
    rows: list[dict] = field(default_factory=list)
    size: int | None = None  # None: not counted within the time limit
    left_out: list[str] = field(default_factory=list)  # what the time limit left out, each as a sentence

    @property
    def title(self) -> str:
        return SECTIONS[self.section]


async def execute(datasette, sql: str, params: dict) -> list[dict]:
    """The rows of `sql` as dicts; QueryInterrupted when the explorer's time limit ran out. SQLite does not always
    say "interrupted" then: stopped while it expands a CTE, it may report another error instead. One that comes
    after the limit is taken for the limit; one before it is a fault, raised as it is."""
    started = time.perf_counter()
    try:
        return [dict(row) for row in (await datasette.get_database(DATABASE).execute(sql, params)).rows]
    except sqlite3.OperationalError as e:
        if (time.perf_counter() - started) * 1000 < datasette.setting("sql_time_limit_ms"):
            raise
        raise QueryInterrupted(e, sql, params) from e


def over_time(datasette, what: str) -> str:
    limit = datasette.setting("sql_time_limit_ms")
    return f"{what}: the explorer's time limit ({limit:,} ms) ran out before it was read (the machine may be busy)"


async def window(datasette, section: str, as_of: str, skip: int, take: int) -> Window:
    """Rows skip + 1 to skip + take of `section` at `as_of` ('' is now), and its size."""
    found = Window(section, skip)

    async def run(part: str, **given) -> list[dict]:
        return await execute(datasette, NEEDS_HUMAN_PAGE[part], {"as_of": as_of, "skip": 0, "take": 0, **given})

    try:
        size = (await run(f"size_{section}"))[0]
    except QueryInterrupted:
        found.left_out.append(over_time(datasette, f"{found.title}: how many there are and which"))
        return found
    if section != "proposal":
        found.size = size["size"]
        try:
            found.rows = await run(f"window_{section}", skip=skip, take=take) if skip < found.size else []
        except QueryInterrupted:
            found.left_out.append(over_time(datasette, f"{found.title}, rows {skip + 1} to {skip + take}"))
    else:
        found.size = size["unsettled"] + size["findings"] + size["archive"]
        await _proposals(datasette, run, size, found, take)
    db = shlex.quote(datasette.get_database(DATABASE).path)
    for n, row in enumerate(found.rows, skip + 1):
        row.update(section_position=n, in_section=found.size)
        for key in ("command", "dismiss"):  # exact: for this index, from whatever folder they are run
            if row.get(key):
                row[key] += f" --db {db}"
    return found


async def _proposals(datasette, run, size: dict, found: Window, take: int) -> None:
    """The gardener's proposals in three runs, each read apart: the `unsettled` notice, the findings, the archive
    proposals. A run the time limit cuts short leaves out its rows and those after it."""
    start, end, at = found.skip, found.skip + take, 0
    for name in ("unsettled", "findings", "archive"):
        lo, hi = max(start, at) - at, min(end, at + size[name]) - at
        at += size[name]
        if hi <= lo:
            continue
        try:
            rows = await (run(name) if name == "unsettled" else run(name, skip=lo, take=hi - lo))
        except QueryInterrupted:
            first = found.skip + len(found.rows) + 1
            found.left_out.append(over_time(datasette, f"{found.title}, from the {first:,}th on"))
            return
        found.rows += rows[: hi - lo]


def page_parameters(request) -> tuple[str, int, int]:
    """The section, page and rows a page asked for; a 400 that says why for a bad one."""
    section = request.args.get("section", "proposal")
    if section not in SECTIONS:
        raise BadRequest(f"section: {section!r} is not one of {', '.join(SECTIONS)}")
    numbers = []
    for name, default, most in (("page", 1, 10**9), ("_size", PER_PAGE, MAX_PER_PAGE)):
        value = request.args.get(name, str(default))
        if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= most:
            raise BadRequest(f"{name}: {value!r} is not a whole number from 1 to {most:,}")
        numbers.append(int(value))
    return section, numbers[0], numbers[1]


def name_others(rows: list[dict], names: dict[str, str]) -> None:
    """Give each proposal its other memories (`others`: id and name, the first OTHERS_SHOWN) and how many more."""
    for row in rows:
        others = [i for i in json.loads(row.get("ids") or "[]") if i != row["id"]]
        row["others"] = [{"id": i, "name": names.get(i, i)} for i in others[:OTHERS_SHOWN]]
        row["more_others"] = max(0, len(others) - OTHERS_SHOWN)
        row["opening"] = PROPOSALS.get(row.get("proposal") or "", row.get("proposal"))


async def names_of(datasette, rows: list[dict]) -> dict[str, str]:
    """The names of the other memories the rows' proposals show."""
    wanted = {}
    for row in rows:
        others = [i for i in json.loads(row.get("ids") or "[]") if i != row["id"]]
        wanted.update(dict.fromkeys(others[:OTHERS_SHOWN]))
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    try:
        rows = await execute(datasette, f"select id, name from memories where id in ({marks})", list(wanted))
    except QueryInterrupted:
        return {}  # shown by id
    return {r["id"]: r["name"] for r in rows}


def links(datasette) -> dict:
    """What the templates link to."""
    return {
        "memory_url": lambda memory_id: datasette.urls.row(DATABASE, "memories", tilde_encode(memory_id)),
        "problems_url": lambda path: datasette.urls.table(DATABASE, "problems") + "?" + urlencode({"path": path}),
    }


def section_url(datasette, section: str, as_of: str, page: int = 1, json_: bool = False, size: int = PER_PAGE) -> str:
    query = {"section": section, **({"page": page} if page > 1 else {}), **({"as_of": as_of} if as_of else {})}
    if size != PER_PAGE:
        query["_size"] = size
    return datasette.urls.path("/-/needs-human" + (".json" if json_ else "")) + "?" + urlencode(query)


async def proposal_groups(datasette, as_of: str) -> list[dict] | None:
    """The proposals in groups of one kind and project, each counted, with the commands that answer it whole for
    this index (the `gardener_groups` canned query); None when the time limit ran out first."""
    try:
        rows = await execute(datasette, QUERIES["gardener_groups"], {"as_of": as_of})
    except QueryInterrupted:
        return None
    db = shlex.quote(datasette.get_database(DATABASE).path)
    return [row | {key: row[key] and f"{row[key]} --db {db}" for key in ("dismiss", "archive")} for row in rows]


async def needs_human(datasette, request):
    as_of = as_of_parameter(request)
    section, page, size = page_parameters(request)
    found, state, groups = await asyncio.gather(
        window(datasette, section, as_of, (page - 1) * size, size),
        gardener_state(datasette),
        proposal_groups(datasette, as_of) if section == "proposal" else asyncio.sleep(0, []),
    )
    if groups is None:
        found.left_out.append(over_time(datasette, "The proposals by kind and project"))
    pages = -(-found.size // size) if found.size else 1
    more = found.size is not None and page < pages
    if request.url_vars.get("format") == "json":
        return Response.json(
            {
                "section": section,
                "page": page,
                "per_page": size,
                "in_section": found.size,
                "left_out": found.left_out + ([state["left_out"]] if "left_out" in state else []),
                "gardener": state.get("line") or None,
                "next": section_url(datasette, section, as_of, page + 1, json_=True, size=size) if more else None,
                "rows": found.rows,
                **({"groups": groups} if section == "proposal" else {}),
            }
        )
    name_others(found.rows, await names_of(datasette, found.rows))
    context = {
        "title": SECTIONS[section],
        "found": found,
        "groups": groups,
        "proposals": PROPOSALS,
        "gardener": state,
        "section": section,
        "sections": {name: section_url(datasette, name, as_of) for name in SECTIONS},
        "section_titles": SECTIONS,
        "page": page,
        "pages": pages,
        "previous_url": section_url(datasette, section, as_of, page - 1, size=size) if page > 1 else None,
        "next_url": section_url(datasette, section, as_of, page + 1, size=size) if more else None,
        "json_url": section_url(datasette, section, as_of, page, json_=True, size=size),
        "as_of": as_of,
        "home_url": datasette.urls.instance() + ("?" + urlencode({"as_of": as_of}) if as_of else ""),
        **links(datasette),
    }
    html = await datasette.render_template("seamless-needs.html", context, request=request, view_name="seamless-needs")
    return Response.html(html)


def as_of_parameter(request) -> str:
    """The request's as_of as canonical UTC text, '' for now; a 400 that says why for a bad one."""
    value = request.args.get("as_of", "")
    if not value.strip():
        return ""
    try:
        return normalize(value)
    except ValueError as e:
        raise BadRequest(f"as_of: {e}") from None


def scope_links(datasette, project: str, as_of: str) -> dict[str, str]:
    """A card's links: its briefing as a page and as markdown, its ledger, its life (at the page's as_of), its memories."""
    query = "?" + urlencode({"project": project, **({"as_of": as_of} if as_of else {})})
    scope = "project__isnull=1" if project == "global" else urlencode({"project": project})
    return {
        "briefing": datasette.urls.query(DATABASE, "briefing") + query,
        "markdown": datasette.urls.query(DATABASE, "briefing", format="md") + query,
        "ledger": datasette.urls.query(DATABASE, "briefing_ledger") + query,
        "life": datasette.urls.path("/-/life") + query,
        "memories": datasette.urls.table(DATABASE, "memories") + f"?{scope}&status=active",
    }


async def gardener_state(datasette) -> dict:
    """How current the gardener's findings are, as a sentence (`line`): '' when it cannot be read in time."""
    try:
        row = (await execute(datasette, canned.GARDENER_STATE, {"as_of": ""}))[0]
    except QueryInterrupted:
        return {"line": "", "left_out": over_time(datasette, "How current the gardener's findings are")}
    return row | {"line": gardener.state_line(row, running=gardener.running(datasette.get_database(DATABASE).path))}


async def home(datasette, request):
    as_of = as_of_parameter(request)

    async def cards() -> list[dict] | None:
        try:
            return await execute(datasette, QUERIES["overview"], {"as_of": as_of})
        except QueryInterrupted:
            return None

    async def section(name: str) -> Window:
        shown = await window(datasette, name, as_of, 0, SHOWN_PER_SECTION)
        if name == "proposal":
            name_others(shown.rows, await names_of(datasette, shown.rows))
        return shown

    # side by side on Datasette's SQL threads: the page waits for the slowest, not for all of them in turn
    found, windows, state = await asyncio.gather(
        cards(), asyncio.gather(*(section(name) for name in SECTIONS)), gardener_state(datasette)
    )
    sections = {w.section: w for w in windows}
    left_out = [line for w in windows for line in w.left_out] + ([state["left_out"]] if "left_out" in state else [])
    if found is None:
        left_out.append(over_time(datasette, "The cards of the projects"))
    for card in found or []:
        card["links"] = scope_links(datasette, card["project"], as_of)
    json_query = "?" + urlencode({"_shape": "array", **({"as_of": as_of} if as_of else {})})
    context = {
        "title": datasette.metadata("title") or "Seamless memory explorer",
        "cards": found or [],
        "sections": sections,
        "waiting": sum(w.size or 0 for w in windows),
        "uncounted": any(w.size is None for w in windows),
        "left_out": left_out,
        "gardener": state,
        "section_urls": {name: section_url(datasette, name, as_of) for name in SECTIONS},
        "as_of": found[0]["as_of"] if found else as_of,
        "asked_as_of": as_of,
        "json_urls": {
            "needs_human": datasette.urls.query(DATABASE, "needs_human", format="json") + json_query,
            "sections": section_url(datasette, "proposal", as_of, json_=True),
            "overview": datasette.urls.query(DATABASE, "overview", format="json") + json_query,
        },
        **links(datasette),
    }
    html = await datasette.render_template("seamless-home.html", context, request=request, view_name="seamless-home")
    return Response.html(html)


@hookimpl
def register_routes():
    return [(r"^/$", home), (r"^/-/needs-human(\.(?P<format>json))?$", needs_human)]
