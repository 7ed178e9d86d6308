"""The gardener reads (SPEC section 12): duplicates, contradictions and vague descriptions, found at index time,
listed by `seamless gardener`, the `gardener` query and the explorer's "Needs a human", and named as hints when a
memory is written. Real stores on disk, the real indexer, the real CLI and Datasette."""

import json
import shlex

import pytest
from click.testing import CliRunner
from stores import dump

from bench import gardener_loso
from bench.gardener import labelled_archives, labelled_descriptions, labelled_stores, quality, splits, write_store
from indexer import gardener
from indexer.edit.store_write import write_memory
from indexer.front.cli import cli
from indexer.front.serve import build_datasette
from indexer.gardener import proposals, reading, rules
from indexer.index import database
from indexer.index.build import index_paths, index_store
from indexer.query import queries
from indexer.sqlite import sqlite3
from indexer.store.settings import DEFAULTS

AS_OF = "2027-01-01"

# What each split gave (bench/gardener.py, docs/queries.md) with issue 36's rules (RULES_VERSION 6), rounded down to
# 0.05, as a floor: a change that lowers one fails here. kind -> split -> (precision, recall). Every split was
# development data for those rules (issue-36 written with them, from the families of wrong proposals; held-out-8
# after it was measured once, below).
FLOORS = {
    "duplicate": {"dev": (1.0, 0.1), "held-out": (1.0, 0.3), "held-out-2": (1.0, 0.65), "held-out-3": (1.0, 0.25),
                  "held-out-4": (1.0, 0.3), "held-out-5": (1.0, 0.1), "held-out-6": (1.0, 0.1),
                  "held-out-7": (1.0, 0.15), "issue-36": (1.0, 1.0), "held-out-8": (1.0, 0.3), "held-out-9": (0.8, 0.4)},
    "contradiction": {"dev": (1.0, 0.3), "held-out": (1.0, 0.3), "held-out-2": (1.0, 0.4), "held-out-3": (1.0, 0.45),
                      "held-out-4": (1.0, 0.15), "held-out-5": (1.0, 0.3), "held-out-6": (1.0, 0.35),
                      "held-out-7": (1.0, 0.25), "issue-36": (1.0, 0.65), "held-out-8": (1.0, 0.3),
                      "held-out-9": (1.0, 0.15)},
    "vague-description": {"dev": (1.0, 1.0), "held-out": (1.0, 0.95), "held-out-2": (1.0, 0.8), "held-out-3": (1.0, 0.75),
                          "held-out-4": (1.0, 0.85), "held-out-5": (1.0, 0.9),
                          "held-out-6": (1.0, 0.8), "held-out-7": (1.0, 0.9), "held-out-8": (1.0, 0.9)},
    "archive-stage": {"held-out-8": (1.0, 1.0)},
    "archive-stale": {"held-out-8": (0.25, 0.8)},
}  # fmt: skip
# Each kind's last blind split, written after the rules were frozen and measured once (docs/queries.md): held-out-9
# after RULES_VERSION 6 for the pair kinds, held-out-8 after RULES_VERSION 5 for the others (the only split with
# archives). Its precision then decides whether the kind is on by default; and the setting that turns each on.
MEASURED_ONCE = {"duplicate": ("held-out-9", 0.83), "contradiction": ("held-out-9", 1.0),
                 "vague-description": ("held-out-8", 1.0), "archive-stage": ("held-out-8", 1.0),
                 "archive-stale": ("held-out-8", 0.25)}  # fmt: skip
SETTING = {"duplicate": "gardener.duplicates", "contradiction": "gardener.contradictions",
           "vague-description": "gardener.vague_descriptions", "archive-stale": "gardener.stale_memories"}  # fmt: skip
# A split added to the fixture files (written by someone who never saw the rules) is held to precision 0.9 for each
# kind (SPEC 12); its recall is reported, not held (issue 36: precision first)
TARGETS = dict.fromkeys(FLOORS, (0.9, 0.0))


