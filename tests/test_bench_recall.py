"""bench.recall reads LoCoMo as the user has it (the zip, its folder, the older single file) and scores recall on it;
shown here on a two-conversation stand-in written in LoCoMo's shape (the real data is never in the repository)."""

import json
import zipfile

import pytest

from bench import recall as bench_recall


def conversation(a: str, b: str) -> dict:
    return {
        "speaker_a": a,
        "speaker_b": b,
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_1_observation": {
            a: [[f"{a} attended an LGBTQ support group recently.", "D1:3"]],
            b: [[f"{b} painted a lake sunrise last year.", "D1:14"], [f"{b} has two kids.", ["D1:2", "D1:4"]]],
        },
        "session_2_observation": {a: [[f"{a} is planning a trip to Sweden.", "D2:5"]]},
        "qa": [
            {
                "question": f"When did {a} go to the LGBTQ support group?",
                "answer": "7 May 2023",
                "evidence": ["D1:3"],
                "category": 2,
            },
            {"question": f"What did {b} paint?", "answer": "a sunrise", "evidence": ["D1:14; D2:5"], "category": 4},
            {"question": f"How many kids does {b} have?", "answer": "two", "evidence": ["D1:4"], "category": 1},
            {
                "question": f"Where is {a} from?",
                "answer": "Sweden",
                "evidence": ["D9:9"],
                "category": 3,
            },  # no observation
            {"question": f"What did {a} paint?", "adversarial_answer": "a lake", "evidence": ["D1:14"], "category": 5},
        ],
    }


@pytest.fixture
def layouts(tmp_path) -> dict:
    """The same two conversations as locomo10.zip, the folder it unzips to, and the older locomo10.json."""
    data = {"26": conversation("Caroline", "Melanie"), "30": conversation("Jon", "Gina")}
    folder = tmp_path / "data" / "multimodal_dialog" / "locomo10_v2"
    folder.mkdir(parents=True)
    for conv, record in data.items():
        (folder / f"{conv}.json").write_text(json.dumps(record))
    archive = tmp_path / "locomo10.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for conv, record in data.items():
            z.writestr(f"data/multimodal_dialog/locomo10_v2/{conv}.json", json.dumps(record))
    single = tmp_path / "locomo10.json"
    single.write_text(
        json.dumps(
            [
                {
                    "sample_id": f"conv-{conv}",
                    "conversation": {k: v for k, v in r.items() if k.startswith(("speaker", "session"))},
                    "observation": {k: v for k, v in r.items() if k.endswith("_observation")},
                    "qa": r["qa"],
                }
                for conv, r in data.items()
            ]
        )
    )
    return {"zip": archive, "folder": tmp_path / "data", "json": single}


def test_each_layout_gives_the_same_conversations(layouts):
    read = {name: bench_recall.locomo_conversations(path) for name, path in layouts.items()}
    assert sorted(read["zip"]) == sorted(read["folder"]) == sorted(read["json"]) == ["26", "30"]
    for conv in ("26", "30"):
        assert read["zip"][conv]["qa"] == read["folder"][conv]["qa"] == read["json"][conv]["qa"]
        assert read["zip"][conv]["session_1_observation"] == read["json"][conv]["session_1_observation"]


def test_questions_with_evidence_among_the_observations_and_not_adversarial(layouts, tmp_path):
    conversations = bench_recall.locomo_conversations(layouts["zip"])
    ids = bench_recall.write_locomo(tmp_path / "store", conversations)
    asked = bench_recall.locomo_questions(conversations, ids)
    assert [q.category for q in asked["26"]] == ["2", "4", "1"]  # category 5 and evidence D9:9 left out
    sunrise = asked["26"][1]
    assert sunrise.answers == {ids["26"]["D1:14"], ids["26"]["D2:5"]}  # "D1:14; D2:5": both
    assert asked["26"][2].answers == {ids["26"]["D1:4"]}  # an observation of several dia_ids answers for each
    assert sunrise.project == "locomo-26"


def test_the_bench_scores_recall_and_the_baseline_on_it(layouts, tmp_path, capsys):
    labelled = "questions.yaml,coding-dev.yaml"
    bench_recall.main(
        ["--locomo", str(layouts["folder"]), "--labelled", labelled, "--no-speed", "--out", str(tmp_path)]
    )
    report = json.loads((tmp_path / "recall.json").read_text())
    rows = {(r["set"], r["part"], r["who"]): r for r in report["quality"]}
    assert rows[("LoCoMo all ten", "all", "recall")]["n"] == 6
    assert rows[("LoCoMo all ten", "all", "recall")]["R@10"] == 1.0  # each question shares a word with its answer
    assert ("LoCoMo dev", "2 temporal", "baseline") in rows
    assert ("examples/store dev", "keywords", "recall") in rows
    for part in ("questions", "error lines", "keywords"):  # each beside the baseline
        assert ("coding-store coding-dev", part, "baseline") in rows
    assert "| LoCoMo all ten | all | recall | 6 |" in capsys.readouterr().out


def test_without_locomo_the_bench_says_how_to_get_it_and_goes_on(tmp_path, capsys):
    bench_recall.main(["--labelled", "held-out.yaml", "--no-speed", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "git clone https://github.com/snap-research/locomo" in err


@pytest.mark.parametrize(
    "text",
    [
        "TypeError: can't compare offset-naive and offset-aware datetimes",
        'sed: 1: "config.yml": invalid command code c',
        "exec /app/tracker: exec format error",
        "[2026-12-01 16:02:44 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:311)",
        'Error: Failed to resolve import "@/hooks/useDepot" from "src/routes/Planner.tsx". Does the file exist?',
        "Uncaught ReferenceError: process is not defined\n    at env.ts:5:22",
        "no such column: boot",
    ],
)
def test_an_error_line_is_told_apart_from_a_question(text):
    assert bench_recall.error_line(text)


@pytest.mark.parametrize(
    "text",
    [
        "why did we stop running chroma as a server?",
        "customers are getting the monthly statement email twice",
        "the app container can't reach postgres at startup even though compose started the database first",
        "what does 'frozen lockfile' mean?",
        "which Python version do new projects have to support?",
    ],
)
def test_a_question_in_plain_words_is_no_error_line(text):
    assert not bench_recall.error_line(text)
