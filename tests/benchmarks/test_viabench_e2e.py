"""VIA-Bench end to end through the real lmms-eval CLI (``ambi_replay``): the 249 real questions and images of
the public challenge split (no answers: parsing and counting are checked) and the per-category fixtures (with
answers: Match and Judge accuracies are checked). lmms-eval exits 0 even when a run fails, so every assertion
reads the results JSON."""

from __future__ import annotations

import json
import math

import pytest
from viabench_fixtures import build_copy

from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.benchmarks.viabench.scoring import metric_names
from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.report import task_metrics

pytestmark = pytest.mark.e2e

CATEGORY_TASKS = [f"ambi_viabench_{c}" for c in S.CATEGORIES]
VARIANT_TASKS = ["ambi_viabench_ci_blind", "ambi_viabench_va_zs_cot", "ambi_viabench_gi_manual_cot"]


def val_response(k: int, rec: dict) -> str:
    """Realistic replies whose Match reading is known: a marker, markdown + Not Sure, empty, a refusal, a CoT."""
    ns = rec.get("not_sure_index")
    return [
        "Answer: [A]",
        f"**Answer:** {chr(ord('A') + ns)}" if ns is not None else "Answer: [A]",
        "",
        "I'm sorry, but I can't determine that from the image.",
        "Let me compare. Option A looks plausible, but option C does not fit. The answer is b.",
    ][k % 5]


def fixture_response(rec: dict) -> str:
    j = int(rec["id"].rsplit("-", 1)[1])
    gold = rec["answer_index"]
    if j == 0:  # right in both protocols
        return f"Answer: [{chr(ord('A') + gold)}]"
    if j == 1:  # the option's text: Match finds no label, the judge reads the option
        return rec["options"][gold]
    return (
        f"Option A is one reading, option B another; I cannot tell. Answer: [{chr(ord('A') + rec['not_sure_index'])}]"
    )


@pytest.fixture(scope="module")
def copy_dir(tmp_path_factory, shared_data):
    return build_copy(tmp_path_factory.mktemp("viabench"), shared_data)


def test_real_val_split_and_fixtures_through_lmms_eval(tmp_path, copy_dir, lmms_eval):
    val = read_records(copy_dir / "viabench_val.jsonl")
    assert len(val) == 249
    lines = [{"task": "ambi_viabench_val", "id": r["id"], "response": val_response(k, r)} for k, r in enumerate(val)]
    for task in CATEGORY_TASKS + VARIANT_TASKS:
        cat = task.split("_")[2]
        for rec in read_records(copy_dir / f"viabench_{cat}.jsonl"):
            lines.append({"task": task, "id": rec["id"], "response": fixture_response(rec)})
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(x) + "\n" for x in lines))
    tasks = ",".join(["ambi_viabench_val", "ambi_viabench_all", *VARIANT_TASKS])
    args = replay_args(f"{preds},check_visuals=true", tasks)  # check_visuals: every real image is loaded
    run = lmms_eval(
        args,
        tmp_path / "out",
        env={"AMBI_VIABENCH_DIR": str(copy_dir)},
    )
    got = task_metrics(run.results)

    # the real split: no answers, so accuracies are NaN; parsing and counting are exact
    v = got["ambi_viabench_val"]
    assert sorted(v) == sorted(metric_names(by_category=True))
    n = len(val)
    assert math.isnan(v["acc_match"]) and math.isnan(v["acc_judge"])
    assert v["empty_count"] == sum(1 for k in range(n) if k % 5 == 2)
    assert v["unparsed_rate"] == pytest.approx(sum(1 for k in range(n) if k % 5 in (2, 3)) / n)
    ns = sum(1 for k, r in enumerate(val) if k % 5 == 1 and r.get("not_sure_index") is not None)
    assert v["not_sure_rate"] == pytest.approx(ns / n)
    assert v["not_sure_rate_judge"] == pytest.approx(ns / n)
    assert v["judge_errors"] == 0
    assert v["random_baseline"] == pytest.approx(sum(1 / len(r["options"]) for r in val) / n)
    assert round(100 * v["random_baseline"], 1) == 28.8  # PROTOCOL (checked): 28.8% with "Not Sure"
    assert all(math.isnan(v[f"acc_match_{c}"]) for c in S.CATEGORIES)  # no categories published

    # the fixtures: per category, Match 1/3 (option text is no label), Judge 2/3, one "Not Sure" each
    for task in CATEGORY_TASKS + VARIANT_TASKS:
        m = got[task]
        assert sorted(m) == sorted(metric_names(by_category=False)), task
        assert m["acc_match"] == pytest.approx(1 / 3), task
        assert m["acc_judge"] == pytest.approx(2 / 3), task
        assert m["not_sure_rate"] == pytest.approx(1 / 3) and m["not_sure_rate_judge"] == pytest.approx(1 / 3)
        assert m["unparsed_rate"] == pytest.approx(1 / 3) and m["empty_count"] == 0
        assert m["random_baseline"] == pytest.approx((1 / 4 + 1 / 3 + 1 / 4) / 3)

    # variants reach the prompt: the system prompt leads the text of simple backends; blind records no image
    def first_input(task: str) -> str:
        with run.samples[task].open() as fh:
            return json.loads(fh.readline())["input"]

    assert first_input("ambi_viabench_va_zs_cot").startswith(S.SYSTEM_ZERO_SHOT_COT + "\n\nQuestion:\n")
    assert first_input("ambi_viabench_gi_manual_cot").startswith(S.SYSTEM_MANUAL_COT)
    assert first_input("ambi_viabench_val").endswith(S.FORMAT_INSTRUCTION)
    assert run.results["configs"]["ambi_viabench_ci_blind"]["lmms_eval_specific_kwargs"]["default"]["blind"] is True
