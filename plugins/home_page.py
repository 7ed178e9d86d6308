"""The home page, `/`: what needs a human, then one card per project and one for global (docs/pages.md).

Both come from canned queries (`needs_human`, `overview`), so the page and its JSON run the same SQL:
/seamless/needs_human.json?_shape=array and /seamless/overview.json?_shape=array. `?as_of=` shows the
store at another time, read as the CLI reads --as-of.
"""

import asyncio
import json
from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils import tilde_encode
from datasette.utils.asgi import BadRequest, Response

from indexer.index.database import DATABASE
from indexer.sql import canned
from indexer.sql.canned import QUERIES
from indexer.store.timestamps import normalize

SHOWN_PER_SECTION = 20  # the rest are one link away
OTHERS_SHOWN = 5  # of a proposal's other memories (10,000 copies of one description name 9,999 others)
PROPOSALS = {  # how a proposal of each kind opens, before its reason
    "contradiction": "Contradiction",
    "duplicate": "Duplicate",
    "vague-description": "Vague description",
    "archive": "Archive?",
}
SECTIONS = {
    "stage": "Stages waiting for a human",
    "proposal": "The gardener's proposals",
    "error": "Files with errors (not indexed)",
    "fork": "Replaced twice at once (two hosts superseded one memory)",
    "concurrent": "Edited on two hosts at once",
}


def as_of_parameter(request) -> str:
    """The request's as_of as canonical UTC text, '' for now; a 400 that says why for a bad one."""
    value = request.args.get("as_of", "")
    if not value.strip():
        return ""
    try:
        return normalize(value)
    except ValueError as e:
        raise BadRequest(f"as_of: {e}") from None


def section_urls(datasette, as_of: str) -> dict[str, str]:
    """Where each section's whole list is."""
    memories = datasette.urls.table(DATABASE, "memories")
    gardener = datasette.urls.query(DATABASE, "gardener")
    return {
        "stage": memories + "?kind=stage&stage_gate=human&stage_status__in=open,in_progress,blocked&status=active",
        "proposal": gardener + ("?" + urlencode({"as_of": as_of}) if as_of else ""),
        "error": datasette.urls.table(DATABASE, "problems") + "?severity=error",
        "fork": datasette.urls.table(DATABASE, "problems") + "?code=supersession-fork",
        "concurrent": datasette.urls.table(DATABASE, "concurrent_edits"),
    }


def scope_links(datasette, project: str, as_of: str) -> dict[str, str]:
    """A card's links: its briefing as a page and as markdown, its ledger, its life (at the page's as_of), its memories."""
    query = "?" + urlencode({"project": project, **({"as_of": as_of} if as_of else {})})
    memories = datasette.urls.table(DATABASE, "memories")
    return {
        "briefing": datasette.urls.query(DATABASE, "briefing") + query,
        "markdown": datasette.urls.query(DATABASE, "briefing", format="md") + query,
        "ledger": datasette.urls.query(DATABASE, "briefing_ledger") + query,
        "life": datasette.urls.path("/-/life") + query,
        "memories": memories
        + "?"
        + ("project__isnull=1" if project == "global" else urlencode({"project": project}))
        + "&status=active",
    }


async def home(datasette, request):
    as_of = as_of_parameter(request)
    db = datasette.get_database(DATABASE)
    # side by side on Datasette's SQL threads: the page waits for the slower of the two, not for both
    overview, first = await asyncio.gather(
        db.execute(QUERIES["overview"], {"as_of": as_of}),
        db.execute(canned.NEEDS_HUMAN_FIRST, {"as_of": as_of, "shown": SHOWN_PER_SECTION}),
    )
    cards = [dict(r) for r in overview.rows]
    sections = {name: {"title": title, "rows": [], "count": 0} for name, title in SECTIONS.items()}
    for row in first.rows:
        sections[row["section"]]["rows"].append(dict(row))
        sections[row["section"]]["count"] = row["in_section"]
    await _name_others(db, sections["proposal"]["rows"])
    for card in cards:
        card["links"] = scope_links(datasette, card["project"], as_of)
    json_query = "?" + urlencode({"_shape": "array", **({"as_of": as_of} if as_of else {})})
    context = {
        "title": datasette.metadata("title") or "Seamless memory explorer",
        "cards": cards,
        "sections": sections,
        "waiting": sum(s["count"] for s in sections.values()),
        "section_urls": section_urls(datasette, as_of),
        "as_of": cards[0]["as_of"] if cards else as_of,
        "asked_as_of": as_of,
        "json_urls": {
            "needs_human": datasette.urls.query(DATABASE, "needs_human", format="json") + json_query,
            "overview": datasette.urls.query(DATABASE, "overview", format="json") + json_query,
        },
        "memory_url": lambda memory_id: datasette.urls.row(DATABASE, "memories", tilde_encode(memory_id)),
        "problems_url": lambda path: datasette.urls.table(DATABASE, "problems") + "?" + urlencode({"path": path}),
    }
    html = await datasette.render_template("seamless-home.html", context, request=request, view_name="seamless-home")
    return Response.html(html)


async def _name_others(db, rows: list[dict]) -> None:
    """Give each proposal its other memories (`others`: id and name, the first OTHERS_SHOWN) and how many more."""
    wanted = {}
    for row in rows:
        others = [i for i in json.loads(row["ids"] or "[]") if i != row["id"]]
        row["others"], row["more_others"] = others[:OTHERS_SHOWN], max(0, len(others) - OTHERS_SHOWN)
        wanted.update(dict.fromkeys(row["others"]))
    names = {}
    if wanted:
        marks = ",".join("?" * len(wanted))
        result = await db.execute(f"select id, name from memories where id in ({marks})", list(wanted))
        names = {r["id"]: r["name"] for r in result.rows}
    for row in rows:
        row["others"] = [{"id": i, "name": names.get(i, i)} for i in row["others"]]
        row["opening"] = PROPOSALS.get(row["proposal"], row["proposal"])


@hookimpl
def register_routes():
    return [(r"^/$", home)]
