"""``ambi score``: saved per-item answers -> the papers' per-category tables, on answer sets whose
accuracies are known by construction."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from illusion_fixtures import constructed_answers, illusionbench_copy, shared_rows

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.cli import main
from ambi_plugin.core.schema import read_records
from ambi_plugin.reports.answers import ScoreError, majority_vote
from ambi_plugin.reports.paper_tables import tables_from_results
from ambi_plugin.reports.rescore import score_answers

COMP = "ambi_illusionvqa_comprehension"


def _release(shared_data: Path, task: str = "comprehension") -> Path:
    return shared_data / "illusionvqa" / ("comprehension_test_435.jsonl" if task == "comprehension" else "soft_localization_test_1000.jsonl")  # fmt: skip


def test_per_category_accuracy_known_by_construction(tmp_path, shared_data):
    rows = shared_rows(shared_data, "comprehension")
    answers, right, unreadable = constructed_answers(rows)
    path = tmp_path / "model_x.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers))
    report = score_answers(COMP, path, records=_release(shared_data))
    vals = report.values["model_x"]
    for cat in IV.CATEGORIES:
        slug = cat.replace(" ", "_").replace("-", "_")
        assert vals[f"acc_{slug}"] == pytest.approx(right[cat] / IV.PAPER_COUNTS[cat]), cat
    assert vals["acc"] == pytest.approx(sum(right.values()) / 435)
    assert vals["unparsed"] == unreadable == 3
    lines = report.text.splitlines()
    for cat in IV.CATEGORIES:
        want = f"{100 * right[cat] / IV.PAPER_COUNTS[cat]:.2f}"
        row = next(ln for ln in lines if ln.startswith(f"| {IV.TITLES[cat]} "))
        assert [c.strip() for c in row.strip("|").split("|")] == [IV.TITLES[cat], str(IV.PAPER_COUNTS[cat]), want]
    total = next(ln for ln in lines if ln.startswith("| Total "))
    assert f"{100 * sum(right.values()) / 435:.2f}" in total and "| 435 " in total
    assert "Question types (Table 5)" in report.text and "| 114 " in report.text


def _authors_file(tmp_path: Path, rows: list[dict], plan) -> Path:
    """The authors' release layout: a JSON list of dataset fields plus answer columns holding option texts."""
    out = []
    for r in rows:
        row = {k: r[k] for k in ("question", "options", "answer", "image", "category", "id")}
        row.update(plan(r))
        out.append(row)
    path = tmp_path / "illusionvqa_comprehension_results.json"
    path.write_text(json.dumps(out, indent=1))
    return path


def test_authors_layout_columns_and_majority_vote(tmp_path, shared_data):
    rows = shared_rows(shared_data, "comprehension")

    def plan(r: dict) -> dict:
        n, gold, i = len(r["options"]), r["options"].index(r["answer"]), int(r["id"])
        wrong = [r["options"][(gold + d) % n] for d in (1, 2)]
        kind = i % 4  # 0: all right; 1: two right; 2: one right (three different answers); 3: two agree on wrong
        humans = {
            0: [r["answer"]] * 3,
            1: [r["answer"], r["answer"], wrong[0]],
            2: [r["answer"], wrong[0], wrong[1] if n > 2 else wrong[0]],
            3: [wrong[0], wrong[0], r["answer"]],
        }[kind]
        return {"GPT_0_SHOT": r["answer"] if i % 2 == 0 else wrong[0], "HUMAN_ANSWER_1": humans[0],
                "HUMAN_ANSWER_2": humans[1], "HUMAN_ANSWER_3": humans[2], "HUMAN_TIME_1": 3.5}  # fmt: skip

    path = _authors_file(tmp_path, rows, plan)
    humans = ["HUMAN_ANSWER_1", "HUMAN_ANSWER_2", "HUMAN_ANSWER_3"]
    report = score_answers(COMP, path, vote=humans, vote_name="Human", records=_release(shared_data))
    assert list(report.values) == ["GPT_0_SHOT", *humans, "Human"]  # auto-detected text columns, then the vote
    ids = [int(r["id"]) for r in rows]
    kinds = [i % 4 for i in ids]
    assert report.values["GPT_0_SHOT"]["acc"] == pytest.approx(sum(i % 2 == 0 for i in ids) / 435)
    assert report.values["HUMAN_ANSWER_1"]["acc"] == pytest.approx(sum(k in (0, 1, 2) for k in kinds) / 435)
    assert report.values["HUMAN_ANSWER_3"]["acc"] == pytest.approx(sum(k in (0, 3) for k in kinds) / 435)
    # kinds 0 and 1 are right by majority, kind 3 wrong; kind 2 is a three-way tie when there are 3+ options
    ties = [r for r in rows if int(r["id"]) % 4 == 2 and len(r["options"]) > 2]
    tie_right = 0
    for r in ties:
        rec = IV.record_from_row(r, task="comprehension", image="x", where="t")
        gold = rec["answer_index"]
        voters = [rec["options"][(gold + d) % len(rec["options"])] for d in (0, 1, 2)]
        tie_right += majority_vote(rec, voters) == "abcdefgh"[gold]
    want = sum(k in (0, 1) for k in kinds) + tie_right
    assert report.values["Human"]["acc"] == pytest.approx(want / 435)
    assert 0.15 < tie_right / len(ties) < 0.55  # a random tie-break picks the gold about one time in three
    again = score_answers(COMP, path, vote=humans, vote_name="Human", records=_release(shared_data))
    assert again.values["Human"] == report.values["Human"]  # seeded: stable across runs
    other = score_answers(COMP, path, vote=humans, vote_name="Human", seed=5, records=_release(shared_data))
    assert other.values["Human"]["acc"] != report.values["Human"]["acc"] or tie_right == 0
    assert "| Human " not in report.text.splitlines()[2]  # answer sets are columns in Table 1's layout
    assert report.text.splitlines()[1].split("|")[3].strip() == "GPT_0_SHOT"


