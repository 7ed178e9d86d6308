"""The store's settings: `STORE/seamless.toml`, every key optional, each a whole number or true/false where its
default is; the index's `settings` table holds every one, defaults included (a boolean as 1 or 0)."""

import json
import re
from pathlib import Path

from indexer.store.problem_cap import capped
from indexer.store.problems import Problem, error, warning
from indexer.store.walk import read_regular_file

FILE = "seamless.toml"
DEFAULTS = {
    "briefing.budget_chars": 6000,
    "briefing.max_age_days": 180,
    "briefing.stage_unknown_max_age_days": 7,
    "gardener.stale_stage_days": 14,
    "gardener.stale_days": 365,
    # each kind of the gardener's proposals: SPEC 12 turns off by default a kind below a precision of 0.9 on its
    # blind split (docs/queries.md#how-sure-each-kind-is); a store may turn it on
    "gardener.duplicates": False,
    "gardener.contradictions": True,
    "gardener.vague_descriptions": True,
    "gardener.stale_memories": False,  # archive a memory other than a stage not updated for stale_days
    "index.max_file_bytes": 4194304,
    "git.commit": True,  # in a store inside a git work tree, each write commits the files it changed (SPEC 10)
}
# the settings a file's verdict depends on: when one changes, the next run judges every file again
FILE_SETTINGS = ("index.max_file_bytes",)
LARGEST = 2**53  # past this a number is no sensible setting, and too large for SQLite
# a file is read whole into memory to be parsed: a larger limit would let one file take the machine's memory
MAXIMUM = {"index.max_file_bytes": 64 * 1024 * 1024}
MAX_SETTINGS_BYTES = 1_000_000


def load_settings(root: Path) -> tuple[dict[str, int], list[Problem]]:
    """The effective settings (defaults overridden by seamless.toml) and any problems with the file."""
    import tomllib  # here: a run whose settings are as the index holds them (read_as) does without it (2 ms)

    settings = dict(DEFAULTS)
    path = root / FILE
    try:
        data = read_regular_file(str(path), MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return settings, []
    except OSError as e:
        return settings, [error(FILE, 1, "bad-settings", f"cannot read settings, defaults used: {e}")]
    if len(data) > MAX_SETTINGS_BYTES:  # read in part, a setting after the cut would be silently lost
        why = f"the file is over {MAX_SETTINGS_BYTES:,} bytes, defaults used"
        return settings, [error(FILE, 1, "bad-settings", why)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return settings, [error(FILE, 1, "bad-settings", f"cannot read settings, defaults used: {e}")]
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        line = int(m.group(1)) if m else 1
        return settings, [error(FILE, line, "bad-settings", f"TOML syntax error, defaults used: {e}")]
    except RecursionError:  # tomllib recurses once per nested array or table: a thousand deep exhaust the stack
        return settings, [error(FILE, 1, "bad-settings", "TOML nested too deeply, defaults used")]
    problems = []
    lines = _key_lines(text)
    for section, values in parsed.items():
        if not isinstance(values, dict):
            values = {"": values}
        for name, value in values.items():
            key = f"{section}.{name}"
            line = lines.get(name, 1)
            if key not in DEFAULTS:
                problems.append(warning(FILE, line, "unknown-setting", f"unknown setting {key!r} ignored"))
            elif isinstance(DEFAULTS[key], bool):
                if isinstance(value, bool):
                    settings[key] = value
                else:
                    why = f"{key} must be true or false; default {str(DEFAULTS[key]).lower()} used"
                    problems.append(error(FILE, line, "bad-settings", why))
            elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAXIMUM.get(key, LARGEST):
                most = f"{MAXIMUM[key]:,}" if key in MAXIMUM else "2**53"
                why = f"{key} must be a whole number from 0 to {most}; default {DEFAULTS[key]} used"
                problems.append(error(FILE, line, "bad-settings", why))
            else:
                settings[key] = value
    return settings, capped(problems)


def read_as(root: Path) -> str | None:
    """What the settings are made from, as one text: the defaults and seamless.toml's bytes ('' when there is none);
    None when the file cannot be read. An index made from the same text holds these settings and their problems."""
    try:
        data = read_regular_file(str(root / FILE), MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        data = b""
    except OSError:
        return None
    return json.dumps(DEFAULTS) + "\n" + data.decode("latin-1")  # any bytes, kept exactly


def _key_lines(text: str) -> dict[str, int]:
    """The first line of each `name = value` (one pass: a line search per key is quadratic in a big file)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        name, equals, _ = line.partition("=")
        if equals:
            lines.setdefault(name.strip(), number)
    return lines
