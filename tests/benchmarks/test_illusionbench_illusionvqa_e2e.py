"""IllusionBench and IllusionVQA end to end through the real lmms-eval CLI (``ambi_replay``), on fixture
folders: generated images, the real 435 + 1000 IllusionVQA questions. lmms-eval exits 0 even when a run
fails, so every assertion reads the results JSON."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from illusion_fixtures import constructed_answers, illusionbench_copy, illusionvqa_copy, shared_rows

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import slug
from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.reports.paper_tables import tables_from_results
from ambi_plugin.reports.rescore import score_answers
from ambi_plugin.reports.results import find_results_json, task_metrics
from ambi_plugin.runtime.taskindex import expand_tasks, index

pytestmark = pytest.mark.e2e

GROUPS = "ambi_illusionbench_all,ambi_illusionbench_llm_all,ambi_illusionvqa_all"
IB_GROUPS = "ambi_illusionbench_all,ambi_illusionbench_llm_all"


@pytest.fixture(scope="module")
def data(tmp_path_factory, shared_data) -> dict[str, str]:
    root = tmp_path_factory.mktemp("illusion_e2e")
    return {
        "AMBI_ILLUSIONBENCH_DIR": str(illusionbench_copy(root)),
        "AMBI_ILLUSIONVQA_DIR": str(illusionvqa_copy(root, shared_data)),
    }


def run_lmms(out: Path, env: dict, predictions: Path, tasks: str) -> dict:
    run = run_lmms_eval(replay_args(predictions, tasks), output=out, env=env, timeout=1200)
    if run.results is None:
        pytest.fail(f"lmms-eval wrote no results JSON\n{run.tail()}")
    return run.results


def _declared(task: str) -> list[str]:
    return [m["metric"] for m in index()[task].config["metric_list"]]


def _best(metric: str) -> float:
    """The value a metric takes when every answer is right."""
    if metric.startswith("fp_ratio"):
        return math.nan  # no errors: FP + FN = 0 (PROTOCOL: NaN)
    if metric in ("unparsed_rate", "unparsed", "judge_unscored_rate", "judge_errors") or metric.endswith("_std"):
        return 0.0
    if metric.startswith("desc_score"):
        return 2.0
    assert metric.startswith("acc"), metric
    return 1.0


def _same(got: float, want: float) -> bool:
    return math.isnan(want) and math.isnan(got) or (not math.isnan(want) and got == pytest.approx(want))


def test_gold_answers_give_every_breakdown_its_best_value(tmp_path, offline_env, data, monkeypatch):
    for key, val in data.items():
        monkeypatch.setenv(key, val)
    preds = tmp_path / "gold.jsonl"
    write_reference_predictions(preds, tasks=GROUPS, mode="gold")
    results = run_lmms(tmp_path / "out", {**offline_env, **data}, preds, GROUPS)
    got = task_metrics(results)
    tasks = [t.name for t in expand_tasks(GROUPS)]
    assert sorted(got) == sorted(tasks) and len(tasks) == 11
    for task in tasks:
        assert sorted(got[task]) == sorted(_declared(task)), task
        bad = {m: v for m, v in got[task].items() if not _same(v, _best(m))}
        assert bad == {}, task
    # every breakdown the issue names is in the results JSON
    tf = got["ambi_illusionbench_tf_llm"]
    for value in (*IB.CATEGORIES, *IB.DIFFICULTIES):
        for base in ("acc", "fp_ratio", "acc_llm", "fp_ratio_llm"):
            assert f"{base}_{value}" in tf
        assert f"desc_score_{value}" in got["ambi_illusionbench_description"]
        assert f"desc_score_llm_{value}" in got["ambi_illusionbench_description_llm"]
    assert {"desc_score_std", "desc_score_llm_std"} <= set(got["ambi_illusionbench_description_llm"])
    for cat in IV.CATEGORIES:
        assert f"acc_{slug(cat)}" in got["ambi_illusionvqa_comprehension_4shot"]
    # the shuffle seed and the preprocessing are recorded in the results
    configs = results["configs"]
    seeds = {r["shuffle_seed"] for r in read_records(Path(data["AMBI_ILLUSIONBENCH_DIR"]) / "illusionbench_mc.jsonl")}
    assert seeds == {configs["ambi_illusionbench_mc"]["metadata"]["shuffle_seed"]} == {IB.SHUFFLE_SEED}
    soft = configs["ambi_illusionvqa_soft_localization_4shot_cot"]["lmms_eval_specific_kwargs"]["default"]
    assert soft["preprocess"] == {"max_side": 512, "grayscale": True}


def test_wrong_and_constructed_answers_give_known_values(tmp_path, offline_env, data, monkeypatch, shared_data):
    for key, val in data.items():
        monkeypatch.setenv(key, val)
    preds = tmp_path / "mixed.jsonl"
    write_reference_predictions(preds, tasks=IB_GROUPS, mode="wrong")
    answers, right, unreadable = constructed_answers(shared_rows(shared_data, "comprehension"))
    soft = shared_rows(shared_data, "soft_localization")
    with preds.open("a") as fh:
        for a in answers:
            fh.write(json.dumps({"task": "ambi_illusionvqa_comprehension", **a}) + "\n")
        for r in soft:  # always "a" (the left object): right on the 250 questions whose answer it is
            fh.write(json.dumps({"task": "ambi_illusionvqa_soft_localization", "id": r["id"], "response": "Answer: a"}) + "\n")  # fmt: skip
    tasks = f"{IB_GROUPS},ambi_illusionvqa_comprehension,ambi_illusionvqa_soft_localization"
    results = run_lmms(tmp_path / "out", {**offline_env, **data}, preds, tasks)
    got = task_metrics(results)
    root = Path(data["AMBI_ILLUSIONBENCH_DIR"])
    tf = read_records(root / "illusionbench_tf.jsonl")
    for task in ("ambi_illusionbench_tf", "ambi_illusionbench_tf_llm"):
        for value in (*IB.CATEGORIES, *IB.DIFFICULTIES):
            sub = [r for r in tf if value in r["breakdown"].values()]
            share_false = sum(not r["answer_bool"] for r in sub) / len(sub)  # every answer wrong: FP share
            assert got[task][f"fp_ratio_{value}"] == pytest.approx(share_false), (task, value)
            assert got[task][f"acc_{value}"] == 0.0
        assert got[task]["acc"] == 0.0 and got[task]["unparsed_rate"] == 0.0
    assert got["ambi_illusionbench_tf_llm"]["fp_ratio_llm"] == pytest.approx(
        sum(not r["answer_bool"] for r in tf) / len(tf)
    )
    assert got["ambi_illusionbench_mc_llm"]["acc_llm"] == 0.0 and got["ambi_illusionbench_mc"]["acc_trap"] == 0.0
    assert got["ambi_illusionbench_description_llm"]["desc_score_llm"] == 0.0  # the reply names a conflict term
    comp = got["ambi_illusionvqa_comprehension"]
    for cat in IV.CATEGORIES:
        assert comp[f"acc_{slug(cat)}"] == pytest.approx(right[cat] / IV.PAPER_COUNTS[cat]), cat
    assert comp["acc"] == pytest.approx(sum(right.values()) / 435)
    assert comp["unparsed_rate"] == pytest.approx(unreadable / 435)
    assert comp["unparsed"] == unreadable
    assert got["ambi_illusionvqa_soft_localization"]["acc"] == 0.25  # chance, by construction
    # ``ambi score`` on lmms-eval's own --log_samples file gives the numbers of the results JSON
    samples = next((tmp_path / "out").rglob("*samples_ambi_illusionvqa_comprehension.jsonl"))
    rescored = score_answers("ambi_illusionvqa_comprehension", samples, data_dir=data["AMBI_ILLUSIONVQA_DIR"])
    (vals,) = rescored.values.values()
    assert {k: v for k, v in vals.items() if k in comp} == pytest.approx(comp)
    # ``ambi score --results``: the paper's Table 1 layout from this results JSON
    table = tables_from_results(results)
    row = next(ln for ln in table.splitlines() if ln.startswith("| Impossible Object"))
    assert row.split("|")[3].strip() == f"{100 * right['impossible object'] / 134:.2f}"


SPY = """
import sys
import lmms_eval.models.chat.qwen2_5_vl as chat_qwen
seen = []
real = chat_qwen.process_vision_info
def spy(messages, *args, **kwargs):
    seen.append(messages)
    return real(messages, *args, **kwargs)
