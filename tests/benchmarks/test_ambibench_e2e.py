"""AmbiBench end to end through the real lmms-eval CLI (fresh processes, ``ambi_replay``) on the fixtures.

* gold answers: every accuracy, exact match, AP@0.5 and hit rate is 1, with exactly the metric names
  docs/ambibench.md lists per task (per-view and single/combined breakdowns included);
* the Appendix A.10 outputs score as the paper labels them and partial answers score 0 for their item
  (checked item by item in the logged samples, and in the aggregates);
* a per-model box format in the task YAML converts boxes before scoring;
* the 12 real rotation illusions run through the multi-view task.

lmms-eval exits 0 even when a run fails: every assertion reads the results JSON or the samples.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from support.ambibench_fixtures import partial_response

from ambi_plugin.benchmarks import ambibench as AB
from ambi_plugin.benchmarks.ambibench.examples import outputs_by_id
from ambi_plugin.core.answers import gold_response, wrong_response
from ambi_plugin.core.coords import from_original_pixels
from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.paths import tasks_dir
from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

ONE = {"acc", "exact_match", "ap50", "ap50_single", "ap50_combined", "hit_rate", "hit_rate_single", "hit_rate_combined"}


def run_lmms(tmp_path: Path, env: dict, answers: list[dict], tasks: str, extra: tuple[str, ...] = ()):
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    out = tmp_path / "out"
    run = run_lmms_eval(replay_args(preds, tasks, *extra), output=out, env=env, timeout=900)
    if run.results is None:
        pytest.fail(f"lmms-eval wrote no results JSON\n{run.tail()}")
    results = run.results
    samples = {}
    for path in out.rglob("*samples_*.jsonl"):
        task = path.stem.split("_samples_", 1)[1]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return task_metrics(results), samples


def _documented_metrics() -> dict[str, list[str]]:
    """{task: metric names} from the task table of docs/ambibench.md (its last column)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ambibench.md").read_text(encoding="utf-8")
    rows = [ln for ln in doc.splitlines() if ln.startswith("| `ambibench_")]
    return {re.findall(r"`([a-z0-9_]+)`", r)[0]: re.findall(r"`([a-z0-9_]+)`", r.split("|")[-2]) for r in rows}


def _records(root: Path) -> dict[str, list[dict]]:
    return {t.name: read_records(Path(root) / f"{t.data}.jsonl") for t in AB.TASKS}


def test_gold_answers_score_best_with_the_documented_metrics(tmp_path, offline_env, ambibench_fixtures_dir):
    recs = _records(ambibench_fixtures_dir)
    answers = [{"task": t, "id": r["id"], "response": gold_response(r)} for t, rs in recs.items() for r in rs]
    got, samples = run_lmms(tmp_path, offline_env, answers, AB.ALL_GROUP)
    assert sorted(got) == sorted(t.name for t in AB.TASKS)
    documented = _documented_metrics()
    for spec in AB.TASKS:
        metrics = got[spec.name]
        assert sorted(metrics) == sorted(documented[spec.name]) == sorted(spec.metrics), spec.name
        for name, value in metrics.items():
            if name == "ap50_combined" and spec.name == "ambibench_mixed_localization":
                assert math.isnan(value)  # mixed queries have no combined objects
            elif name == "fp_ratio":
                assert math.isnan(value)  # no errors: FP / (FP + FN) undefined
            elif name in ONE or name.startswith("acc_"):
                assert value == 1.0, (spec.name, name, value)
            else:
                assert value == 0.0, (spec.name, name, value)  # unparsed_rate, judge_errors
        assert len(samples[spec.name]) == len(recs[spec.name])


def _labelled_answers(recs: dict[str, list[dict]]) -> tuple[list[dict], dict[tuple[str, str], bool]]:
    """A.10 records get their printed output; every other record a partial answer (else a wrong one)."""
    a10 = outputs_by_id()
    answers, expected = [], {}
    for task, rs in recs.items():
        for r in rs:
            if r["id"] in a10:
                response, label = a10[r["id"]]
            else:
                response, label = partial_response(r) or wrong_response(r), False
            answers.append({"task": task, "id": r["id"], "response": response})
            expected[(task, r["id"])] = label
    return answers, expected


def test_a10_outputs_and_partial_answers_score_as_labelled(tmp_path, offline_env, ambibench_fixtures_dir):
    recs = _records(ambibench_fixtures_dir)
    answers, expected = _labelled_answers(recs)
    assert sum(expected.values()) == 9 and len(expected) - sum(expected.values()) >= 50
    got, samples = run_lmms(tmp_path, offline_env, answers, AB.ALL_GROUP)
    for spec in AB.TASKS:
        base = spec.metrics[0]
        items = [s[base] for s in samples[spec.name]]
        assert sorted(it["id"] for it in items) == sorted(r["id"] for r in recs[spec.name])
        for it in items:
            assert it["correct"] is expected[(spec.name, it["id"])], (spec.name, it["id"], it.get("response"))
        want = sum(expected[(spec.name, r["id"])] for r in recs[spec.name]) / len(recs[spec.name])
        if spec.task_type == "localization":
            assert got[spec.name]["hit_rate"] == 0.0 and 0.0 < got[spec.name]["ap50"] < 1.0, spec.name
        else:
            assert got[spec.name][base] == pytest.approx(want), spec.name
    # the partial answers get their first position right: per-view accuracy shows it
    assert got["ambibench_hybrid_open"]["acc_near"] == 1.0 and got["ambibench_hybrid_open"]["acc_far"] < 1.0
    assert got["ambibench_mixed_region"]["acc_layer1"] == 1.0 and got["ambibench_mixed_region"]["acc_layer2"] == 0.0
    assert got["ambibench_multiscene_region"]["acc_layer1"] == pytest.approx(2 / 3)  # A.10: "cactus; fence"
    assert got["ambibench_bistable_choice"]["exact_match"] == pytest.approx(1 / 5)  # A.10's "A, B" only


