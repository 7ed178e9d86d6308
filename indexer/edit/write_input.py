"""What a write is given, checked before anything is read: the project and the session's scope, a name, tags, a
body's text, and the content a memory write says it holds (SPEC section 8). A check that fails refuses the write
with WriteRefused: a code (the indexer's problem code where there is one) and a sentence."""

import json
import re
from dataclasses import dataclass

from indexer.query import projects
from indexer.store import rules
from indexer.store.problems import WARNING, Problem

NAME_MAX = 200
PROJECT_MAX = 100
UNSAFE_PROJECT = re.compile(r"[/\\\x00-\x1f\x7f]|\A\.|\.\.")


class WriteRefused(Exception):
    """A write that was not done, and why: `code` (the indexer's problem code where there is one) and a sentence."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def scope_of(project: str | None) -> str | None:
    """The scope a write lands in (None: global), refusing a missing or unsafe project."""
    if project is None or not project.strip():
        raise WriteRefused(
            "ambiguous-scope",
            "no project given: pass --project P (or set SEAMLESS_PROJECT); --project global writes a global memory",
        )
    if project != project.strip() or len(project) > PROJECT_MAX or UNSAFE_PROJECT.search(project):
        raise WriteRefused(
            "bad-project",
            f"project {project[:120]!r} is not a safe folder name (no /, \\, .., leading dot or control "
            f"characters; at most {PROJECT_MAX} characters)",
        )
    return rules.scope(project)


def within_session(scope: str | None, within: str | None, what: str | None = None) -> None:
    """Refuse a write to `scope` (None: global) by a session whose project is `within`: such a session writes only
    to its own project and to global (SPEC 8). `what` names the memory concerned, when the write names one."""
    if within is None or scope is None or scope == rules.scope(within):
        return
    concerned = f"{what} is in project {scope!r}" if what else f"project {scope!r} is another project"
    raise WriteRefused(
        "outside-session",
        f'{concerned}: this session writes only to its project {within!r} and to global (project "global"); '
        "nothing was written. Another project is written by a session of its own (`seamless mcp --project P`) "
        "or by `seamless write STORE --project P`",
    )


def project_scope(project: str | None, within: str | None) -> str | None:
    """The scope a new memory or note lands in: `project` checked, and within the session's project `within`.
    Every check of the project a write names is made here."""
    scope = scope_of(project)
    within_session(scope, within)
    return scope


def known_project(conn, scope: str | None, new_project: bool) -> None:
    """Refuse a write to a project the store has no memory or note of (`conn`: its index), unless `new_project`
    says it is meant: a typo never becomes a project (SPEC 8)."""
    said = None if new_project else projects.unknown(conn, scope)
    if said:
        raise WriteRefused(
            "unknown-project",
            f"the store {said} To begin {scope!r}, add --new-project (MCP: new_project: true); nothing was written",
        )


# The indexer reads a file that has a warning by making something of it ("folded onto one", "shown as status
# unknown") and says what it made; a write refused for that warning made nothing, so it says what is wrong and
# what to give instead, under the same code.
REFUSED_WARNINGS = {
    "description-multiline": lambda r: "the description spans several lines: give it on one line",
    "description-too-long": lambda r: (
        f"the description is {len(r['description'])} characters: give at most {rules.DESCRIPTION_MAX} (the rest "
        "belongs in the body)"
    ),
    "name-not-kebab": lambda r: f"the name {r['name']!r} is not kebab-case (like chroma-boot-race)",
    "stage-header": lambda r: (
        "a stage's body must open with `Status: open|in_progress|blocked|done` (then optionally `Gate: human|ai`)"
    ),
}


def refusal(problem: Problem, record: dict | None) -> WriteRefused:
    """The refusal of a write whose file would have `problem` (`record`: the file as the indexer would read it):
    an error in the indexer's words, a warning in a refusal's (REFUSED_WARNINGS), never as a change made."""
    if problem.severity != WARNING:
        said = problem.message
    elif problem.code in REFUSED_WARNINGS and record is not None:
        said = REFUSED_WARNINGS[problem.code](record)
    else:  # a warning a write cannot give today (it writes tags as a list, quotes what YAML would misread)
        said = f"its file would be indexed with the warning {problem.code} ({problem.message}), and a write adds none"
    return WriteRefused(problem.code, f"{said}; nothing was written")


def checked_name(name: str) -> str:
    """A memory's name, stripped, refused unless it is kebab-case within NAME_MAX characters."""
    if not isinstance(name, str) or not name.strip():
        raise WriteRefused("missing-name", "name is required (kebab-case, like chroma-boot-race)")
    name = name.strip()
    if len(name) > NAME_MAX:
        raise WriteRefused("name-too-long", f"name is {len(name)} characters; at most {NAME_MAX}")
    if not rules.is_kebab_case(name):  # checked again by validate; here too, as it becomes a file name
        raise WriteRefused("name-not-kebab", f"name {name[:120]!r} is not kebab-case (like chroma-boot-race)")
    return name