def test_precision_and_recall_hold_their_floor_on_every_labelled_split():
    scores = quality()
    with_pairs = {s for s in splits() if any(store["pairs"] for store in labelled_stores(s))}
    with_descriptions = {s for s in splits() if labelled_descriptions(s)}
    assert {(s.kind, s.split) for s in scores} == {
        *((kind, split) for kind in ("duplicate", "contradiction") for split in with_pairs),
        *(("vague-description", split) for split in with_descriptions),
        *(
            (kind, split)
            for kind in ("archive-stage", "archive-stale")
            for split in splits()
            if labelled_archives(split)
        ),
    }
    below = []
    for s in scores:
        precision, recall = FLOORS[s.kind].get(s.split, TARGETS[s.kind])
        if s.precision < precision or s.recall < recall:
            below.append(f"{s.kind} {s.split}: {s.precision:.2f}/{s.recall:.2f} (floor {precision}/{recall})")
    assert not below, below
    # bench/gardener_loso.py judges the pairs in-process, as the index does: its figures are the indexed ones
    for split in with_pairs:
        for kind, score in gardener_loso.scores(gardener_loso.cases(split)).items():
            indexed = next(s for s in scores if (s.kind, s.split) == (kind, split))
            assert (score.right, score.proposed, score.labelled) == (indexed.right, indexed.proposed, indexed.labelled)


def test_a_kind_below_09_on_the_blind_split_is_off_by_default():
    """SPEC 12: what the gardener is not sure of it does not assert; a store turns such a kind on in seamless.toml."""
    precision = {kind: figure for kind, (_, figure) in MEASURED_ONCE.items()}
    assert {kind: DEFAULTS[key] for kind, key in SETTING.items()} == {k: precision[k] >= 0.9 for k in SETTING}
    assert precision["archive-stage"] >= 0.9  # stale stages are always proposed (SPEC 4)
    now = {(s.kind, s.split): s.precision for s in quality(sorted({split for split, _ in MEASURED_ONCE.values()}))}
    assert all(now[kind, split] >= figure - 0.005 for kind, (split, figure) in MEASURED_ONCE.items())  # only gained


def test_the_labelled_set_is_large_enough():
    pairs = [p for store in labelled_stores() for p in store["pairs"]]
    assert len(pairs) >= 60
    assert {p[2] for p in pairs} == {"duplicate", "contradiction", "different"}
    assert sum(len(s["vague"]) + len(s["concrete"]) for s in labelled_descriptions()) >= 60


def found(db, as_of=AS_OF) -> dict[str, list[dict]]:
    rows = proposals(db, as_of=as_of)
    return {
        kind: [r for r in rows if r["proposal"] == kind] for kind in ("duplicate", "contradiction", "vague-description")
    }


def named(rows: list[dict], written: dict) -> set[frozenset]:
    name_of = {meta["id"]: name for name, meta in written.items()}
    return {frozenset(name_of[i] for i in r["ids"]) for r in rows}


@pytest.fixture
def labelled(tmp_path):
    """The dev stores and the cross-scope one, written and indexed: (root, db, written)."""
    stores = labelled_stores("dev") + labelled_stores("cross-scope")
    written = write_store(tmp_path / "store", stores)
    db = tmp_path / "index.db"
    index_store(tmp_path / "store", db)
    return tmp_path / "store", db, written


def test_each_proposal_names_its_memories_newest_last_and_says_why(labelled):
    _root, db, written = labelled
    rows = found(db)
    assert named(rows["contradiction"], written) >= {frozenset({"chroma-port-8765", "chroma-dev-port"})}
    assert named(rows["duplicate"], written) >= {frozenset({"webhooks-verify-signature", "webhook-raw-body"})}
    created = {meta["id"]: meta["created"] for meta in written.values()}
    for row in rows["contradiction"] + rows["duplicate"]:
        assert row["ids"] == sorted(row["ids"], key=lambda i: (created[i], i)), row
        assert row["id"] == row["ids"][0]  # the older: the one to supersede
        newer = row["ids"][-1]
        assert newer in row["reason"] and "which is newer" in row["reason"]
        assert row["command"].startswith("seamless write ") and row["command"].endswith(f"--supersedes {row['id']}")
    chroma = next(r for r in rows["contradiction"] if r["name"] == "chroma-port-8765")
    assert "8765" in chroma["reason"] and "9000" in chroma["reason"]


