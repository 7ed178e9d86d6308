"""A problem found in one file of the store, how it is printed, and the registry of every problem code."""

from dataclasses import dataclass

from indexer.store.printable import escaped

ERROR = "error"
WARNING = "warning"


@dataclass(slots=True)
class Rule:
    """One problem code: its severity, and when it is given (the sentence of the rules table in docs/store.md)."""

    code: str
    severity: str
    meaning: str


# Every problem the indexer can report, in the order of the rules table (docs/store.md is generated from it).
RULES = (
    Rule("empty-file", ERROR, "the file is empty"),
    Rule("not-utf8", ERROR, "the file is not UTF-8 text, or its name is not UTF-8"),
    Rule("binary-file", ERROR, "the file contains NUL bytes"),
    Rule("too-large", ERROR, "the file is over `index.max_file_bytes`"),
    Rule(
        "unreadable",
        ERROR,
        "the file cannot be read, or was replaced by a symlink or a special file between the walk and the read",
    ),
    Rule(
        "unreadable-folder",
        ERROR,
        "a folder under `memories/` or `notes/` cannot be listed (permissions): its files are unknown, so none "
        "is indexed, and the folder's path carries the error",
    ),
    Rule(
        "conflict-markers",
        ERROR,
        "a git merge left its conflict markers in the file (`<<<<<<<`, `=======`, `>>>>>>>` lines; the message names "
        "them): it is not indexed until a person keeps the text they want and deletes the markers",
    ),
    Rule("no-frontmatter", ERROR, "a memory without frontmatter"),
    Rule("unclosed-frontmatter", ERROR, "a `---` that opens the frontmatter is never closed"),
    Rule(
        "yaml-error",
        ERROR,
        "the frontmatter is not YAML: a syntax error, a key given twice, a bad explicit tag, or nesting over "
        "1,000 levels",
    ),
    Rule("not-a-mapping", ERROR, "the frontmatter is not a mapping of keys to values"),
    Rule("frontmatter-too-large", ERROR, "the frontmatter is over 64 KB"),
    Rule("missing-kind", ERROR, "a memory without `kind`"),
    Rule("unknown-kind", ERROR, "a `kind` that is not one of the eight kinds"),
    Rule("missing-id", ERROR, "a memory without `id`"),
    Rule("malformed-id", ERROR, "an `id` (or `superseded_by`, `supersedes`) that is not a ULID"),
    Rule("missing-name", ERROR, "a memory without `name`"),
    Rule("missing-description", ERROR, "a memory without `description`"),
    Rule("bad-field", ERROR, "a field that cannot be read as what it is, such as a `name` that is not text"),
    Rule("bad-timestamp", ERROR, "a timestamp that is not an ISO 8601 date or time, or a date that is no real time"),
    Rule("hand-stamped", ERROR, "`superseded_by` without `invalid_at`: the supersede path sets both"),
    Rule(
        "duplicate-id",
        ERROR,
        "two memories share an id, or two notes do (a memory and a note may): the earliest `created` (then the "
        "first path, `x.md` before `x-2.md`) is indexed, each other one gets the error",
    ),
    Rule(
        "duplicate-name",
        ERROR,
        "two active memories of a project share a name: the earliest `created` (then the first path, `x.md` "
        "before `x-2.md`) is indexed, each other one gets the error",
    ),
    Rule("description-too-long", WARNING, "a description over 150 characters"),
    Rule("description-multiline", WARNING, "a description of several lines (folded onto one)"),
    Rule("name-not-kebab", WARNING, "a name that is not kebab-case, like `Chroma_Boot`"),
    Rule("tags-bare-string", WARNING, "`tags: chroma`, read as one tag"),
    Rule("bad-tags", WARNING, "`tags` that is not a list, or a tag that is not text or is empty (ignored)"),
    Rule(
        "yaml-trap",
        WARNING,
        'a value YAML 1.1 would silently convert, kept as written: `name: no` stays `"no"`, an all-digit id stays text',
    ),
    Rule("stage-header", WARNING, "a stage whose body does not open with a valid `Status:` line (status `unknown`)"),
    Rule("dangling-supersession", WARNING, "`superseded_by` points to no memory"),
    Rule("supersession-cycle", WARNING, "following `superseded_by` comes back to the start (each member gets it)"),
    Rule(
        "supersession-fork",
        WARNING,
        "a memory says `supersedes: X` while X is invalid with another successor (or none): two hosts replaced X "
        "at once and the merge kept the other; listed under Needs a human",
    ),
    Rule("bad-settings", ERROR, "`seamless.toml` cannot be read, or a value is not a whole number (defaults are used)"),
    Rule("unknown-setting", WARNING, "`seamless.toml` names a key that does not exist (ignored)"),
    Rule(
        "bad-dismissal",
        WARNING,
        "a line of `gardener/dismissed.jsonl` is not a dismissal (JSON with kind, ids, updated, why, by, at): that line "
        "is not read, the others count",
    ),
    Rule(
        "more-warnings",
        WARNING,
        "a file with over 20 warnings: the first 20 are listed, and this one counts the rest by code",
    ),
)
CODES = {rule.code: rule for rule in RULES}
# a file that lost a contest for its id or name (crossfile.py): an index run reads it again when others change
CONFLICT_CODES = ("duplicate-id", "duplicate-name")


@dataclass(slots=True, order=True)
class Problem:
    """One row of the `problems` table (its columns in order): a fault at a line of a store file."""

    path: str
    line: int
    severity: str
    code: str
    message: str

    @property
    def row(self) -> tuple[str, int, str, str, str]:
        return (self.path, self.line, self.severity, self.code, self.message)

    def format(self, prefix: str = "") -> str:
        """`path:line: severity code: message`, the path optionally under `prefix`, on one line whatever they hold:
        control characters escaped: a newline in a name cannot forge a second problem line, nor an escape hide one."""
        path = f"{prefix.rstrip('/')}/{self.path}" if prefix else self.path
        return f"{escaped(path)}:{self.line}: {self.severity} {self.code}: {escaped(self.message)}"


def _registered(code: str, severity: str) -> str:
    """`code`, once the registry says it exists with this severity: a new rule is registered before it is used."""
    if (rule := CODES.get(code)) is None:
        raise ValueError(f"problem code {code!r} is not in indexer.store.problems.RULES; register it there")
    if rule.severity != severity:
        raise ValueError(f"problem code {code!r} is registered as {rule.severity}, not {severity}")
    return code


def error(path: str, line: int, code: str, message: str) -> Problem:
    return Problem(path, line, ERROR, _registered(code, ERROR), message)


def warning(path: str, line: int, code: str, message: str) -> Problem:
    return Problem(path, line, WARNING, _registered(code, WARNING), message)
