"""VIA-Bench end to end through the real lmms-eval CLI (``ambi_replay``): every task of every variant in one run
(groups ``ambi_viabench_all``, ``_zs_cot_all``, ``_manual_cot_all``, ``_blind_all`` and ``ambi_viabench_val_all``:
28 tasks). The 249 real questions and images of the public challenge split (no answers: parsing and counting are
checked) and the per-category fixtures (with answers: Match and Judge accuracies are checked), each variant
answered with its own replies, so every task's numbers are its own. lmms-eval exits 0 even when a run fails, so
every assertion reads the results JSON."""

from __future__ import annotations

import json
import math

import pytest
from viabench_fixtures import build_copy

from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.benchmarks.viabench.scoring import metric_names
from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

GROUPS = "ambi_viabench_all,ambi_viabench_zs_cot_all,ambi_viabench_manual_cot_all,ambi_viabench_blind_all"
SUFFIX = {v: suffix for v, (suffix, _, _) in S.VARIANTS.items()}
CATEGORY_TASKS = {f"ambi_viabench_{c}{SUFFIX[v]}": (c, v) for v in S.VARIANTS for c in S.CATEGORIES}
VAL_TASKS = {f"ambi_viabench_val{SUFFIX[v]}": v for v in S.VARIANTS}
VAL_KINDS = 8


def val_kind(k: int, variant: str) -> int:
    """Which of the :func:`val_response` replies item ``k`` gets; each variant starts elsewhere in the cycle."""
    return (k + list(S.VARIANTS).index(variant)) % VAL_KINDS


def val_response(kind: int, rec: dict) -> str:
    """Realistic replies whose Match reading is known: a marker, markdown + Not Sure, empty, a refusal, a CoT,
    "Not Sure" written out, "I cannot determine" after the marker, the format template echoed."""
    ns = rec.get("not_sure_index")
    return [
        "Answer: [A]",
        f"**Answer:** {chr(ord('A') + ns)}" if ns is not None else "Answer: [A]",
        "",
        "I'm sorry, but I can't determine that from the image.",
        "Let me compare. Option A looks plausible, but option C does not fit. The answer is b.",
        "Answer: Not Sure",  # the option's text: read as "Not Sure" (unparsed where the row has no such option)
        "Answer: I cannot determine.",  # not option I
        "Answer: [A/B/C/D]",  # not option A
    ][kind]


def fixture_response(rec: dict, variant: str) -> str:
    """Three items per category (gold known, "Not Sure" last); each variant answers them differently."""
    j = int(rec["id"].rsplit("-", 1)[1])
    gold = rec["answer_index"]
    label, ns = chr(ord("A") + gold), chr(ord("A") + rec["not_sure_index"])
    wrong = chr(ord("A") + (gold + 1) % rec["not_sure_index"])
    return {
        "normal": (f"Answer: [{label}]", rec["options"][gold], f"Option A is one reading, option B another. Answer: [{ns}]"),
        "zs_cot": (f"Option A is one reading and option C another; looking closely, Answer: [{label}]",
                   f"Answer: {rec['options'][gold]}", "Answer: Not Sure"),
        "manual_cot": ("Answer: I cannot determine.", "Answer: [A/B/C/D]", f"**Answer:** {label}"),
        "blind": (f"Answer: [{wrong}]", "", f"Answer: [{label}]"),
    }[variant][j]  # fmt: skip


# Per variant, over the three items: (acc_match, acc_judge, not_sure_rate, not_sure_rate_judge, unparsed, empty).
# Match reads option text only after a marker; the offline judge reads it anywhere.
FIXTURE_EXPECTED = {
    "normal": (1 / 3, 2 / 3, 1 / 3, 1 / 3, 1 / 3, 0),
    "zs_cot": (2 / 3, 2 / 3, 1 / 3, 1 / 3, 0, 0),
    "manual_cot": (1 / 3, 1 / 3, 0, 0, 2 / 3, 0),
    "blind": (1 / 3, 1 / 3, 0, 0, 1 / 3, 1),
}


@pytest.fixture(scope="module")
def copy_dir(tmp_path_factory, shared_data):
    return build_copy(tmp_path_factory.mktemp("viabench"), shared_data)


