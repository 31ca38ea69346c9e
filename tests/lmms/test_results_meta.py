"""The ``ambi_plugin`` section of the results JSON (the real CLI run is in tests/e2e/test_lmms_cli_judge.py)."""

from __future__ import annotations

import math

from ambi_plugin.judge import reset_judge
from ambi_plugin.lmms.patches import install
from ambi_plugin.lmms.results_meta import ambi_section


def test_section_collects_judge_errors_and_synth(monkeypatch):
    monkeypatch.delenv("AMBI_JUDGE_BACKEND", raising=False)
    monkeypatch.setenv("AMBI_SYNTH_SEED", "3")
    monkeypatch.setenv("AMBI_SYNTH_N", "5")
    reset_judge()
    results = {
        "results": {
            "t_open": {"alias": "t_open", "acc,none": 0.5, "judge_errors,none": 2.0},
            "t_desc": {"judge_errors,none": 0.0},
            "t_choice": {"acc,none": 1.0},
            "t_nan": {"judge_errors,none": math.nan},
        },
        "configs": {"t_open": {"dataset_path": "ambi://synth"}, "t_choice": {"dataset_path": "json"}},
    }
    section = ambi_section(results)
    assert section["judge"]["backend"] == "offline"
    assert section["judge"]["errors"] == {"t_open": 2.0, "t_desc": 0.0} and section["judge"]["errors_total"] == 2.0
    assert section["synth"] == {"seed": 3, "n": 5}
    assert "synth" not in ambi_section({"results": {}, "configs": {"x": {"dataset_path": "lmms-lab/x"}}})


def test_patch_is_idempotent():
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    install("lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated")
    first = EvaluationTracker.save_results_aggregated
    install("lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated")
    assert EvaluationTracker.save_results_aggregated is first
    assert getattr(first, "__ambi_plugin_wrapped__", False)