BOX_YAML = """include: {tasks}/_templates/_localization
task: mybench_boxes_{name}
dataset_path: ambi://ambibench
dataset_name: mixed_localization
lmms_eval_specific_kwargs:
  default:
    prompt: "Locate the {{objects}}; the image size is Width: {{width}}, Height: {{height}}."
{entry}
metadata: {{version: 1, benchmark: mybench, category: boxes, task_type: localization}}
"""


def test_per_model_box_format_converts_before_scoring(tmp_path, offline_env, ambibench_fixtures_dir):
    yamls = tmp_path / "yamls"
    yamls.mkdir()
    per_model = '  ambi_replay:\n    prompt: "Locate the {objects}."\n    box_format: norm1000'
    (yamls / "a.yaml").write_text(BOX_YAML.format(tasks=tasks_dir(), name="norm", entry=per_model))
    (yamls / "b.yaml").write_text(BOX_YAML.format(tasks=tasks_dir(), name="plain", entry=""))
    answers = []
    for r in read_records(Path(ambibench_fixtures_dir) / "mixed_localization.jsonl"):
        boxes = [from_original_pixels(b["box"], {**r, "box_format": "norm1000"}) for b in r["boxes"]]
        text = "[" + ", ".join("({:.1f}, {:.1f}, {:.1f}, {:.1f})".format(*b) for b in boxes) + "]"
        answers += [{"task": f"mybench_boxes_{n}", "id": r["id"], "response": text} for n in ("norm", "plain")]
    got, samples = run_lmms(tmp_path, offline_env, answers, "mybench_boxes_norm,mybench_boxes_plain",
                      ("--include_path", str(yamls)))  # fmt: skip
    # the model's entry replaces the default prompt too (each prompt can be overridden per model)
    assert {x["input"] for x in samples["mybench_boxes_norm"]} == {
        "Locate the young woman, old woman.", "Locate the duck, rabbit."}  # fmt: skip
    assert all("Width: 320, Height: 240." in x["input"] for x in samples["mybench_boxes_plain"])
    assert got["mybench_boxes_norm"]["ap50"] == 1.0 and got["mybench_boxes_norm"]["hit_rate"] == 1.0
    assert got["mybench_boxes_plain"]["hit_rate"] == 0.0  # the same answers read as pixels miss


def test_real_rotation_illusions_run_through_the_multiview_task(tmp_path, offline_env, shared_data):
    from ambi_plugin.benchmarks.ambibench.importer import import_visual_anagrams

    folder = import_visual_anagrams(shared_data / "visual_anagrams", tmp_path / "va")
    recs = read_records(folder / "multiview_open.jsonl")
    answers = [{"task": "ambibench_multiview_open", "id": r["id"],
                "response": gold_response(r) if i % 2 == 0 else partial_response(r)} for i, r in enumerate(recs)]  # fmt: skip
    env = {**offline_env, "AMBI_AMBIBENCH_DIR": str(folder)}
    got, samples = run_lmms(tmp_path, env, answers, "ambibench_multiview_open")
    m = got["ambibench_multiview_open"]
    assert len(samples["ambibench_multiview_open"]) == 12
    assert m["acc"] == pytest.approx(0.5) and m["acc_upright"] == 1.0 and m["acc_rotated"] == pytest.approx(0.5)
    assert m["unparsed_rate"] == 0.0


def test_tiny_qwen_backend_runs_video_frames_and_per_model_boxes(tmp_path, offline_env):
    """lmms-eval's own qwen2_5_vl backend (tiny random weights): the 8 sampled video frames, the model's
    qwen_resized box entry and a positional open task go through a real model. Scores mean nothing."""
    from ambi_plugin.cli.demo import TINY_MODEL_ARGS, lmms_eval_args
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    model = make_tiny_qwen2_5_vl(tmp_path / "tiny")
    tasks = ["ambibench_motion_video_open", "ambibench_multiscene_localization", "ambibench_hybrid_open"]
    out = tmp_path / "out"
    args = lmms_eval_args(model="qwen2_5_vl", model_args=f"pretrained={model},{TINY_MODEL_ARGS}",
                          tasks=",".join(tasks), limit=2, gen_kwargs="max_new_tokens=8")  # fmt: skip
    run = run_lmms_eval(args, output=out, env=offline_env, timeout=1200)
    if run.results is None:
        pytest.fail(run.tail())
    got = task_metrics(run.results)
    for task in tasks:
        want = set(AB.TASKS_BY_NAME[task].metrics)
        if task == "ambibench_hybrid_open":
            want.discard("acc_very_far")  # --limit 2 keeps two-view hybrids only
        assert set(got[task]) == want, task
