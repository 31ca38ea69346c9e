"""One task route: lmms-eval, the VLMEvalKit adapter and ``ambi score`` give the same metrics and item scores.

lmms-eval runs for real (its CLI with ``ambi_replay`` and ``--log_samples``; its own ``process_results`` calls and
aggregations), VLMEvalKit's run.py runs for real through our launcher, and ``ambi score`` re-scores the same answers (the replay
file). Tasks: synthetic ones of four task types (one with the runtime's breakdown ``process_results``, one
judged, one with a numeric score and its CLT stderr), and tasks whose ``process_results`` and aggregations are their
benchmark's own: RCID's, VIA-Bench's (Match and Judge), IllusionBench's rule task and its LLM-assisted ``_llm`` task
(the offline judge; ``ambi score --protocol llm`` scores it through that YAML). Each record's answer (gold, wrong or garbage) is chosen by a hash of its id, and every other answer comes with
blanks and a newline around it, which lmms-eval strips before scoring: so must every other caller.
"""

from __future__ import annotations

import json

import pytest
from vlmeval_run import (
    assert_same_run,
    lmms_numbers,
    lmms_samples,
    plain,
    run_vlmeval,
    same,
    vlmeval_outputs,
    write_hashed_answers,
)

from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.rescore import score_answers
from ambi_plugin.runtime.task import all_tasks

pytestmark = pytest.mark.e2e

SYNTH = ["ambi_synth_geometric_tf", "ambi_synth_hybrid_open", "ambi_synth_localization", "ambi_synth_description"]
CUSTOM = "ambi_rcid_contrast_pixel"  # process_results: ambi_plugin.benchmarks.rcid.hooks.contrast_results
VIA = "ambi_viabench_va"  # ambi_plugin.benchmarks.viabench.lmms.process_results and its own aggregations
ILLUSION = ["ambi_illusionbench_tf", "ambi_illusionbench_tf_llm"]  # rule; LLM-assisted (the judge in process_results)
TASKS = [*SYNTH, CUSTOM, VIA, *ILLUSION]


def _padded(path) -> None:
    """Every other answer with blanks and a newline around it (lmms-eval strips them before process_results)."""
    rows = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    for k, row in enumerate(rows):
        if k % 2:
            row["response"] = f"  {row['response']}\n"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_lmms_eval_vlmevalkit_and_ambi_score_agree(lmms_eval, tmp_path, offline_env, monkeypatch, shared_data):
    from illusion_fixtures import illusionbench_copy
    from viabench_fixtures import build_copy as viabench_copy

    from ambi_plugin.benchmarks.rcid import build_synthetic

    data = {
        "AMBI_RCID_DIR": str(build_synthetic(tmp_path / "rcid", n=8)),
        "AMBI_VIABENCH_DIR": str(viabench_copy(tmp_path / "via", shared_data)),
        "AMBI_ILLUSIONBENCH_DIR": str(illusionbench_copy(tmp_path / "ib")),
    }
    env = {**offline_env, "AMBI_SYNTH_N": "6", **data}
    for key in ("AMBI_SYNTH_N", *data):
        monkeypatch.setenv(key, env[key])
    tasks = all_tasks()
    assert tasks[CUSTOM].process_results == "ambi_plugin.benchmarks.rcid.hooks.contrast_results"
    assert tasks[VIA].process_results == "ambi_plugin.benchmarks.viabench.lmms.process_results"
    assert tasks[ILLUSION[1]].process_results.endswith("results_hooks.process_results_llm")
    assert tasks["ambi_synth_geometric_tf"].process_results.startswith("ambi_plugin.runtime.breakdown.")

    answers = tmp_path / "answers.jsonl"
    assert write_hashed_answers(answers, TASKS, 6) > 0
    _padded(answers)
    lmms = lmms_eval(replay_args(answers, ",".join(TASKS)), tmp_path / "lmms", env=env)
    samples = lmms_samples(lmms)

    # VLMEvalKit's run.py: every number, item score and prompt equal lmms-eval's
    work = tmp_path / "vlmeval"
    proc = run_vlmeval(
        ["--data", *TASKS, "--model", "ambi_replay"], work=work, env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)}
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert_same_run(lmms.results, samples, vlmeval_outputs(work), TASKS)

    # ambi score on the same answers: every metric of the YAML's metric_list and every item score
    given = [json.loads(ln) for ln in answers.read_text(encoding="utf-8").splitlines() if ln.strip()]
    for task in TASKS:
        protocol = "llm" if task.endswith("_llm") else "rule"  # the _llm task's own protocol (the judge's)
        report = score_answers(task, answers, protocol=protocol, progress=False)
        (col,) = report.values
        want = {k: v for k, v in lmms_numbers(lmms.results, task).items() if "_stderr" not in k}
        assert sorted(want) == sorted(tasks[task].metric_names), task
        got = report.values[col]
        diff = {m: (v, got.get(m)) for m, v in want.items() if m not in got or not same(float(v), float(got[m]))}
        assert not diff, f"{task}: lmms-eval vs ambi score {diff}"
        by_id = {str(rec["id"]): item for rec, item in zip(report.records, report.items[col])}
        assert len(by_id) == len(samples[task]) > 0, task
        for doc_id, sample in samples[task].items():
            names = [m for m in tasks[task].metric_names if m in sample]
            # IllusionBench's breakdown metrics (acc_classic ...) are reported by the items of that breakdown only
            assert names == tasks[task].metric_names or (task in ILLUSION and "acc" in names), (task, doc_id)
            for m in names:
                logged = sample[m]
                assert plain(by_id[str(logged["id"])]) == plain(logged), f"{task} doc {doc_id} {m}"
        assert any(r["task"] == task and r["response"] != r["response"].strip() for r in given), task