def test_no_proposal_crosses_scopes(labelled):
    _root, db, written = labelled
    project_of = {meta["id"]: meta["project"] for meta in written.values()}
    for row in queries.run(db, "gardener", as_of=AS_OF):
        assert len({project_of[i] for i in json.loads(row["ids"])}) == 1, row
    # the same text in a project and globally is not a duplicate
    pairs = named(found(db)["duplicate"], written)
    assert frozenset({"tidepool-sed-in-place", "bsd-sed-in-place-suffix"}) not in pairs


def test_a_superseded_memory_is_never_part_of_a_proposal(labelled):
    _root, db, written = labelled
    superseded = {meta["id"] for meta in written.values() if meta["superseded_by"]}
    assert superseded
    assert not any(superseded & set(json.loads(r["ids"])) for r in queries.run(db, "gardener", as_of=AS_OF))


def test_the_suggested_command_supersedes_the_older_memory(labelled):
    root, db, _written = labelled
    row = next(r for r in found(db)["contradiction"] if r["name"] == "chroma-port-8765")
    argv = shlex.split(row["command"])
    assert argv[:3] == ["seamless", "write", str(root.resolve())]
    result = CliRunner().invoke(cli, [*argv[1:], "--db", str(db)])
    assert result.exit_code == 0, result.output
    history = queries.run(db, "history", id=row["id"])  # chroma-port-8765 had replaced chroma-port-8001
    assert [(h["id"], h["status"]) for h in history][-2:] == [(row["id"], "superseded"), (row["ids"][-1], "active")]
    assert all(row["id"] not in r["ids"] for rows in found(db).values() for r in rows)


def test_as_of_lists_a_proposal_only_while_its_memories_are_valid(labelled):
    _root, db, written = labelled
    # chroma-dev-port was written on 2026-08-11: before that, the contradiction was not there yet
    pair = frozenset({"chroma-port-8765", "chroma-dev-port"})
    assert pair in named(found(db, "2026-09-01")["contradiction"], written)
    assert pair not in named(found(db, "2026-08-01")["contradiction"], written)


def test_the_cli_lists_proposals_with_their_command_and_json_ids(labelled):
    _root, db, _written = labelled
    text = CliRunner().invoke(cli, ["gardener", "--as-of", AS_OF, "--db", str(db)])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0].startswith("contradiction in ")  # what disagrees comes first, in groups of one kind and project
    assert lines[1].startswith("  all ") and " --kind contradiction --project " in lines[1]  # a group's dismissal
    assert "which is newer" in lines[2]
    assert lines[3].startswith("    seamless write ") and lines[3].endswith(f"--db {db}")
    assert lines[4].startswith("    seamless gardener dismiss ") and lines[4].endswith(f"--db {db}")
    data = json.loads(CliRunner().invoke(cli, ["gardener", "--as-of", AS_OF, "--json", "--db", str(db)]).output)
    assert {r["proposal"] for r in data} >= {"duplicate", "contradiction", "archive"}
    assert all(isinstance(r["ids"], list) and r["reason"] for r in data)


async def test_needs_a_human_names_and_links_both_memories(labelled):
    _root, db, _written = labelled
    ds = build_datasette(db)
    await ds.invoke_startup()
    page = (await ds.client.get(f"/?as_of={AS_OF}")).text
    row = next(r for r in found(db)["contradiction"] if r["name"] == "chroma-port-8765")
    for memory_id in row["ids"]:
        assert f'/seamless/memories/{memory_id}"' in page
    assert "<strong>Contradiction</strong>" in page and "which is newer" in page
    rows = (await ds.client.get(f"/seamless/needs_human.json?_shape=array&as_of={AS_OF}")).json()
    proposals_listed = [r for r in rows if r["section"] == "proposal"]
    kinds = [r["proposal"] for r in proposals_listed]
    assert kinds == sorted(kinds, key=["contradiction", "duplicate", "vague-description", "archive"].index)
    assert len(proposals_listed) <= 20  # all of them on the home page (the windows past 20: test_needs_human_page)
    assert all(f'/seamless/memories/{r["id"]}"' in page for r in proposals_listed)
    assert all(json.loads(r["ids"]) for r in proposals_listed)
    view = (await ds.client.get("/seamless/gardener_proposals.json?_shape=array")).json()
    assert {r["proposal"] for r in view} >= {"duplicate", "contradiction"}


