"""lmms-eval's own qwen2_5_vl backend, with a tiny random-weight model, on the whole synth suite.

The scores of a random model mean nothing; the test proves that every task runs through a real
model backend and that the results JSON holds every metric of every task.
"""

from __future__ import annotations

import json
import math

import pytest

from ambi_plugin.cli.demo import TINY_MODEL_ARGS, lmms_eval_args
from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.runtime.taskindex import expand_tasks

pytestmark = pytest.mark.e2e


def test_tiny_qwen_runs_every_synth_task(tmp_path, lmms_eval):
    model = make_tiny_qwen2_5_vl(tmp_path / "tiny")
    out = tmp_path / "out"
    args = lmms_eval_args(
        model="qwen2_5_vl",
        model_args=f"pretrained={model},{TINY_MODEL_ARGS}",
        tasks="ambi_synth_all",
        limit=2,
        gen_kwargs="max_new_tokens=8",
    )
    results = lmms_eval(args, out).results
    got = task_metrics(results)
    for info in expand_tasks("ambi_synth_all"):
        declared = sorted(m["metric"] for m in info.config["metric_list"])
        assert info.name in got, f"{info.name} missing from results"
        assert sorted(got[info.name]) == declared, info.name
        # a random model answers something: rates are numbers in range or NaN (empty subsets)
        for metric, val in got[info.name].items():
            assert math.isnan(val) or (0.0 <= val <= 2.0), (info.name, metric, val)
    samples = list(out.rglob("*_samples_*.jsonl"))
    assert samples, "no samples logged"
    first = json.loads(samples[0].read_text().splitlines()[0])
    resp = first.get("filtered_resps")
    resp = resp[0] if isinstance(resp, list) else resp
    assert isinstance(resp, str) and resp.strip(), "the tiny model produced no text"
