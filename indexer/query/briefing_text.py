"""A briefing as plain markdown, to paste into a prompt: one line per memory, only what an index may show."""


def one_line(text) -> str:
    """`text` with every run of whitespace, line breaks included, as one space: a field cannot add a line."""
    return " ".join(str(text).split())


def briefing_line(row, with_id: bool = False) -> str:
    """`- [kind] name: description` (`with_id`: `- [kind] name (ID): description`); a stage adds its status and
    gate (`status unknown` when unparseable)."""
    label = row["kind"]
    if row["kind"] == "stage":
        status = row["stage_status"] or "unknown"
        label += ": status unknown" if status == "unknown" else f": {status}"
        if row["stage_gate"]:
            label += f", gate {row['stage_gate']}"
    # a name or description with a line break (indexed with a warning) must not start a line of its own,
    # which would read as another memory
    name = one_line(row["name"]) + (f" ({row['id']})" if with_id else "")
    return f"- [{label}] {name}: {one_line(row['description'])}"


def _head(rows, project: str | None, as_of: str | None, dated: bool) -> str:
    """The heading and the line saying when (unless not `dated`) and how much, each followed by a blank line."""
    scope = one_line(project) if project and project != "global" else "global memories only"
    lines = [f"# Briefing: {scope}", ""]
    if rows:
        chars = sum(len(r["description"]) for r in rows)
        when = f"As of {rows[0]['as_of']}: " if dated else ""
        lines += [f"{when}{len(rows)} memories, {chars} of {rows[0]['budget']} characters.", ""]
    else:
        lines.append(f"Nothing to brief{f' as of {as_of}' if as_of and dated else ''}.")
    return "\n".join(lines) + "\n"


def briefing_markdown(rows, project: str | None, as_of: str | None, dated: bool = True, with_ids: bool = False) -> str:
    """The whole briefing: a heading, a line saying when (unless not `dated`: then the same memories give the same
    bytes, for `seamless export`) and how much, then one line per memory (`with_ids`: each with its id)."""
    return _head(rows, project, as_of, dated) + "".join(briefing_line(r, with_ids) + "\n" for r in rows)


def briefing_within(
    rows,
    project: str | None,
    as_of: str | None,
    max_chars: int,
    show_all: str,
    dated: bool = True,
    with_ids: bool = False,
) -> str:
    """The briefing in at most `max_chars` characters: its lines from the top (the pinned memories come first),
    and when any memory did not fit, a last line saying how many were left out, how many of them pinned, and
    the command `show_all` that shows them all. Never a silent cut."""
    text = briefing_markdown(rows, project, as_of, dated, with_ids)
    if len(text) <= max_chars:
        return text

    pinned_from = [0] * (len(rows) + 1)  # pinned memories from each position to the end
    for n in range(len(rows) - 1, -1, -1):
        pinned_from[n] = pinned_from[n + 1] + bool(rows[n]["pinned"])

    def left_out(kept: int) -> str:
        return (
            f"\n{len(rows) - kept} of {len(rows)} memories left out to stay within {max_chars} characters "
            f"({pinned_from[kept]} of them pinned): `{show_all}` shows them all.\n"
        )

    head = _head(rows, project, as_of, dated)
    lines = [briefing_line(r, with_ids) + "\n" for r in rows]
    kept, size = 0, len(head)
    while kept < len(rows) and size + len(lines[kept]) + len(left_out(kept + 1)) <= max_chars:
        size += len(lines[kept])
        kept += 1
    text = head + "".join(lines[:kept]) + left_out(kept)
    return text if len(text) <= max_chars else left_out(0).strip()[:max_chars]