# --- write-time hints ---


def test_a_write_names_a_vague_description_a_contradiction_and_a_duplicate(tmp_path):
    root, db = tmp_path / "store", tmp_path / "index.db"
    (root / "memories").mkdir(parents=True)
    (root / "seamless.toml").write_text("[gardener]\nduplicates = true\ncontradictions = true\n")
    first = write_memory(root, db, project="seamless", new_project=True, kind="decision", name="chroma-port-8765",
                         description="Chroma server on localhost:8765 (CHROMA_PORT=8765 in .env)")  # fmt: skip
    assert first.hints == []
    runner = CliRunner()
    args = ["write", str(root), "--project", "seamless", "--kind", "reference", "--db", str(db)]
    result = runner.invoke(cli, [*args, "--name", "chroma-dev-port", "--json",
                                 "--description", "Chroma HTTP server for local dev: localhost:9000, CHROMA_PORT=9000"])  # fmt: skip
    assert result.exit_code == 0, result.output
    hints = json.loads(result.output)["hints"]
    assert [h["hint"] for h in hints] == ["contradiction"]
    assert hints[0]["ids"][0] == first.id and "8765" in hints[0]["message"] and first.id in hints[0]["message"]
    plain = runner.invoke(cli, [*args, "--name", "console-notes", "--description", "notes about the console"])
    assert plain.exit_code == 0  # a hint, never a refusal
    assert "hint: vague description" in plain.output
    again = write_memory(root, db, project="seamless", kind="gotcha", name="chroma-port-again",
                         description="The Chroma server listens on localhost:8765 (CHROMA_PORT=8765 in .env)")  # fmt: skip
    assert "duplicate" in [h["hint"] for h in again.hints]


async def test_the_mcp_write_result_carries_the_hints(store):
    from test_mcp import call, connected

    async with connected(store) as session:
        result = await call(session, "memory_write", kind="gotcha", name="misc", description="Misc tips",
                            project="seamless", new_project=True)  # fmt: skip
    assert [h["hint"] for h in result["hints"]] == ["vague-description"]


# --- bad input ---


@pytest.mark.parametrize(
    "description",
    [
        "8765 8001 6379",
        "!!! ??? ...",
        "---",
        "   ·   ",
        "控制台的笔记",
        "заметки о консоли",
        "ملاحظات حول وحدة التحكم",
        "🙂🙂",
        "¹²³ ① ⅷ",  # digits to isdigit(), not to int()
        "port ٨٠٨٠ ९०",  # decimal digits of other scripts
    ],
)
def test_odd_descriptions_are_read_without_a_crash(description):
    read = reading.read("a-name", description)
    assert isinstance(read.signature, str)
    for other in (reading.read("b", description), reading.read("other", description + " x")):
        verdict = rules.judge(read, other)
        assert verdict is None or verdict.proposal in ("duplicate", "contradiction")