def test_vote_tie_break_is_seeded_per_record():
    rec = {
        "id": "9",
        "options": ["x", "y", "z"],
        "answer_index": 0,
        "option_style": "letter_lower",
        "task_type": "choice",
    }
    picks = {majority_vote({**rec, "id": str(i)}, ["x", "y", "z"], seed=0) for i in range(40)}
    assert picks == {"a", "b", "c"}
    assert majority_vote(rec, ["x", "y", "z"], seed=3) == majority_vote(rec, ["x", "y", "z"], seed=3)
    assert majority_vote(rec, ["y", "y", "x"]) == "b" and majority_vote(rec, ["nonsense", None, ""]) == ""


def test_soft_localization_table_3(tmp_path, shared_data):
    rows = shared_rows(shared_data, "soft_localization")
    path = tmp_path / "sl.jsonl"
    # right on every question whose answer is "Both objects" or "The left object": 500 of 1000
    lines = []
    for r in rows:
        gold = r["options"].index(r["answer"])
        pick = gold if gold in (0, 2) else (gold + 1) % 4
        lines.append(json.dumps({"id": r["id"], "response": f"Answer: {'abcd'[pick]}"}))
    path.write_text("\n".join(lines))
    report = score_answers("ambi_illusionvqa_soft_localization_4shot_cot", path, records=_release(shared_data, "soft"))
    assert report.values["sl"]["acc"] == 0.5
    assert "| sl  | 4-shot + CoT | 50.00    | 0        |" in report.text


