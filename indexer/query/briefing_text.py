"""A briefing as plain markdown, to paste into a prompt: one line per memory, only what an index may show."""


def one_line(text) -> str:
    """`text` with every run of whitespace, line breaks included, as one space: a field cannot add a line."""
    return " ".join(str(text).split())


def briefing_line(row) -> str:
    """`- [kind] name: description`; a stage adds its status and gate (`status unknown` when unparseable)."""
    label = row["kind"]
    if row["kind"] == "stage":
        status = row["stage_status"] or "unknown"
        label += ": status unknown" if status == "unknown" else f": {status}"
        if row["stage_gate"]:
            label += f", gate {row['stage_gate']}"
    # a name or description with a line break (indexed with a warning) must not start a line of its own,
    # which would read as another memory
    return f"- [{label}] {one_line(row['name'])}: {one_line(row['description'])}"


def briefing_markdown(rows, project: str | None, as_of: str | None) -> str:
    """The whole briefing: a heading, a line saying when and how much, then one line per memory."""
    scope = one_line(project) if project and project != "global" else "global memories only"
    lines = [f"# Briefing: {scope}", ""]
    if rows:
        chars = sum(len(r["description"]) for r in rows)
        lines.append(f"As of {rows[0]['as_of']}: {len(rows)} memories, {chars} of {rows[0]['budget']} characters.")
        lines.append("")
        lines.extend(briefing_line(r) for r in rows)
    else:
        lines.append(f"Nothing to brief{f' as of {as_of}' if as_of else ''}.")
    return "\n".join(lines) + "\n"