def test_numbers_punctuation_and_other_scripts_give_clear_proposals(tmp_path):
    memories = {
        "numbers-only": "8765 8001 6379",
        "punctuation-only": "!!! ??? ...",
        "cjk-notes": "控制台的笔记",
        "cjk-port": "控制台服务器监听端口 8765,在 .env 中设置 CHROMA_PORT=8765",
        "cyrillic-port": "Сервер Chroma слушает порт 8765 (CHROMA_PORT=8765 в .env)",
        "cyrillic-port-again": "Сервер Chroma слушает порт 8765: CHROMA_PORT=8765 в файле .env",
        "arabic": "الخادم يستمع على المنفذ 8765 (CHROMA_PORT=8765)",
    }
    stores = [{"scope": "odd", "memories": {n: {"kind": "gotcha", "created": "2026-06-01", "description": d}
                                            for n, d in memories.items()}}]  # fmt: skip
    written = write_store(tmp_path / "store", stores)
    db = tmp_path / "index.db"
    summary = index_store(tmp_path / "store", db)
    assert summary.errors == 0
    rows = found(db)
    vague = named(rows["vague-description"], written)
    assert {frozenset({"numbers-only"}), frozenset({"punctuation-only"})} <= vague
    reason = next(r["reason"] for r in rows["vague-description"] if r["name"] == "numbers-only")
    assert "no words, only numbers or punctuation" in reason
    assert frozenset({"cyrillic-port", "cyrillic-port-again"}) in named(rows["duplicate"], written)
    assert not any("arabic" in pair for pair in named(rows["contradiction"], written))


def test_an_empty_description_is_the_indexer_s_error_not_the_gardener_s(store):
    store.memory("blank", description="")
    summary = store.index()
    assert [p.code for p in summary.problems] == ["missing-description"]
    assert proposals(store.db_path) == []


def test_ten_thousand_copies_of_one_description_are_one_proposal(tmp_path):
    root = tmp_path / "store"
    folder = root / "memories" / "fleet"
    folder.mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "seamless.toml").write_text("[gardener]\nduplicates = true\n")
    text = "---\nid: {id}\nkind: gotcha\nname: copy-{n}\ndescription: Restart the worker after a deploy\nproject: fleet\n" \
        "created: 2026-06-01T00:00:00Z\n---\nBody.\n"  # fmt: skip
    for n in range(10_000):
        (folder / f"copy-{n}.md").write_text(text.format(id=f"01K{n:023d}", n=n))
    db = tmp_path / "index.db"
    assert index_store(root, db).gardener_behind  # too many to settle in the run: a settle of its own
    gardener.settle_all(db, database)
    rows = found(db)
    assert len(rows["duplicate"]) == 1 and len(rows["duplicate"][0]["ids"]) == 10_000
    assert rows["contradiction"] == []
    assert "10000 active memories of fleet have the same description" in rows["duplicate"][0]["reason"]
    # one more, through an index run for its path alone: still one proposal
    (folder / "copy-x.md").write_text(text.format(id="01KX" + "0" * 22, n="x"))
    index_paths(root, db, ["memories/fleet/copy-x.md"])
    rows = found(db)
    assert len(rows["duplicate"]) == 1 and len(rows["duplicate"][0]["ids"]) == 10_001


# --- index runs for some paths settle as a run over the whole store would ---


def test_paths_runs_settle_the_findings_as_a_full_run_would(tmp_path):
    stores = labelled_stores("dev")
    root = tmp_path / "store"
    written = write_store(root, stores)
    db = tmp_path / "index.db"
    index_store(root, db)
    by_name = {
        name: root / "memories" / ("_global" if meta["project"] == "" else meta["project"])
        for name, meta in written.items()
    }
    changes = []
    # an edit that makes a duplicate a contradiction, a deletion, a new copy, a memory that stops being active
    path = by_name["chroma-port-in-env"] / "chroma-port-in-env.md"
    path.write_text(path.read_text().replace("8765", "8766"))
    changes.append(path)
    gone = by_name["rebuild-seamless-db"] / "rebuild-seamless-db.md"
    gone.unlink()
    changes.append(gone)
    copy = by_name["mcp-no-print"] / "mcp-no-print-copy.md"
    copy.write_text((by_name["mcp-no-print"] / "mcp-no-print.md").read_text()
                    .replace(written["mcp-no-print"]["id"], "01KZZZZZZZZZZZZZZZZZZZZZZZ").replace("name: mcp-no-print", "name: mcp-no-print-copy"))  # fmt: skip
    changes.append(copy)
    archived = by_name["release-with-twine"] / "release-with-twine.md"
    archived.write_text(archived.read_text().replace("invalid_at: null", "invalid_at: 2026-10-01T00:00:00Z"))
    changes.append(archived)
    for path in changes:
        index_paths(root, db, [path])
    fresh = tmp_path / "fresh.db"
    index_store(root, fresh, full=True)
    assert dump(db) == dump(fresh)
    assert dump(db)["gardener_findings"]  # something to compare


