"""A task of each benchmark runs through the real lmms-eval CLI from the built copies under one data root."""

from __future__ import annotations

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

TASKS = ("ambibench_color_open", "ambi_illusionbench_tf", "ambi_illusionvqa_soft_localization", "ambi_synth_region",
         "ambi_rcid_stripe_pixel", "ambi_viabench_va")  # fmt: skip
ACC = {"ambi_viabench_va": "acc_match"}  # VIA-Bench reports Match and Judge accuracies, no plain acc


def test_tasks_run_from_the_data_root(data_root, tmp_path, monkeypatch, lmms_eval):
    env = {"AMBI_DATA_ROOT": str(data_root), "AMBI_CONFIG": str(tmp_path / "none.yaml")}
    env.update({f"AMBI_{b.upper()}_DIR": "" for b in ("ambibench", "illusionbench", "illusionvqa", "rcid", "viabench")})
    for key, val in env.items():
        monkeypatch.setenv(key, val)
    preds = tmp_path / "gold.jsonl"
    n = write_reference_predictions(preds, tasks=list(TASKS), mode="gold")  # reads the records via the data root
    assert n > 0
    result = lmms_eval(replay_args(preds, ",".join(TASKS)), tmp_path / "out", env=env, timeout=900)
    got = task_metrics(result.results)
    for task in TASKS:
        assert got[task][ACC.get(task, "acc")] == pytest.approx(1.0), (task, got.get(task))
    samples = result.results["n-samples"]
    assert samples["ambibench_color_open"]["effective"] == 4
    assert samples["ambi_rcid_stripe_pixel"]["effective"] == 7  # the test and the dev (validation) rows
    assert samples["ambi_viabench_va"]["effective"] == 3


def test_without_the_data_root_there_is_no_copy_here(tmp_path, monkeypatch):
    """What makes the run above prove the data root: offline, no other copy of AmbiBench is reachable."""
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.data.sources import source_root

    monkeypatch.delenv("AMBI_DATA_ROOT", raising=False)
    monkeypatch.delenv("AMBI_AMBIBENCH_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    with pytest.raises(DataUnavailableError):
        source_root("ambi://ambibench")
