"""Recall measured (SPEC section 13): does a question find the memory that answers it, and how fast.

    python -m bench.recall [--locomo PATH] [--labelled FILES] [--sizes "100000"] [--out DIR]

Quality, as Recall@1, @5, @10 and MRR@10 (a question is found at the rank of the first memory or note that
answers it; MRR@10 counts 1/rank within the first 10), for recall and, in the same run, for a plain baseline:
FTS5's bm25 with its default weights over the question's words OR-ed, stop words dropped (recall_terms's list).
- LoCoMo (snap-research/locomo, read from --locomo: its `locomo10.zip`, the folder it unzips to, or the older
  single `locomo10.json`): each observation a memory, each conversation a project, each question asked within
  its conversation's project; its answers are the observations whose dia_id its evidence names. The adversarial
  category (5) and questions whose evidence names no observation are left out. Conversations 26, 30, 41, 42
  and 43 are the dev split (recall's rules were chosen on them), 44, 47, 48, 49 and 50 the held-out split.
- The labelled queries over examples/store and over the coding store (tests/fixtures/recall/, LABELLED): questions
  in plain words, pasted error lines and keyword queries apart (`error_line` tells the first two apart), each split
  apart.
Speed: recall of 10-word questions in SQL on the store `python -m bench` generates (the median over the
questions of each one's median), beside FTS5's bm25 over the same words OR-ed; and `seamless recall` as a
whole process on examples/store beside `python -c pass`.
"""

import argparse
import io
import json
import re
import shutil
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from indexer.index.build import index_store
from indexer.query import queries, recall_terms
from indexer.sqlite import sqlite3
from indexer.store.timestamps import normalize

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "recall"
EXAMPLE_STORE = REPO / "examples" / "store"
LOCOMO_DEV = ("26", "30", "41", "42", "43")
LOCOMO_HELD_OUT = ("44", "47", "48", "49", "50")
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}  # 5, adversarial: left out
GET_LOCOMO = (
    "get it with `git clone https://github.com/snap-research/locomo`, then `make bench LOCOMO=locomo/data/locomo10.zip`"
)
K = 10
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


@dataclass
class Question:
    q: str
    answers: set[str]
    project: str | None = None
    as_of: str | None = None
    category: str = ""