def test_every_viabench_task_through_lmms_eval(tmp_path, copy_dir, lmms_eval):
    val = read_records(copy_dir / "viabench_val.jsonl")
    assert len(val) == 249
    lines = []
    for task, variant in VAL_TASKS.items():
        lines += [{"task": task, "id": r["id"], "response": val_response(val_kind(k, variant), r)}
                  for k, r in enumerate(val)]  # fmt: skip
    for task, (cat, variant) in CATEGORY_TASKS.items():
        for rec in read_records(copy_dir / f"viabench_{cat}.jsonl"):
            lines.append({"task": task, "id": rec["id"], "response": fixture_response(rec, variant)})
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(x) + "\n" for x in lines))
    args = replay_args(f"{preds},check_visuals=true", f"{GROUPS},ambi_viabench_val_all")  # every real image loaded
    run = lmms_eval(args, tmp_path / "out", env={"AMBI_VIABENCH_DIR": str(copy_dir)})
    got = task_metrics(run.results)
    assert sorted(got) == sorted([*CATEGORY_TASKS, *VAL_TASKS]), run.tail()
    assert len(got) == 28

    # the real split, every variant: no answers, so accuracies are NaN; parsing and counting are exact
    n = len(val)
    for task, variant in VAL_TASKS.items():
        v = got[task]
        kinds = [val_kind(k, variant) for k in range(n)]
        assert sorted(v) == sorted(metric_names(by_category=True)), task
        assert math.isnan(v["acc_match"]) and math.isnan(v["acc_judge"]), task
        assert v["empty_count"] == kinds.count(2), task
        has_ns = [r.get("not_sure_index") is not None for r in val]
        unparsed = sum(1 for kd, ok in zip(kinds, has_ns) if kd in (2, 3, 6, 7) or (kd == 5 and not ok))
        assert v["unparsed_rate"] == pytest.approx(unparsed / n), task
        ns = sum(1 for kd, ok in zip(kinds, has_ns) if kd in (1, 5) and ok)
        assert v["not_sure_rate"] == pytest.approx(ns / n), task
        assert v["not_sure_rate_judge"] == pytest.approx(ns / n), task
        assert v["judge_errors"] == 0, task
        assert v["random_baseline"] == pytest.approx(sum(1 / len(r["options"]) for r in val) / n)
        assert round(100 * v["random_baseline"], 1) == 28.8  # PROTOCOL (checked): 28.8% with "Not Sure"
        assert all(math.isnan(v[f"acc_match_{c}"]) and math.isnan(v[f"not_sure_rate_judge_{c}"])
                   for c in S.CATEGORIES)  # no categories published  # fmt: skip

    # the fixtures: every category task of every variant, its variant's replies
    for task, (_cat, variant) in CATEGORY_TASKS.items():
        m = got[task]
        assert sorted(m) == sorted(metric_names(by_category=False)), task
        acc_m, acc_j, ns_m, ns_j, unparsed, empty = FIXTURE_EXPECTED[variant]
        assert m["acc_match"] == pytest.approx(acc_m), task
        assert m["acc_judge"] == pytest.approx(acc_j), task
        assert m["not_sure_rate"] == pytest.approx(ns_m) and m["not_sure_rate_judge"] == pytest.approx(ns_j), task
        assert m["unparsed_rate"] == pytest.approx(unparsed) and m["empty_count"] == empty, task
        assert m["random_baseline"] == pytest.approx((1 / 4 + 1 / 3 + 1 / 4) / 3), task

    # every variant reaches the prompt: its system prompt leads the text of simple backends; blind has no image
    def first_input(task: str) -> str:
        with run.samples[task].open() as fh:
            return json.loads(fh.readline())["input"]

    for task, variant in [*((t, v) for t, (_, v) in CATEGORY_TASKS.items()), *VAL_TASKS.items()]:
        text = first_input(task)
        assert text.startswith(S.SYSTEM_PROMPTS[variant] + "\n\nQuestion:\n"), task
        assert text.endswith(S.FORMAT_INSTRUCTION), task
        kwargs = run.results["configs"][task]["lmms_eval_specific_kwargs"]["default"]
        assert kwargs.get("blind", False) is (variant == "blind"), task
    assert "image" not in S.SYSTEM_PROMPTS["blind"].lower()
    # no debiasing seed was set: the ambi_plugin section records none
    assert "viabench_debias" not in run.results["ambi_plugin"]
