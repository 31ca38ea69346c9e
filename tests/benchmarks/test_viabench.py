"""VIA-Bench without a harness: the challenge-layout reader, the Match regex on realistic outputs, scoring of
both protocols, the random baseline, the variants, repeated runs, the Hub path and the generated YAMLs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from viabench_fixtures import fixture_records

from ambi_plugin.benchmarks.hub import DataUnavailableError
from ambi_plugin.benchmarks.viabench import lmms as VL
from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.benchmarks.viabench.match import match_label
from ambi_plugin.benchmarks.viabench.release import (
    materialize_from_hub,
    parse_challenge_rows,
    parse_option_block,
    read_challenge_json,
)
from ambi_plugin.benchmarks.viabench.repeated import category_table, format_table
from ambi_plugin.benchmarks.viabench.scoring import aggregate, random_baseline, score_item
from ambi_plugin.benchmarks.viabench.variants import apply_variants, permute_options
from ambi_plugin.core.schema import validate_record
from ambi_plugin.judge.offline import OfflineJudge
from ambi_plugin.reports.repeated_runs import aggregate_runs, summarize

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def val(shared_data):
    return read_challenge_json(
        shared_data / "via_bench_val" / "val.json", image_dir=shared_data / "via_bench_val" / "images"
    )


# ----------------------------------------------------------------------------- reading the release


def test_real_split_reads_as_published(val):
    assert len(val.records) == 249 and val.skipped == []
    assert [rid for rid, _ in val.notes] == ["243"]  # the one option block without "Not Sure": kept, noted
    for rec in val.records:
        validate_record(rec)
        assert rec["gold_unknown"] is True and rec["category"] == S.UNCATEGORIZED
        assert not rec["question"].startswith("Question:")
    counts = {n: sum(1 for r in val.records if len(r["options"]) == n) for n in (3, 4)}
    assert counts == {3: 113, 4: 136}


def test_random_baseline_is_exact(val):
    # PROTOCOL (checked): 28.8% with "Not Sure" counted, 40.9% without
    base = random_baseline(val.records)
    assert base == pytest.approx((113 / 3 + 136 / 4) / 249)
    assert round(100 * base, 1) == 28.8
    without = sum(1 / (len(r["options"]) - 1) for r in val.records) / 249
    assert round(100 * without, 1) == 40.9
    assert round(S.paper_avg(S.PAPER_ROWS["Random Choice"]["cells"]), 2) == 29.13
    assert round(S.paper_avg(S.PAPER_ROWS["Gemini-3-pro"]["cells"]), 2) == 69.23  # PROTOCOL: Avg of 12 cells


def test_option_block_without_space_after_label():
    assert parse_option_block("Option: \nA. 1\nB. 2\nC.3\nD. Not Sure\n") == (["1", "2", "3", "Not Sure"], [])


def test_bad_rows_are_reported_skipped_and_counted(tmp_path):
    (tmp_path / "1.jpg").write_bytes(b"x")
    (tmp_path / "2.jpg").write_bytes(b"x")
    good = {"image_name": "1.jpg", "Question": "Question:\nHow many?", "option": "Option: \nA. 5\nB. 6\nC. Not Sure\n"}
    rows = [
        good,
        {"Question": "Q?", "option": "A. x\nB. y"},  # no image name
        {"image_name": "3.jpg", "Question": "", "option": "A. x\nB. y"},  # empty question
        {"image_name": "4.jpg", "Question": "Q?", "option": "Option: \nA. only\n"},  # one option
        {"image_name": "5.jpg", "Question": "Q?", "option": "A. x\nC. y\nD. Not Sure"},  # labels skip B
        {"image_name": "9.jpg", "Question": "Q?", "option": "A. x\nB. y\nC. Not Sure"},  # image missing
        "not an object",
        dict(good),  # the same row twice: kept once, counted as merged
        {**good, "Question": "Question:\nHow many now?"},  # the same image, another question: the later dropped
        {"image_name": "2.jpg", "Question": "Q?", "option": "A. x\nB. y\nC. Not Sure", "answer": "C"},  # Not Sure
    ]
    report = parse_challenge_rows(rows, image_dir=tmp_path)
    assert [r["id"] for r in report.records] == ["1"]
    reasons = dict(report.skipped)
    assert len(report.skipped) == 8
    assert "no 'image_name'" in reasons["row2"] and "empty 'Question'" in reasons["3"]
    assert "fewer than two options" in reasons["4"] and "'C' where 'B'" in reasons["5"]
    assert "is not in" in reasons["9"] and "not a JSON object" in reasons["row7"]
    assert "duplicate id: a second, different row" in reasons["1"] and "never the answer" in reasons["2"]
    assert report.merged == [("1", "duplicate row: row 8 is identical to row 1")]
    assert "skipped id='9'" in report.summary()


def test_answer_key_adds_answers_and_categories(shared_data):
    rows = json.loads((shared_data / "via_bench_val" / "val.json").read_text())[:3]
    key = {"0": {"answer": "B", "category": "VA"}, "1": {"answer": "5", "category": "va"}}
    recs = parse_challenge_rows(rows, answers=key).records
    assert [r.get("answer_index") for r in recs] == [1, 2, None]
    assert [r["category"] for r in recs] == ["va", "va", S.UNCATEGORIZED]
    assert recs[2]["gold_unknown"] is True


def test_hub_path_raises_with_instructions(monkeypatch):
    with pytest.raises(DataUnavailableError, match="AMBI_VIABENCH_DIR"):
        materialize_from_hub()
    from ambi_plugin.data.sources import source_root

    monkeypatch.delenv("AMBI_VIABENCH_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", "/nonexistent/ambi.yaml")
    with pytest.raises(DataUnavailableError, match="Houwenjin/DataCV-2026"):
        source_root("ambi://viabench")


# ----------------------------------------------------------------------------- Match (our regex)

CASES = [
    ("Answer: [B]", 1),
    ("**Answer:** B", 1),
    ("**Answer: [C]**", 2),
    ("answer: b", 1),
    ("The answer is c.", 2),
    ("Final answer - D", 3),
    ("B", 1),
    ("(b)", 1),
    ("B. Six fingers", 1),
    ("[A]", 0),
    ("Answer: [B. 6]", 1),
    ("Option A shows five fingers and option C four, but I count six.\nAnswer: [B]", 1),  # CoT, several letters
    ("A? C? Looking again, the left hand has six. Answer: A\n\nWait, recounting... Answer: [B]", 1),  # last wins
    ("<think>Maybe A, maybe C.</think>\nAnswer: [B]", 1),
    ("I think it is [D] since I cannot tell.", 3),
    ("Answer: E", -1),  # a label beyond the options: extracted, wrong
    ("Answer: [X]", -1),  # the placeholder echoed
    ("I'm sorry, but I can't help with identifying that.", None),  # refusal
    ("I cannot determine this from the image.", None),
    ("the answer is a bit unclear", None),  # an article, not a label
    ("A or B, hard to say", None),  # several bare letters: no guess
    ("Six fingers", None),  # option text without a marker: the Judge protocol reads it, Match does not
    ("", None),
    ("   ", None),
    # a label followed by a word or "/" is no label
    ("Answer: I cannot determine.", None),  # the pronoun I, not option I
    ("Answer: [A/B/C/D]", None),  # the template echoed
    ("Answer: A/B", None),
    ("Answer: I think it is B", None),
    ("Answer: B because the thumb counts too.", 1),  # a connective after the label
    ("The answer is B, since the thumb counts.", 1),
    ("Answer: B Six fingers", 1),  # the label and its own option text
    # option text after a marker reads as that option
    ("Answer: Not Sure", 3),
    ("**Answer:** not sure.", 3),
    ("Answer: [Six fingers]", 1),
    ("Answer: Six fingers, counting the thumb.", 1),
    ("Answer: Six", None),  # part of an option is not its text
    ("Option A is five. Answer: [Four fingers]", 2),
]
OPTIONS = ["Five fingers", "Six fingers", "Four fingers", S.NOT_SURE]


@pytest.mark.parametrize(("response", "want"), CASES)
def test_match_regex_on_realistic_outputs(response, want):
    assert match_label(response, OPTIONS).index == want


def test_match_without_option_texts_reads_labels_only():
    assert match_label("Answer: [B]", 4).index == 1
    assert match_label("Answer: Not Sure", 4).index is None
    assert match_label("Answer: I cannot determine.", 4).index is None
    assert match_label("Answer: Not Sure", OPTIONS).reason == "option_text"


@pytest.mark.parametrize("junk", [None, b"Answer: [A]", 12, ["A"], "x" * 300_000 + "Answer: [C]"])
def test_match_is_total(junk):
    match_label(junk, 4)  # never raises
    assert match_label("x" * 300_000 + " Answer: [C]", 4).index == 2


# ----------------------------------------------------------------------------- scoring


@pytest.fixture
def rec():
    return fixture_records()["viabench_va"][0]  # Five / Six / Four / Not Sure, gold B


def test_both_protocols_side_by_side(rec):
    judge = OfflineJudge()
    items = [score_item(rec, r, judge=judge) for r in ("Answer: [B]", "Six fingers", "Answer: [D]", "", "Nope.")]
    assert [it["correct_match"] for it in items] == [True, False, False, False, False]
    assert [it["correct_judge"] for it in items] == [True, True, False, False, False]
    assert aggregate("acc_match", items) == pytest.approx(1 / 5)
    assert aggregate("acc_judge", items) == pytest.approx(2 / 5)
    assert aggregate("not_sure_rate", items) == pytest.approx(1 / 5)
    assert aggregate("empty_count", items) == 1.0  # empty: wrong in both protocols, counted
    assert items[3]["judge_raw"] == ["empty response"]
    assert aggregate("unparsed_rate", items) == pytest.approx(3 / 5)
    assert aggregate("acc_match_va", items) == pytest.approx(1 / 5) and math.isnan(aggregate("acc_match_ci", items))
    with pytest.raises(KeyError, match="Expected a VIA-Bench metric"):
        aggregate("acc_foo", items)


def test_not_sure_written_out_counts_as_not_sure(rec):
    judge = OfflineJudge()
    items = [
        score_item(rec, r, judge=judge) for r in ("Answer: Not Sure", "Answer: [D]", "Answer: I cannot determine.")
    ]
    assert [it["match_pred"] for it in items] == [3, 3, None]
    assert aggregate("not_sure_rate", items) == pytest.approx(2 / 3)
    assert aggregate("not_sure_rate_va", items) == pytest.approx(2 / 3)
    assert aggregate("unparsed_rate", items) == pytest.approx(1 / 3) and aggregate("acc_match", items) == 0.0
    assert not math.isnan(aggregate("not_sure_rate_judge_va", items))  # a breakdown base since version 2


def test_judge_errors_count_as_wrong(rec):
    class Broken(OfflineJudge):
        def _mcq_match(self, question, options, response, rounds):
            from ambi_plugin.judge.voting import Choice

            return Choice(None, [None], ["gibberish"], True)

    items = [score_item(rec, "Answer: [B]", judge=Broken())]
    assert aggregate("acc_match", items) == 1.0 and aggregate("acc_judge", items) == 0.0
    assert aggregate("judge_errors", items) == 1.0


def test_unknown_gold_gives_nan_accuracy_but_counts(val):
    items = [score_item(r, "Answer: [A]", judge=OfflineJudge()) for r in val.records[:10]]
    assert math.isnan(aggregate("acc_match", items)) and aggregate("unparsed_rate", items) == 0.0


# ----------------------------------------------------------------------------- variants and hooks


def test_permutation_is_seeded_keeps_not_sure_last_and_moves_gold(rec):
    a, b = permute_options(rec, 1), permute_options(rec, 1)
    assert a == b and a["options"][-1] == S.NOT_SURE
    assert a["options"][a["answer_index"]] == "Six fingers"
    seen = {tuple(permute_options(rec, s)["options"]) for s in range(20)}
    assert len(seen) > 1 and sorted(seen.pop()) == sorted(rec["options"])
    assert apply_variants(rec) == rec  # off by default


def test_polarity_flip_swaps_yes_no():
    rec = fixture_records()["viabench_ci"][1]  # Yes / No / Not Sure, gold Yes, with question_negated
    flips = [apply_variants({**rec, "id": f"x{k}"}, flip_seed=0) for k in range(40)]
    flipped = [f for f in flips if f["variant"]["polarity"] == "flipped"]
    assert 0 < len(flipped) < 40
    for f in flipped:
        assert f["question"] == rec["question_negated"] and f["options"][f["answer_index"]] == "No"
    other = fixture_records()["viabench_ci"][0]  # not binary: kept
    assert all(
        apply_variants({**other, "id": f"y{k}"}, flip_seed=0)["variant"]["polarity"] == "kept" for k in range(10)
    )


def test_env_permutation_reaches_prompt_and_scoring(rec, monkeypatch):
    monkeypatch.setenv("AMBI_VIABENCH_PERMUTE_SEED", "3")
    doc = {"record": json.dumps(rec)}
    shown = VL.record(doc)
    text = VL.doc_to_text(doc, {"prompt": S.PROMPT})
    assert f"{chr(65 + shown['answer_index'])}. Six fingers" in text
    gold = chr(65 + shown["answer_index"])
    out = VL.process_results(doc, [f"Answer: [{gold}]"])
    assert out["acc_match"]["correct_match"] is True and out["acc_match"]["variant"]["permute_seed"] == 3


def test_messages_carry_system_turn_and_blind_drops_the_image(tmp_path):
    rec = fixture_records()["viabench_va"][0]
    from PIL import Image

    Image.new("RGB", (8, 8)).save(tmp_path / "im.png")
    doc = {"record": json.dumps({**rec, "image": str(tmp_path / "im.png")})}
    kw = {"prompt": S.PROMPT, "system_prompt": S.SYSTEM_MANUAL_COT}
    msgs = VL.doc_to_messages(doc, kw)
    assert msgs[0]["role"] == "system" and msgs[0]["content"][0]["text"] == S.SYSTEM_MANUAL_COT
    assert [c["type"] for c in msgs[1]["content"]] == ["image", "text"]  # Appendix C: image, then prompt
    blind = VL.doc_to_messages(doc, {**kw, "blind": True})
    assert [c["type"] for c in blind[1]["content"]] == ["text"] and VL.doc_to_visual(doc, {"blind": True}) == []


# ----------------------------------------------------------------------------- repeated runs and YAMLs


def _results(path: Path, values: dict[str, tuple[float, float]]) -> Path:
    res = {f"ambi_viabench_{c}": {"acc_match,none": m, "acc_judge,none": j, "not_sure_rate,none": 0.1}
           for c, (m, j) in values.items()}  # fmt: skip
    path.write_text(json.dumps({"results": res}))
    return path


def test_repeated_runs_mean_and_std(tmp_path, capsys):
    cats = {c: (0.5, 0.6) for c in S.CATEGORIES}
    paths = [
        _results(tmp_path / "r1.json", {**cats, "ci": (0.2, 0.4)}),
        _results(tmp_path / "r2.json", {**cats, "ci": (0.4, 0.4)}),
        _results(tmp_path / "r3.json", {**cats, "ci": (0.6, float("nan"))}),
    ]
    out = summarize(paths, "viabench")
    ci = out["categories"]["normal"]["ci"]
    assert ci["match"]["mean"] == pytest.approx(0.4) and ci["match"]["std"] == pytest.approx(0.2)  # sample std
    assert ci["judge"] == {"mean": pytest.approx(0.4), "std": 0.0, "n": 2.0}  # NaN run left out, n kept
    assert "40.00 ± 20.00" in out["text"]
    header, _, row = out["text"].splitlines()
    assert header.endswith("| Not Sure |") and row.endswith("| 10.00 |")  # not_sure_rate 0.1 in every category
    from ambi_plugin.cli import main

    assert main(["viabench", "runs", *map(str, paths), "--json", str(tmp_path / "agg.json")]) == 0
    assert json.loads((tmp_path / "agg.json").read_text())["runs"] == 3
    assert "| normal (w/o CoT) |" in capsys.readouterr().out
    assert format_table(category_table(aggregate_runs([]))).count("\n") == 1


def test_yamls_are_up_to_date(tmp_path):
    folder = ROOT / "task_yamls" / "ambi_viabench"
    before = {p.name: p.read_text() for p in folder.glob("*.yaml")}
    subprocess.run([sys.executable, str(folder / "_generate_configs.py")], check=True, cwd=ROOT)
    after = {p.name: p.read_text() for p in folder.glob("*.yaml")}
    assert before == after and len(after) == 6 * 4 + 4 + 5  # tasks, val tasks, groups


def test_blind_variant_has_its_own_system_prompt():
    blind = S.SYSTEM_PROMPTS["blind"]
    assert blind == S.SYSTEM_BLIND != S.SYSTEM_NORMAL and "image" not in blind.lower()
    assert "SYSTEM_BLIND" in S.OURS
    text = (ROOT / "task_yamls" / "ambi_viabench" / "ambi_viabench_ci_blind.yaml").read_text()
    assert json.dumps(blind) in text and "blind: true" in text


def test_debias_seeds_go_into_the_results_section(monkeypatch):
    from ambi_plugin.lmms.results_meta import ambi_section

    via = {"configs": {"ambi_viabench_ci": {"dataset_path": "ambi://viabench"}}}
    rcid = {"configs": {"ambi_rcid_contrast_pixel": {"dataset_path": "ambi://rcid"}}}
    monkeypatch.delenv("AMBI_VIABENCH_PERMUTE_SEED", raising=False)
    monkeypatch.delenv("AMBI_VIABENCH_FLIP_SEED", raising=False)
    assert "viabench_debias" not in ambi_section(via)  # no seed set: nothing recorded
    monkeypatch.setenv("AMBI_VIABENCH_PERMUTE_SEED", "3")
    assert ambi_section(via)["viabench_debias"] == {"permute_seed": 3, "flip_seed": None}
    assert "viabench_debias" not in ambi_section(rcid)  # no VIA-Bench task ran: the seed did nothing
    monkeypatch.setenv("AMBI_VIABENCH_FLIP_SEED", "x")
    assert "must be an integer" in ambi_section(via)["viabench_debias"]["error"]


def test_table_4_1_reference_rows():
    from ambi_plugin.reports.reference import find_paper_row, reference_table

    t41 = reference_table("via_table_4_1")
    assert [(r["name"], r["setting"]) for r in t41["rows"]][:3] == [
        ("Gemini-2.5-pro", "normal"), ("Gemini-2.5-pro", "zero-shot CoT"), ("Gemini-2.5-pro", "manual CoT")]  # fmt: skip
    for row in t41["rows"]:
        assert sum(row["values"][:12]) / 12 == pytest.approx(row["values"][12], abs=0.006), row
    qwen = {r["setting"]: r["values"] for r in t41["rows"] if r["name"].startswith("Qwen")}
    assert qwen["zero-shot CoT"][4] - qwen["normal"][4] == pytest.approx(14.75)  # section 4.4: MI +14.8 with CoT
    main = reference_table("via_main")
    for row in main["rows"]:  # Table 3.2's normal rows equal Table 4.1's
        other = find_paper_row(t41, row["name"], "normal")
        if other is not None:
            assert other["values"] == row["values"][:13]
    assert find_paper_row(main, "Qwen2.5-VL-7B-Instruct", "zero-shot CoT") is None  # no CoT row in Table 3.2
    assert find_paper_row(main, "GPT-4-Turbo", "blind")["values"][4] == 87.95


def test_gold_unknown_waives_only_the_answer_fields():
    from ambi_plugin.core.schema import RecordError

    rec = {
        "id": "1",
        "benchmark": "viabench",
        "category": "uncategorized",
        "task_type": "choice",
        "options": ["a", "b"],
    }
    with pytest.raises(RecordError, match="answer_index"):
        validate_record(dict(rec))
    validate_record({**rec, "gold_unknown": True})
    with pytest.raises(RecordError, match="options"):
        validate_record({k: v for k, v in rec.items() if k != "options"} | {"gold_unknown": True})
