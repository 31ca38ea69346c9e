"""Every RCID task end to end through the real lmms-eval CLI (``ambi_replay``) on the offline synthetic copy:
replayed answers with a known outcome per item (human-like, no-illusion, neither, unreadable; controls right or
wrong), so every metric and breakdown in the results JSON has a value this test computes by counting."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ambi_plugin.benchmarks.rcid import build_synthetic
from ambi_plugin.benchmarks.rcid import prompts as P
from ambi_plugin.core.answers import GARBAGE, wrong_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import slug
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.report import task_metrics
from ambi_plugin.taskindex import index

pytestmark = pytest.mark.e2e

N = 8
TASKS = [P.task_name(t, v) for t in P.TYPES for v in (*P.FAMILIES, *P.VARIANTS)]
ILLUSION_POLICY = ("human", "pixel", "neither", "garbage")
CONTROL_POLICY = ("pixel", "neither")
OUTCOME = {"human": "human_like", "pixel": "no_illusion", "neither": "na", "garbage": "na"}


def _policy(recs: list[dict]) -> list[str]:
    ill = ctl = 0
    out = []
    for rec in recs:
        if rec["is_illusion"]:
            out.append(ILLUSION_POLICY[ill % 4])
            ill += 1
        else:
            out.append(CONTROL_POLICY[ctl % 2])
            ctl += 1
    return out


def _reply(rec: dict, what: str, *, cot: bool) -> str:
    if what == "garbage":
        return GARBAGE
    if rec["task_type"] == "color_naming":
        text = {"human": rec["human_colors"][0], "pixel": rec["pixel_colors"][0]}.get(what) or wrong_response(rec)
        return f"A colored filter may tint the whole scene. Answer: {text}" if cot else text
    if what == "neither":
        label = wrong_response(rec)
    else:
        label = ("I", "II", "III")[rec[f"{what}_answer_index"]]
    return f"The backgrounds differ, so option I or II could look darker. Answer: {label}" if cot else label


def _expected(recs: list[dict], policy: list[str], metric: str) -> float:
    base, _, value = next(
        ((b, "_", metric[len(b) + 1 :]) for b in ("human_like_rate", "no_illusion_rate", "na_rate", "control_acc",
         "unparsed_rate", "acc") if metric == b or metric.startswith(b + "_")),
    )  # fmt: skip
    pairs = [(r, p) for r, p in zip(recs, policy) if not value or value in {slug(v) for v in r["breakdown"].values()}]
    if base == "control_acc":
        pairs = [(r, p) for r, p in pairs if not r["is_illusion"]]
        return sum(p == "pixel" for _, p in pairs) / len(pairs) if pairs else math.nan
    if base == "unparsed_rate":
        return sum(p == "garbage" for _, p in pairs) / len(pairs)
    if base == "acc":
        if not pairs:
            return math.nan
        right = "human" if recs[0]["prompt_kind"] == "human" else "pixel"
        return sum(p == right or (not r["is_illusion"] and p == "pixel") for r, p in pairs) / len(pairs)
    ill = [p for r, p in pairs if r["is_illusion"]]
    want = base.removesuffix("_rate")
    return sum(OUTCOME[p] == want for p in ill) / len(ill) if ill else math.nan


@pytest.fixture(scope="module")
def rcid_copy(tmp_path_factory) -> Path:
    return build_synthetic(tmp_path_factory.mktemp("rcid") / "copy", n=N)


def test_every_rcid_task_through_the_cli(tmp_path, lmms_eval, rcid_copy):
    idx = index()
    preds, expected = [], {}
    for task in TASKS:
        recs = read_records(rcid_copy / f"{idx[task].config['dataset_name']}.jsonl")[:N]
        policy = _policy(recs)
        cot = task.endswith("_cot")
        preds += [{"task": task, "id": r["id"], "response": _reply(r, p, cot=cot)} for r, p in zip(recs, policy)]
        declared = [m["metric"] for m in idx[task].config["metric_list"]]
        expected[task] = {m: _expected(recs, policy, m) for m in declared}
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in preds))
    run = lmms_eval(
        [*replay_args(path, "ambi_rcid_all"), "--limit", str(N)],
        tmp_path / "out",
        env={"AMBI_RCID_DIR": str(rcid_copy)},
    )
    got = task_metrics(run.results)
    assert sorted(got) == sorted(TASKS), run.tail()
    for task in TASKS:
        assert sorted(got[task]) == sorted(expected[task]), task
        for metric, want in expected[task].items():
            val = got[task][metric]
            assert (math.isnan(val) and math.isnan(want)) or val == pytest.approx(want), (task, metric, val, want)
        rates = [got[task][m] for m in ("human_like_rate", "no_illusion_rate", "na_rate")]
        assert sum(rates) == pytest.approx(1.0), task
    # the breakdowns PROTOCOL names are in the results JSON
    assert "human_like_rate_left_right" in got["ambi_rcid_contrast_pixel"]
    assert "no_illusion_rate_diagonal" in got["ambi_rcid_stripe_human"]
    assert "na_rate_multiple" in got["ambi_rcid_filter_fewshot_hl"]