def checked_tags(tags) -> list[str] | None:
    """Tags as a list of texts without repeats (None: not given), refusing anything else."""
    if tags is None:
        return None
    if isinstance(tags, str) or not isinstance(tags, list | tuple):
        raise WriteRefused("bad-tags", "tags must be a list of texts")
    for tag in tags:
        if not isinstance(tag, str):
            raise WriteRefused("bad-tags", f"a tag must be text, not a {type(tag).__name__} ({tag!r})")
        if not tag.strip():
            raise WriteRefused("bad-tags", "a tag is empty")
    return list(dict.fromkeys(tag.strip() for tag in tags))


def text_of(value: str | bytes | None, what: str) -> str | None:
    """A body or text as str, refusing bytes that are not UTF-8 (and text that holds undecodable bytes)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as e:
            raise WriteRefused("not-utf8", f"the {what} is not UTF-8 text (byte 0x{value[e.start]:02x})") from None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise WriteRefused("not-utf8", f"the {what} is not UTF-8 text") from None
    return value


def written_body(text: str) -> str:
    """A body as the indexer will read it back: LF line ends, no leading blank lines, a final newline."""
    text = text.replace("\r\n", "\n")
    if not text.strip():
        return ""
    # the closing `---` line is matched with `\s*$`: it takes the blank lines after it
    leading = re.match(r"\s*", text)
    assert leading is not None  # `\s*` matches any text, if only with the empty string
    text = text[leading.group().rfind("\n") + 1 :]
    return text if not text or text.endswith("\n") else text + "\n"


@dataclass
class Content:
    """What a write says a memory holds; None for tags or body: "keep what it has"."""

    kind: str
    description: str
    tags: list[str] | None
    body: str | None  # as the write path writes it (`written_body`): LF line ends, one final newline

    @classmethod
    def of(cls, kind: str, description: str, tags: list[str] | None, body: str | None) -> "Content":
        """What a write of these values holds: the one normalisation of `write_memory` (and of the import)."""
        description = description.strip()
        if "\n" not in description:
            description = rules.fold_description(description)
        tags = None if tags is None else list(dict.fromkeys(tag.strip() for tag in tags))
        kind = kind.strip() if isinstance(kind, str) else kind  # not text: refused by the indexer's rules, as written
        return cls(kind, description, tags, None if body is None else written_body(body))

    @classmethod
    def given(cls, kind: str, description: str, tags, body: str | bytes | None) -> "Content":
        """The content of a memory write from what its caller gave, checked (tags, a body that is UTF-8 text, a
        description) and normalised as `of` does."""
        tags = checked_tags(tags)
        text = text_of(body, "body")
        if not isinstance(description, str):
            raise WriteRefused("missing-description", "description is required: the one line every index shows")
        return cls.of(kind, description, tags, text)

    def equals(self, record: dict) -> bool:
        """Whether a memory `record` (from its file) already holds this: tags as a set, the body normalised."""
        return (
            record["kind"] == self.kind
            and record["description"] == self.description
            and (self.tags is None or set(json.loads(record["tags"])) == set(self.tags))
            and (self.body is None or record["body"] == self.body)
        )