def test_the_common_word_cap_keeps_paths_runs_in_step(tmp_path):
    """A word that crosses the count of groups past which it no longer brings two together changes the pairs of
    every group holding it: a paths run settles them all."""
    from indexer.gardener import findings

    root = tmp_path / "store"
    folder = root / "memories" / "cap"
    folder.mkdir(parents=True)
    (root / "notes").mkdir()
    n = findings.COMMON

    def write(i: int, word: str) -> None:
        (folder / f"m-{i}.md").write_text(
            f"---\nid: 01K{i:023d}\nkind: gotcha\nname: m-{i}\nproject: cap\ncreated: 2026-06-01T00:00:00Z\n"
            f"description: Zorblax {word} {i} port {8000 + i} for unit u{i}\n---\nBody.\n"
        )

    for i in range(n):
        write(i, "grommet")
    db = tmp_path / "index.db"
    index_store(root, db)
    assert postings(db, "grommet") == n
    write(n, "grommet")  # `grommet` and `zorblax` are now in COMMON + 1 groups: counted, no longer posted
    index_paths(root, db, [folder / f"m-{n}.md"])
    assert postings(db, "grommet") == 0 and common(db, "grommet") == n + 1
    fresh = tmp_path / "fresh.db"
    index_store(root, fresh, full=True)
    assert dump(db) == dump(fresh)
    (folder / f"m-{n}.md").unlink()
    index_paths(root, db, [folder / f"m-{n}.md"])
    assert postings(db, "grommet") == n and common(db, "grommet") is None
    index_store(root, fresh, full=True)
    assert dump(db) == dump(fresh)


def postings(db, term: str) -> int:
    from indexer.gardener.findings import _hash

    with sqlite3.connect(db) as conn:
        key = _hash(reading.stem(term), 4)
        return conn.execute("select count(*) from gardener_terms where term = ?", (key,)).fetchone()[0]


def common(db, term: str) -> int | None:
    from indexer.gardener.findings import _hash

    with sqlite3.connect(db) as conn:
        row = conn.execute("select groups from gardener_common where term = ?", (_hash(reading.stem(term), 4),))
        found = row.fetchone()
    return found[0] if found else None


def test_a_kind_turned_off_in_the_settings_is_not_proposed(tmp_path):
    """SPEC 12: a kind not sure enough is off by default, and `seamless.toml` turns it on (or off) again: the findings
    are settled anew with the kinds the store's settings turn on."""
    root = tmp_path / "store"
    written = write_store(root, labelled_stores("dev"))
    (root / "seamless.toml").unlink()  # the defaults: duplicates did not hold 0.9 on their blind split
    db = tmp_path / "index.db"
    index_store(root, db)
    assert {kind for kind, rows in found(db).items() if rows} == {"contradiction"}
    (root / "seamless.toml").write_text("[gardener]\nduplicates = true\ncontradictions = true\n")
    index_store(root, db)
    assert {kind for kind, rows in found(db).items() if rows} == {"duplicate", "contradiction"}
    (root / "seamless.toml").write_text("[gardener]\ncontradictions = true\n")
    index_store(root, db)
    assert {kind for kind, rows in found(db).items() if rows} == {"contradiction"}
    assert named(found(db)["contradiction"], written) >= {frozenset({"chroma-port-8765", "chroma-dev-port"})}
    (root / "seamless.toml").write_text("[gardener]\nduplicates = true\ncontradictions = false\n")
    index_store(root, db)
    assert {kind for kind, rows in found(db).items() if rows} == {"duplicate"}