chat_qwen.process_vision_info = spy
import lmms_eval.models  # loads our entry point: task discovery and ambi:// datasets
from lmms_eval.__main__ import cli_evaluate
sys.argv = ["lmms_eval", *sys.argv[1:]]
try:
    cli_evaluate()
except SystemExit:
    pass
print("ORDER=" + ",".join(c["type"] for c in seen[0][0][0]["content"]))
"""


def test_a_real_chat_backend_gets_the_examples_interleaved(tmp_path, offline_env, data):
    from ambi_plugin.cli.demo import TINY_MODEL_ARGS
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    model = make_tiny_qwen2_5_vl(tmp_path / "tiny")
    args = ["--model", "qwen2_5_vl", "--model_args", f"pretrained={model},{TINY_MODEL_ARGS}", "--limit", "1",
            "--tasks", "ambi_illusionvqa_soft_localization_4shot_cot", "--gen_kwargs", "max_new_tokens=4",
            "--batch_size", "1", "--output_path", str(tmp_path / "out")]  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", SPY, *args], env={**offline_env, **data}, capture_output=True, text=True, timeout=900)  # fmt: skip
    order = [ln for ln in proc.stdout.splitlines() if ln.startswith("ORDER=")]
    assert order, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert order[0] == "ORDER=" + ",".join(["text", "image"] * 5 + ["text"])  # four examples, then the question
    assert "ambi_illusionvqa_soft_localization_4shot_cot" in task_metrics(
        json.loads(find_results_json(tmp_path / "out").read_text())
    )