def test_illusionbench_tables_ii_and_v(tmp_path):
    copy = illusionbench_copy(tmp_path)
    recs = read_records(copy / "illusionbench_tf.jsonl")
    # answer "True" to everything: right on True statements, FP on every False one
    path = tmp_path / "yes_man.jsonl"
    path.write_text("".join(json.dumps({"id": r["id"], "response": "True"}) + "\n" for r in recs))
    report = score_answers("ambi_illusionbench_tf", path, data_dir=copy)
    vals = report.values["yes_man"]
    for cat in IB.CATEGORIES:
        sub = [r for r in recs if r["category"] == cat]
        assert vals[f"acc_{cat}"] == pytest.approx(sum(r["answer_bool"] for r in sub) / len(sub))
        assert vals[f"fp_ratio_{cat}"] == 1.0  # every error says True
    assert vals["acc"] == pytest.approx(sum(r["answer_bool"] for r in recs) / len(recs))
    header = next(ln for ln in report.text.splitlines() if ln.startswith("| VLMs"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "VLMs", "Classical (P1)", "Real Scene (P2)", "No Illusion (P3)", "Ishihara (P4)", "Trap (P5)",
        "Easy", "Neutral", "Hard", "All",
    ]  # fmt: skip
    assert "(Table II layout)" in report.text and "(Table V layout)" in report.text
    assert f"{vals['acc']:.4f}" in report.text and "| yes_man " in report.text


def test_llm_protocol_review_queue_and_overrides(tmp_path):
    copy = illusionbench_copy(tmp_path)
    recs = read_records(copy / "illusionbench_mc.jsonl")
    path = tmp_path / "m.jsonl"
    rng = random.Random(0)
    wrong_ids = set()
    lines = []
    for r in recs:
        if rng.random() < 0.3:
            wrong_ids.add(r["id"])
            reply = ["i", "ii", "iii", "iv"][(r["answer_index"] + 1) % 4]
        else:
            reply = f"I choose {r['options'][r['answer_index']]}"
        lines.append(json.dumps({"id": r["id"], "response": reply}))
    path.write_text("\n".join(lines))
    report = score_answers("ambi_illusionbench_mc_llm", path, data_dir=copy, protocol="llm", progress=False)
    vals = report.values["m"]
    n = len(recs)
    assert vals["acc_llm"] == pytest.approx(1 - len(wrong_ids) / n) and vals["judge_unscored_rate"] == 0.0
    assert vals["acc"] == pytest.approx(1 - len(wrong_ids) / n)  # rule-based side by side
    assert {row["id"] for row in report.review} == wrong_ids
    assert "LLM-assisted (Table III layout)" in report.text and "rule-based (Table III layout)" in report.text
    assert report.judge["backend"] == "offline" and "illusionbench_multiple_choice" in report.judge["templates"]
    # a reviewer accepts two of the flagged items: the file is the filled queue
    queue = [dict(row) for row in report.review]
    for row in queue[:2]:
        row["correct"] = True
    over = tmp_path / "overrides.jsonl"
    over.write_text("".join(json.dumps(r) + "\n" for r in queue))
    fixed = score_answers(
        "ambi_illusionbench_mc_llm", path, data_dir=copy, protocol="llm", overrides=over, progress=False
    )
    assert fixed.values["m"]["acc_llm"] == pytest.approx(1 - (len(wrong_ids) - 2) / n)
    assert fixed.values["m"]["acc"] == vals["acc"]  # overrides touch the judge's protocol only
    assert len(fixed.review) == len(wrong_ids) - 2


def test_cli_score_prints_the_table_and_names_missing_ids(tmp_path, shared_data, capsys):
    rows = shared_rows(shared_data, "comprehension")
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps({"task": COMP, "id": r["id"], "response": r["answer"]}) + "\n" for r in rows))
    out_json = tmp_path / "v.json"
    assert main(["score", "--task", COMP, "--answers", str(path), "--records", str(_release(shared_data)), "--json", str(out_json)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "| Impossible Object | 134 | 100.00 |" in text and "| Total             | 435 | 100.00 |" in text
    assert json.loads(out_json.read_text())["values"]["a"]["acc"] == 1.0
    path.write_text("".join(json.dumps({"task": COMP, "id": r["id"], "response": "a"}) + "\n" for r in rows[:-2]))
    assert main(["score", "--task", COMP, "--answers", str(path), "--records", str(_release(shared_data))]) == 2
    err = capsys.readouterr().err
    assert "433" in err and "434" in err and COMP in err
    with pytest.raises(ScoreError, match="not a group"):
        score_answers("ambi_illusionvqa_all", path)
    with pytest.raises(ScoreError, match="no answers for task"):
        score_answers("ambi_illusionvqa_soft_localization", path, records=_release(shared_data, "soft"))


def test_tables_from_an_lmms_eval_results_json():
    results = {
        "results": {
            COMP: {"alias": COMP, "acc,none": 0.5, "acc_color,none": 1.0, "acc_stderr,none": "N/A"},
            "ambi_illusionbench_tf_llm": {"acc,none": 0.75, "acc_llm,none": 0.8, "fp_ratio_trap,none": 0.25},
            "ambi_synth_geometric_tf": {"acc,none": 1.0},
        }
    }
    text = tables_from_results({**results, "model_name": "m1"})
    cells = {
        ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]]
        for ln in text.splitlines()
        if ln.startswith("| ")
    }
    assert cells["Color"] == ["", "100.00"] and cells["Total"] == ["", "50.00"] and cells["Size"] == ["", "n/a"]
    assert cells["Class"] == ["#", "m1"]
    assert "true-or-false accuracy, LLM-assisted" in text and "0.8000" in text and "0.2500" in text
    assert "ambi_synth" not in text
    with pytest.raises(ScoreError):
        tables_from_results({"results": {"ambi_synth_geometric_tf": {"acc,none": 1.0}}})


def test_soft_localization_table_when_only_some_answer_sets_count_unparsed():
    """One answer set with an ``unparsed`` count and one without: the Unparsed column is there for both (n/a where
    the count is missing), instead of an IndexError."""
    from ambi_plugin.benchmarks.illusionvqa.tables import soft_localization_table

    text = soft_localization_table({"a": {"acc": 0.5}, "b": {"acc": 0.25, "unparsed": 3}}, "0-shot")
    rows = [line for line in text.splitlines() if line.startswith("| a") or line.startswith("| b")]
    assert "Unparsed" in text.splitlines()[0]
    assert rows[0].split("|")[4].strip() == "n/a" and rows[1].split("|")[4].strip() == "3"
