"""The options of the commands `seamless` runs without click (indexer.front.main), as their click commands
declare them. Written by `python -m docs.generate` (`make docs`) from those commands; tests/test_main.py
fails while it differs from them. Do not edit by hand."""

COMMANDS: dict[str, list[dict]] = {
    "index": [
        {"name": "store", "type": "folder", "exists": True, "required": True},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db"},
        {"name": "full", "flags": ["--full"], "type": "flag"},
        {"name": "strict", "flags": ["--strict"], "type": "flag"},
    ],
    "check": [
        {"name": "store", "type": "folder", "exists": True, "required": True},
    ],
    "status": [
        {"name": "store", "type": "folder", "exists": True, "required": True},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db"},
    ],
    "recall": [
        {"name": "query", "type": "text", "required": True},
        {"name": "project", "flags": ["--project"], "type": "text"},
        {"name": "limit", "flags": ["--limit"], "type": "int", "min": 1, "default": 20},
        {"name": "every", "flags": ["--all"], "type": "flag"},
        {"name": "as_of", "flags": ["--as-of"], "type": "time"},
        {"name": "as_json", "flags": ["--json"], "type": "flag"},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db"},
    ],
    "briefing": [
        {"name": "project", "flags": ["--project"], "type": "text", "required": True},
        {"name": "as_of", "flags": ["--as-of"], "type": "time"},
        {"name": "budget", "flags": ["--budget"], "type": "int", "min": 0},
        {"name": "explain", "flags": ["--explain"], "type": "flag"},
        {"name": "as_json", "flags": ["--json"], "type": "flag"},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db"},
    ],
    "history": [
        {"name": "id_or_name", "type": "text", "required": True},
        {"name": "project", "flags": ["--project"], "type": "text"},
        {"name": "revisions", "flags": ["--revisions"], "type": "flag"},
        {"name": "as_json", "flags": ["--json"], "type": "flag"},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db"},
    ],
    "show": [
        {"name": "x", "type": "text", "required": True},
        {"name": "project", "flags": ["--project"], "type": "text"},
        {"name": "at", "flags": ["--at"], "type": "text"},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db"},
    ],
    "hook session-start": [
        {"name": "store", "flags": ["--store"], "type": "folder", "envvar": "SEAMLESS_STORE"},
        {"name": "db_path", "flags": ["--db"], "type": "text", "default": "seamless.db", "envvar": "SEAMLESS_DB"},
        {"name": "project", "flags": ["--project"], "type": "text"},
        {"name": "max_chars", "flags": ["--max-chars"], "type": "int", "min": 500, "default": 9000},
        {"name": "as_of", "flags": ["--as-of"], "type": "time"},
    ],
}
