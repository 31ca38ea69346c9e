"""IllusionBench: records, option shuffling, importer, Hub layouts, metrics by category and difficulty."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from illusion_fixtures import illusionbench_copy, illusionbench_lmms_hub_folder, illusionbench_rows

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.core.answers import gold_response, wrong_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import aggregate, metric_names, score_item

# core scoring called directly with no judge: the judge layer's default, installed explicitly (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("default_judge_provider")

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    return illusionbench_copy(tmp_path_factory.mktemp("ib"))


# ----------------------------------------------------------------------------- prompts


def test_prompts_are_verbatim_from_the_paper():
    paper = SEEDS / "001_8e3a789f2fecc6cf.txt"
    if not paper.is_file():
        pytest.skip(f"the IllusionBench paper is absent ({paper})")
    text = _squash(paper.read_text(encoding="utf-8"))
    for prompt in (IB.PROMPT_TF, IB.PROMPT_MC, IB.PROMPT_DESCRIPTION):
        fixed = prompt.split("{")[0].strip()  # the text before the item's own slots
        assert _squash(fixed) in text, fixed
    assert "Roma number" in IB.PROMPT_MC and "‘True’ or ‘False’" in IB.PROMPT_TF


# ----------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("raw", "slug"),
    [("Classic Cognitive Illusion", "classic"), ("Real Scene Illusion", "real_scene"), ("real-scene", "real_scene"),
     ("No Illusion", "no_illusion"), ("Ishihara Images", "ishihara"), ("Trap Illusion", "trap"), ("trap", "trap")],
)  # fmt: skip
def test_category_spellings(raw, slug):
    assert IB.normalize_category(raw) == slug


def test_unknown_category_and_difficulty_name_the_value():
    with pytest.raises(ValueError, match="'Z'.*classic"):
        IB.normalize_category("Z", where="row 3")
    assert IB.normalize_category("Z", mapping={"Z": "trap"}) == "trap"
    with pytest.raises(ValueError, match="'impossible'"):
        IB.normalize_difficulty("impossible")
    assert [IB.normalize_difficulty(v) for v in (1, "2", "Hard", "easy")] == ["easy", "neutral", "hard", "easy"]
    assert IB.normalize_difficulty(0, mapping={"0": "easy"}) == "easy"


# ----------------------------------------------------------------------------- shuffling


def test_shuffle_keeps_the_gold_option_text_and_moves_the_letter():
    opts = ["A hat", "A t-shirt", "A jacket", "A dress"]
    moved = 0
    for k in range(200):
        gold = k % 4
        shown, idx = IB.shuffle_options(opts, gold, seed=0, key=f"img{k}.jpg:mc0")
        assert sorted(shown) == sorted(opts)
        assert shown[idx] == opts[gold]
        moved += shown != opts
    assert moved > 150  # a permutation, not the identity (24 orders: about 192 of 200 differ)
    # every position holds the gold option sometimes: no position bias
    positions = Counter(IB.shuffle_options(opts, 1, seed=0, key=f"k{k}")[1] for k in range(400))
    assert set(positions) == {0, 1, 2, 3} and min(positions.values()) > 60


def test_shuffle_depends_on_seed_and_key_only():
    a = IB.shuffle_order(4, seed=0, key="x.png:mc1")
    assert a == IB.shuffle_order(4, seed=0, key="x.png:mc1")
    orders = {tuple(IB.shuffle_order(4, seed=s, key="x.png:mc1")) for s in range(20)}
    assert len(orders) > 5


def test_shuffle_is_stable_across_processes():
    code = (
        "from ambi_plugin.benchmarks.illusionbench import shuffle_order;"
        "print([shuffle_order(4, seed=3, key=f'i{k}') for k in range(30)])"
    )
    outs = set()
    for hashseed in ("1", "987"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout)
    assert len(outs) == 1
    assert outs.pop().strip() == str([IB.shuffle_order(4, seed=3, key=f"i{k}") for k in range(30)])


def test_mc_records_record_seed_and_released_order(copy):
    recs = read_records(copy / "illusionbench_mc.jsonl")
    again = IB.records_from_images(illusionbench_rows())["illusionbench_mc"]
    assert [r["options"] for r in recs] == [r["options"] for r in again]  # stable across runs
    for rec in recs:
        assert rec["shuffle_seed"] == IB.SHUFFLE_SEED and rec["option_style"] == "roman"
        assert rec["options"][rec["answer_index"]] == rec["source_options"][rec["source_answer_index"]]
    assert any(r["options"] != r["source_options"] for r in recs)
    other = IB.records_from_images(illusionbench_rows(), shuffle_seed=7)["illusionbench_mc"]
    assert [r["options"] for r in other] != [r["options"] for r in recs]


# ----------------------------------------------------------------------------- importer and Hub layout


def test_importer_writes_three_record_files_with_breakdowns(copy):
    tf = read_records(copy / "illusionbench_tf.jsonl")
    mc = read_records(copy / "illusionbench_mc.jsonl")
    desc = read_records(copy / "illusionbench_description.jsonl")
    assert (len(tf), len(mc), len(desc)) == (30, 30, 15)
    cells = {(r["breakdown"]["image_category"], r["breakdown"]["difficulty"]) for r in tf}
    assert cells == {(c, d) for c in IB.CATEGORIES for d in IB.DIFFICULTIES}
    assert all((copy / r["image"]).is_file() for r in tf + mc + desc)
    # trap statements keep the label the data gives (PROTOCOL: never inferred from the category)
    assert {r["answer_bool"] for r in tf if r["category"] == "trap" and "illusion" in r["question"]} == {True}
    assert json.loads((copy / "manifest.json").read_text())["shuffle_seed"] == IB.SHUFFLE_SEED


def test_importer_errors_name_the_line_and_field(tmp_path):
    rows = illusionbench_rows()[:2]
    rows[1]["multiple_choice"][0]["answer"] = "A kite"
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match="mc0.*'A kite' matches no option"):
        IB.import_jsonl(jsonl, tmp_path, tmp_path / "out")
    rows = illusionbench_rows()[:1]
    jsonl.write_text(json.dumps(rows[0]) + "\n")
    with pytest.raises(FileNotFoundError, match=r"bad.jsonl:1.*classic_easy.png"):
        IB.import_jsonl(jsonl, tmp_path / "nowhere", tmp_path / "out")


def test_inline_options_of_the_lmms_eval_layout():
    assert IB.parse_inline_options("What is it? i. A hat ii. A t-shirt iii. A jacket iv. A dress") == (
        "What is it?",
        ["A hat", "A t-shirt", "A jacket", "A dress"],
    )
    stem, opts = IB.parse_inline_options("Why?\n(i) It is, i.e. big\n(ii) x\n(iii) y\n(iv) z")
    assert stem == "Why?" and opts[0] == "It is, i.e. big"
    assert IB.parse_inline_options("A question without options?") is None


def test_hub_folder_in_lmms_eval_layout_converts_to_the_same_items(tmp_path):
    hub, plain = illusionbench_lmms_hub_folder(tmp_path)
    root = IB.materialize_from_hub(str(hub))
    assert IB.materialize_from_hub(str(hub)) == root  # cached
    tf = read_records(root / "illusionbench_tf.jsonl")
    mc = read_records(root / "illusionbench_mc.jsonl")
    assert not (root / "illusionbench_description.jsonl").exists()  # the lmms-eval copy has no descriptions
    assert len(tf) + len(mc) == len(plain)
    src = IB.records_from_images(illusionbench_rows())
    assert sorted((r["question"], r["answer_bool"], r["category"]) for r in tf) == sorted(
        (r["question"], r["answer_bool"], r["category"]) for r in src["illusionbench_tf"]
    )
    want = sorted((r["question"], r["source_options"][r["source_answer_index"]]) for r in src["illusionbench_mc"])
    assert sorted((r["question"], r["options"][r["answer_index"]]) for r in mc) == want
    assert {r["breakdown"]["difficulty"] for r in tf} == set(IB.DIFFICULTIES)
    assert all((root / r["image"]).is_file() for r in tf + mc)


def test_unreachable_hub_names_the_local_copy_variable(monkeypatch, tmp_path):
    from ambi_plugin.benchmarks.hub import DataUnavailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataUnavailableError, match="AMBI_ILLUSIONBENCH_DIR"):
        IB.materialize_from_hub(str(tmp_path / "no-such-folder"))


# ----------------------------------------------------------------------------- metrics


def _tf(i: int, gold: bool, cat: str, diff: str) -> dict:
    return {"id": str(i), "benchmark": "illusionbench", "category": cat, "task_type": "true_false",
            "question": "s", "answer_bool": gold, "breakdown": {"image_category": cat, "difficulty": diff}}  # fmt: skip


def test_fp_ratio_by_category_on_a_hand_computed_table():
    # gold, reply, category, difficulty -> outcome
    table = [
        (False, "True", "classic", "easy"),  # FP
        (False, "True", "classic", "hard"),  # FP
        (True, "False", "classic", "hard"),  # FN
        (True, "True", "classic", "easy"),  # TP
        (False, "False", "trap", "hard"),  # TN
        (False, "True", "trap", "hard"),  # FP
        (True, "I think it is false", "trap", "easy"),  # FN (read as False)
        (True, "banana", "trap", "easy"),  # unparsed: neither FP nor FN
        (True, "False", "real_scene", "neutral"),  # FN
        (False, "False", "no_illusion", "easy"),  # TN
        (False, "True, it is.", "ishihara", "neutral"),  # FP
    ]
    recs = [_tf(i, g, c, d) for i, (g, _, c, d) in enumerate(table)]
    items = [score_item(r, reply) for r, (_, reply, _, _) in zip(recs, table)]
    # overall: FP = 4 (rows 0, 1, 5, 10), FN = 3 (rows 2, 6, 8) -> 4/7; accuracy 3/11 (TP + 2 TN)
    assert aggregate("fp_ratio", items) == pytest.approx(4 / 7)
    assert aggregate("acc", items) == pytest.approx(3 / 11)
    assert aggregate("unparsed_rate", items) == pytest.approx(1 / 11)
    assert aggregate("fp_ratio_ishihara", items) == 1.0  # FP only
    assert aggregate("fp_ratio_neutral", items) == pytest.approx(1 / 2)  # FN row 8, FP row 10
    assert aggregate("fp_ratio_classic", items) == pytest.approx(2 / 3)  # FP 2, FN 1
    assert aggregate("fp_ratio_trap", items) == pytest.approx(1 / 2)  # FP 1, FN 1
    assert aggregate("fp_ratio_real_scene", items) == 0.0  # FN only
    assert math.isnan(aggregate("fp_ratio_no_illusion", items))  # no errors: undefined (PROTOCOL)
    assert aggregate("fp_ratio_hard", items) == pytest.approx(2 / 3)  # FP 2 (classic, trap), FN 1
    assert aggregate("fp_ratio_easy", items) == pytest.approx(1 / 2)  # FP 1, FN 1
    assert aggregate("acc_easy", items) == pytest.approx(2 / 5)
    names = metric_names(recs[0], by=IB.BREAKDOWN_FIELDS)
    assert {"acc_classic", "fp_ratio_classic", "acc_easy", "fp_ratio_easy"} <= set(names)


def test_description_std_is_over_items():
    from ambi_plugin.benchmarks.illusionbench.llm import rule_metric_names

    items = [{"score": s, "breakdown": {"difficulty": "easy"}} for s in (2.0, 0.0, 1.0, 2.0)]
    assert aggregate("desc_score", items) == pytest.approx(1.25)
    assert aggregate("desc_score_std", items) == pytest.approx(0.9574271, abs=1e-6)  # sample std, ddof=1
    rec = {"task_type": "description", "breakdown": {"image_category": "trap", "difficulty": "hard"}}
    assert rule_metric_names(rec)[:2] == ["desc_score", "desc_score_std"]


def test_gold_and_wrong_replies_on_every_record(copy):
    for name in IB.FILES.values():
        for rec in read_records(copy / f"{name}.jsonl"):
            assert score_item(rec, gold_response(rec))["correct"], rec["id"]
            assert not score_item(rec, wrong_response(rec))["correct"], rec["id"]


def test_cli_import_writes_a_local_copy(tmp_path, capsys):
    from illusion_fixtures import write_illusionbench_source

    from ambi_plugin.cli import main

    jsonl, images = write_illusionbench_source(tmp_path)
    out = tmp_path / "copy"
    assert main(["import", "illusionbench", "--jsonl", str(jsonl), "--images", str(images), "--out", str(out), "--shuffle-seed", "5"]) == 0  # fmt: skip
    assert "wrote 75 records" in capsys.readouterr().out
    assert {r["shuffle_seed"] for r in read_records(out / "illusionbench_mc.jsonl")} == {5}
    assert main(["import", "illusionbench", "--jsonl", str(tmp_path / "none.jsonl"), "--images", str(images), "--out", str(out)]) == 2  # fmt: skip
    assert "none.jsonl" in capsys.readouterr().err
