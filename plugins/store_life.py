"""The store's life, `/-/life` (docs/pages.md): the `store_life` canned query's figures as an inline SVG bar chart
drawn on the server, written above the line (one colour per kind), superseded and archived below, and as a table.
"""

import datetime as dt
from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils.asgi import BadRequest, Response

from indexer.index.database import DATABASE
from indexer.sql.canned import QUERIES
from indexer.store.rules import KINDS
from indexer.store.timestamps import normalize

# Okabe and Ito's eight colours, told apart by people with any common colour blindness; kinds in KINDS order
KIND_COLOURS = dict(
    zip(KINDS, ("#D55E00", "#0072B2", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"))
)
STEP = {"month": 34, "week": 22}  # pixels per period: the chart scrolls inside itself when wider than the screen
BAR = {"month": 26, "week": 16}
HEIGHT, TOP, BOTTOM, LEFT = 260, 12, 44, 36


def periods(first: str, last: str, by: str) -> list[str]:
    """Every period start (ISO date) from `first` to `last`, both period starts, inclusive."""
    day, end, found = dt.date.fromisoformat(first), dt.date.fromisoformat(last), []
    while day <= end:
        found.append(day.isoformat())
        if by == "week":
            day += dt.timedelta(days=7)
        else:
            day = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return found


def period_start(moment: str, by: str) -> str:
    day = dt.date.fromisoformat(moment[:10])
    return (day - dt.timedelta(days=day.weekday())).isoformat() if by == "week" else day.replace(day=1).isoformat()


def label(period: str, by: str, index: int) -> tuple[str, str]:
    """An axis label and the year under it: months by name, every fourth week by day; the year at the first
    period and wherever a year begins."""
    day = dt.date.fromisoformat(period)
    if by == "week":
        shown = index % 4 == 0
        return (
            day.strftime("%d %b") if shown else "",
            str(day.year) if shown and (index == 0 or (day.month == 1 and day.day <= 28)) else "",
        )
    return day.strftime("%b"), str(day.year) if day.month == 1 or index == 0 else ""


def chart(rows: list, by: str, as_of: str) -> dict:
    """The chart's geometry and its table, from store_life rows (period, kind, written, superseded, archived)."""
    by = rows[0]["by"] if rows else by
    if not rows:
        return {"by": by, "periods": [], "width": 0, "height": HEIGHT}
    figures = {}
    for row in rows:  # a few rows per period (one per kind): the SQL has already counted
        period = figures.setdefault(row["period"], {"written": {}, "superseded": {}, "archived": {}})
        for event in ("written", "superseded", "archived"):
            if row[event]:
                period[event][row["kind"]] = row[event]
    starts = periods(rows[0]["period"], max(rows[-1]["period"], period_start(as_of, by)), by)
    totals = [
        {e: sum(figures.get(p, {}).get(e, {}).values()) for e in ("written", "superseded", "archived")} for p in starts
    ]
    up = max((t["written"] for t in totals), default=0) or 1
    down = max((t["superseded"] + t["archived"] for t in totals), default=0)
    scale = (HEIGHT - TOP - BOTTOM) / (up + down)
    baseline = TOP + up * scale
    columns = []
    for index, (start, total) in enumerate(zip(starts, totals)):
        x = LEFT + index * STEP[by]
        counts = figures.get(start, {"written": {}, "superseded": {}, "archived": {}})
        bars, y = [], baseline
        for kind in KINDS:  # written, stacked upwards in KINDS order
            if n := counts["written"].get(kind, 0):
                y -= n * scale
                bars.append(
                    {
                        "y": y,
                        "h": n * scale,
                        "fill": KIND_COLOURS[kind],
                        "class": "written",
                        "title": f"{n} {kind} written",
                    }
                )
        y = baseline
        for event in ("superseded", "archived"):  # below the line, stacked downwards
            if n := total[event]:
                bars.append({"y": y, "h": n * scale, "fill": None, "class": event, "title": f"{n} {event}"})
                y += n * scale
        month_or_day, year = label(start, by, index)
        columns.append(
            {
                "period": start,
                "label": month_or_day,
                "year": year,
                "x": x,
                "bars": bars,
                "total": total,
                "by_kind": counts,
                "title": f"{start}: {total['written']} written, {total['superseded']} superseded, {total['archived']} archived",
            }
        )
    return {
        "by": by,
        "periods": columns,
        "width": LEFT + len(starts) * STEP[by] + 8,
        "height": HEIGHT,
        "baseline": baseline,
        "bar": BAR[by],
        "up": up,
        "down": down,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
    }


async def life(datasette, request):
    as_of = request.args.get("as_of", "")
    try:
        as_of = normalize(as_of) if as_of.strip() else ""
    except ValueError as e:
        raise BadRequest(f"as_of: {e}") from None
    by = request.args.get("by", "")
    if by not in ("", "week", "month"):
        raise BadRequest(f"by: {by!r} is not week or month (or empty, to choose by the length of the history)")
    project = request.args.get("project", "")
    db = datasette.get_database(DATABASE)
    rows = (await db.execute(QUERIES["store_life"], {"as_of": as_of, "by": by, "project": project})).rows
    now = as_of or (await db.execute("select strftime('%Y-%m-%dT%H:%M:%SZ', 'now')")).single_value()
    drawn = chart(rows, by or "month", now)
    other = "week" if drawn["by"] == "month" else "month"
    given = {name: value for name, value in (("as_of", as_of), ("project", project)) if value}
    life_url = datasette.urls.path("/-/life") + "?"
    array = urlencode({"_shape": "array", "by": drawn["by"], **given})
    context = {
        "chart": drawn,
        "as_of": now,
        "project": project,
        "kinds": KIND_COLOURS,
        "other_by": other,
        "other_url": life_url + urlencode({"by": other, **given}),
        "whole_url": life_url + urlencode({"by": drawn["by"], **({"as_of": as_of} if as_of else {})}),
        "json_url": datasette.urls.query(DATABASE, "store_life", format="json") + "?" + array,
    }
    html = await datasette.render_template("seamless-life.html", context, request=request, view_name="seamless-life")
    return Response.html(html)


@hookimpl
def register_routes():
    return [(r"^/-/life$", life)]
