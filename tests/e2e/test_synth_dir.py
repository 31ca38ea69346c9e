"""The documented way to run the synthetic tasks on your own suite: ``ambi synth --out DIR`` + ``AMBI_SYNTH_DIR``."""

from __future__ import annotations

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.synth import build_suite

pytestmark = pytest.mark.e2e

TASK = "ambi_synth_multiview_open"


def test_tasks_read_the_suite_in_ambi_synth_dir(tmp_path, lmms_eval):
    suite = build_suite(tmp_path / "suite", seed=7, n=3)
    preds = tmp_path / "gold.jsonl"
    assert write_reference_predictions(preds, tasks=TASK, mode="gold", data_dir=suite) == 3
    run = lmms_eval(replay_args(preds, TASK), tmp_path / "out", env={"AMBI_SYNTH_DIR": str(suite)}, timeout=600)
    assert run.results["n-samples"][TASK]["effective"] == 3  # the default suite has 8 items per task
    assert task_metrics(run.results)[TASK]["acc"] == 1.0
    assert run.results["ambi_plugin"]["synth"] == {"seed": 7, "n": 3, "dir": str(suite)}