@dataclass
class Ranks:
    """Where each question's first answer came (None: not in the first K)."""

    ranks: list[int | None] = field(default_factory=list)

    def at(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / len(self.ranks) if self.ranks else 0.0

    @property
    def mrr(self) -> float:
        return sum(1 / r for r in self.ranks if r is not None) / len(self.ranks) if self.ranks else 0.0

    def figures(self) -> dict:
        return {
            "n": len(self.ranks),
            "R@1": round(self.at(1), 3),
            "R@5": round(self.at(5), 3),
            "R@10": round(self.at(10), 3),
            "MRR@10": round(self.mrr, 3),
        }


# LoCoMo ----------------------------------------------------------------------------------------------------


def locomo_conversations(path: Path) -> dict[str, dict]:
    """Conversation id -> its record ({speaker_a, session_N_date_time, session_N_observation, qa, ...}), read from
    the zip, a folder holding the per-conversation files, or the single-file list layout."""
    path = Path(path)
    found: dict[str, dict] = {}
    if path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for name in sorted(z.namelist()):
                if name.endswith(".json"):
                    _add_locomo(found, Path(name).stem, json.load(io.TextIOWrapper(z.open(name), "utf-8")))
    elif path.is_dir():
        for file in sorted(path.rglob("*.json")):
            _add_locomo(found, file.stem, json.loads(file.read_text("utf-8")))
    else:
        _add_locomo(found, path.stem, json.loads(path.read_text("utf-8")))
    return found


def _add_locomo(found: dict[str, dict], stem: str, data) -> None:
    if isinstance(data, list):  # locomo10.json: [{sample_id, conversation, observation, qa, ...}]
        for sample in data:
            if isinstance(sample, dict) and "qa" in sample:
                record = {**sample.get("conversation", {}), **sample.get("observation", {}), "qa": sample["qa"]}
                found[re.sub(r"\D", "", str(sample.get("sample_id", ""))) or str(len(found))] = record
    elif isinstance(data, dict) and "qa" in data:
        found[stem] = data


def locomo_time(text: str) -> str:
    """'1:56 pm on 8 May, 2023' as UTC text."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ulid(ms: int, n: int) -> str:
    value = (ms << 80) | n
    return "".join(CROCKFORD[(value >> (5 * i)) & 31] for i in reversed(range(26)))


def write_locomo(root: Path, conversations: dict[str, dict]) -> dict[str, dict[str, str]]:
    """Each observation as a memory of project locomo-<conversation>; conversation -> dia_id -> memory id."""
    ids: dict[str, dict[str, str]] = {}
    n = 0
    for conv, record in conversations.items():
        project = f"locomo-{conv}"
        folder = root / "memories" / project
        folder.mkdir(parents=True)
        ids[conv] = {}
        sessions = sorted((int(m[1]), key) for key in record if (m := re.fullmatch(r"session_(\d+)_observation", key)))
        for session, key in sessions:
            when = locomo_time(record[f"session_{session}_date_time"])
            ms = int(datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp() * 1000)
            for _speaker, items in record[key].items():
                for text, dia in items:
                    n += 1
                    dias = dia if isinstance(dia, list) else [dia]
                    memory_id = ulid(ms, n)
                    name = f"observation-{n}"
                    for d in dias:
                        ids[conv].setdefault(d, memory_id)
                    meta = {
                        "id": memory_id,
                        "kind": "reference",
                        "name": name,
                        "description": " ".join(str(text).split()),
                        "project": project,
                        "created": when,
                        "updated": when,
                    }
                    body = "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n"
                    (folder / f"{name}.md").write_text(body, "utf-8")
    (root / "notes").mkdir(exist_ok=True)
    return ids


def locomo_asked_at(record: dict) -> str:
    """When a conversation's questions are asked: midnight (UTC) after its last session, so a time they name
    (`in June`, `last week`) is read as its speakers meant it, not against today."""
    last = max(locomo_time(record[k]) for k in record if re.fullmatch(r"session_\d+_date_time", k))
    day = datetime.strptime(last[:10], "%Y-%m-%d").replace(tzinfo=UTC) + timedelta(days=1)
    return day.strftime("%Y-%m-%dT%H:%M:%SZ")


def locomo_questions(conversations: dict[str, dict], ids: dict[str, dict[str, str]]) -> dict[str, list[Question]]:
    """Conversation -> its questions with evidence among the observations (not the adversarial ones), each asked
    the day after the conversation's last session."""
    asked: dict[str, list[Question]] = {}
    for conv, record in conversations.items():
        asked[conv] = []
        at = locomo_asked_at(record)
        for qa in record["qa"]:
            if qa.get("category") == 5:
                continue
            evidence = {f"D{a}:{b}" for e in qa.get("evidence", []) for a, b in re.findall(r"D:?(\d+):(\d+)", str(e))}
            answers = {ids[conv][d] for d in evidence if d in ids[conv]}
            if answers:
                asked[conv].append(
                    Question(str(qa["question"]), answers, f"locomo-{conv}", at, category=str(qa.get("category")))
                )
    return asked


# the labelled queries over examples/store and the coding store --------------------------------------------

CODING_STORE = FIXTURES / "coding-store"
# each file of tests/fixtures/recall: the store its questions are about, and when they are asked unless an entry says
# (the coding store was written as if today were 2026-12-07: "this morning", "the November sync")
LABELLED = {
    "questions.yaml": (EXAMPLE_STORE, None),
    "held-out.yaml": (EXAMPLE_STORE, None),
    "coding-dev.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-dev-extra.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-held-out.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-errors-dev.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-errors-held-out.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-held-out-2.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-errors-held-out-2.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-held-out-3.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
    "coding-errors-held-out-3.yaml": (CODING_STORE, "2026-12-07T12:00:00Z"),
}
# the files that hold pasted error lines only (their writer's word, not error_line's guess)
ERRORS_ONLY = frozenset(f for f in LABELLED if f.startswith("coding-errors-"))
PARTS = ("questions", "error lines", "keywords")
QUESTION_WORDS = frozenset(
    [
        "what",
        "why",
        "how",
        "which",
        "when",
        "where",
        "who",
        "whose",
        "whom",
        "can",
        "could",
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "should",
        "would",
        "will",
        "has",
        "have",
    ]
)


def error_line(text: str) -> bool:
    """Whether a labelled question is a pasted error or log line rather than one in plain words, for the figures
    apart (the files list both as questions): several lines; or, unless it opens with a question word, a prefix
    and a colon (`TypeError: ...`, `sed: 1: ...`), an exception's name, `error:`, a log's opening bracket or level,
    or, unless it ends with a question mark, quotes or a colon. Only the bench reads it: recall does not."""
    t = text.strip()
    if "\n" in t:
        return True
    if not t or t.split()[0].lower() in QUESTION_WORDS:
        return False
    return bool(
        re.match(r"\S+:(\s|$)", t)
        or re.search(r"[A-Za-z](Error|Exception|Warning)\b", t)
        or re.search(r"\berror:|:.*\berror\b", t, re.IGNORECASE)
        or re.match(r"\s*(\[|%|>|ERR|FATAL)", t)
        or (not t.endswith("?") and re.search(r"(?<![^\W\d_])'|'(?![^\W\d_])|[\"`]|:\s", t))
    )


def labelled_questions(file: str = "questions.yaml") -> tuple[str, dict[str, list[Question]]]:
    """The split of tests/fixtures/recall/<file> and its questions in plain words, error lines and keyword queries."""
    data = yaml.safe_load((FIXTURES / file).read_text("utf-8"))
    asked_at = LABELLED.get(file, (None, None))[1]
    parts: dict[str, list[Question]] = {part: [] for part in PARTS}
    for part in ("questions", "keywords"):
        for e in data.get(part) or ():
            as_of = e.get("as_of") or asked_at
            question = Question(str(e["q"]), {str(a) for a in e["answers"]}, None, str(as_of) if as_of else None)
            erring = part == "questions" and (file in ERRORS_ONLY or error_line(question.q))
            parts["error lines" if erring else part].append(question)
    return data["split"], parts


# asking ----------------------------------------------------------------------------------------------------


def ours(conn: sqlite3.Connection, question: Question) -> list[str]:
    return [r["id"] for r in queries.recall(conn, question.q, project=question.project, limit=K, as_of=question.as_of)]


BASELINE = """
SELECT coalesce(n.id, n.path) AS id, bm25(notes_fts) AS rank FROM notes_fts JOIN notes AS n ON n.rowid = notes_fts.rowid
WHERE notes_fts MATCH :fts AND (:project IS NULL OR n.project IS NULL OR n.project = :project)
UNION ALL
SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories AS m ON m.rowid = memories_fts.rowid
WHERE memories_fts MATCH :fts AND (:project IS NULL OR m.project IS NULL OR m.project = :project)
    AND coalesce(m.valid_from, '') <= :t AND (m.invalid_at IS NULL OR m.invalid_at > :t)
ORDER BY rank, id LIMIT 10
"""


def baseline_fts(text: str) -> str:
    """The plain baseline's query: the question's words OR-ed, stop words dropped (none left: all of them)."""
    words = list(dict.fromkeys(w.lower() for w in re.findall(r"[^\W_]+", text)))
    kept = [w for w in words if w not in recall_terms.STOP_WORDS] or words
    return " OR ".join(f'"{w}"' for w in kept)


def baseline(conn: sqlite3.Connection, question: Question) -> list[str]:
    fts = baseline_fts(question.q)
    if not fts:
        return []
    t = normalize(question.as_of) if question.as_of else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return [r[0] for r in conn.execute(BASELINE, {"fts": fts, "project": question.project, "t": t})]


def rank_of(found: list[str], answers: set[str]) -> int | None:
    return next((i for i, id_ in enumerate(found[:K], 1) if id_ in answers), None)


def score(conn: sqlite3.Connection, asked: list[Question], how) -> Ranks:
    return Ranks([rank_of(how(conn, q), q.answers) for q in asked])


# the runs ---------------------------------------------------------------------------------------------------


def locomo_figures(locomo: Path, work: Path, splits: tuple[str, ...]) -> list[dict]:
    """One row per (split, category or all, recall or baseline) on LoCoMo."""
    conversations = locomo_conversations(locomo)
    store = work / "locomo"
    ids = write_locomo(store, conversations)
    db = work / "locomo.db"
    index_store(store, db, full=True)
    asked = locomo_questions(conversations, ids)
    chosen = {
        "dev": LOCOMO_DEV,
        "held-out": LOCOMO_HELD_OUT,
        "all ten": LOCOMO_DEV + LOCOMO_HELD_OUT,
    }
    rows = []
    conn = sqlite3.connect(db)
    try:
        for split in splits:
            questions = [q for conv in chosen[split] for q in asked.get(conv, [])]
            for category in ("all", *map(str, LOCOMO_CATEGORIES)):
                these = [q for q in questions if category in ("all", q.category)]
                label = "all" if category == "all" else f"{category} {LOCOMO_CATEGORIES[int(category)]}"
                for who, how in (("recall", ours), ("baseline", baseline)):
                    rows.append(
                        {"set": f"LoCoMo {split}", "part": label, "who": who, **score(conn, these, how).figures()}
                    )
    finally:
        conn.close()
    return rows


def labelled_figures(work: Path, files: tuple[str, ...]) -> list[dict]:
    """One row per (split, questions, error lines or keywords, recall or baseline) on examples/store and the coding
    store."""
    rows = []
    for store in dict.fromkeys(LABELLED[f][0] for f in files):
        db = work / f"{store.name}.db"
        index_store(store, db, full=True)
        conn = sqlite3.connect(db)
        try:
            for file in (f for f in files if LABELLED[f][0] == store):
                split, parts = labelled_questions(file)
                for part, asked in parts.items():
                    for who, how in (("recall", ours), ("baseline", baseline)):
                        figures = score(conn, asked, how).figures()
                        if figures["n"]:
                            rows.append({"set": f"{_store_name(store)} {split}", "part": part, "who": who, **figures})
        finally:
            conn.close()
    return rows


def _store_name(store: Path) -> str:
    return "examples/store" if store == EXAMPLE_STORE else store.name


def quality_table(rows: list[dict]) -> str:
    lines = [
        "| set | part | who | n | R@1 | R@5 | R@10 | MRR@10 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r['set']} | {r['part']} | {r['who']} | {r['n']} | {r['R@1']:.3f} | {r['R@5']:.3f} | {r['R@10']:.3f} | {r['MRR@10']:.3f} |"
        for r in rows
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.recall", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--locomo", type=Path, help="LoCoMo: its locomo10.zip, the folder it unzips to, or locomo10.json"
    )
    parser.add_argument("--splits", default="dev,held-out,all ten", help="LoCoMo's splits to measure, comma-separated")
    parser.add_argument(
        "--labelled", default=",".join(LABELLED), help="the labelled files of tests/fixtures/recall to measure"
    )
    parser.add_argument("--sizes", default="100000", help="memories in the generated store the speed is measured on")
    parser.add_argument("--no-speed", action="store_true", help="quality only")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="recall-", dir=args.out))
    report: dict = {"command": " ".join(["python -m bench.recall", *(sys.argv[1:] if argv is None else argv)])}
    try:
        files = tuple(f for f in args.labelled.split(",") if f in LABELLED and (FIXTURES / f).exists())
        rows = labelled_figures(work, files)
        if args.locomo:
            rows += locomo_figures(args.locomo, work, tuple(s.strip() for s in args.splits.split(",")))
        else:
            print(f"LoCoMo not measured: {GET_LOCOMO}", file=sys.stderr)
        report["quality"] = rows
        print(quality_table(rows), flush=True)
        if not args.no_speed:
            from .recall_speed import speed_figures, speed_table

            report["speed"] = speed_figures(args.out / "stores", [int(s) for s in args.sizes.split()])
            print("\n" + speed_table(report["speed"]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (args.out / "recall.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
