"""VLMEvalKit's real run.py (through ``python -m ambi_plugin.vlmeval``) on the synthetic suite, with the
replay model registered into ``supported_VLM``: group expansion, ``--config`` JSON, and a failing dataset."""

from __future__ import annotations

import json
import math

import pytest
from vlmeval_run import prediction_table, run_vlmeval, vlmeval_scores

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.data.taskdocs import read_docs
from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import Task
from ambi_plugin.runtime.taskindex import expand_tasks

pytestmark = pytest.mark.e2e

N = "3"


@pytest.fixture
def env(offline_env, monkeypatch, tmp_path):
    monkeypatch.setenv("AMBI_SYNTH_N", N)
    return {**offline_env, "AMBI_SYNTH_N": N}


def _best(metric: str, value: float) -> bool:
    """Gold answers: every metric at its best value (NaN where a subset is empty or FP + FN = 0)."""
    if math.isnan(value):
        return not metric.startswith(("unparsed", "judge_errors"))
    if metric.endswith("_stderr_clt"):
        return value == 0.0  # every item scores the same
    if metric.startswith(("unparsed", "judge_errors", "na_rate")):  # unparsed_rate, and the count unparsed
        return value == 0.0
    if metric.startswith("desc_score"):
        return value == 2.0
    if metric.startswith(("human_like_rate", "no_illusion_rate")):
        return value in (0.0, 1.0)  # 1 for the prompt's own kind, 0 for the other
    return value == 1.0  # acc*, exact_match, ap50*, hit_rate, control_acc


def test_gold_answers_through_run_py_score_best_and_keep_prompts(tmp_path, env):
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_all", mode="gold")
    work = tmp_path / "out"
    proc = run_vlmeval(
        ["--data", "ambi_synth_all", "--model", "ambi_replay"],
        work=work,
        env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    scores = vlmeval_scores(work)
    tasks = [info.name for info in expand_tasks("ambi_synth_all")]
    assert sorted(scores) == sorted(tasks)
    for task in tasks:
        assert scores[task], task
        bad = {m: v for m, v in scores[task].items() if not _best(m, v)}
        assert not bad, f"{task}: {bad}"
        # VLMEvalKit's prediction file holds our prompt and the replayed answer of every record
        path, rows = prediction_table(str(next((work / "ambi_replay").rglob(f"ambi_replay_{task}_score.json")))[:-11])
        assert path.suffix == ".json"  # the launcher's default format
        spec = Task.from_info(expand_tasks(task)[0])
        docs, kwargs = read_docs(spec), spec.prompt_kwargs_for(None)
        assert [r["question"] for r in rows] == [hooks.doc_to_text(d, kwargs) for d in docs]
        assert [r["prediction"].strip() for r in rows] == [hooks.doc_to_target(d).strip() for d in docs]


def test_config_json_with_generated_class_names(tmp_path, env):
    answers = tmp_path / "wrong.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_geometric_tf", mode="wrong")
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "model": {"replayed": {"class": "AmbiReplayVLM", "predictions": str(answers)}},
                "data": {"ambi_synth_geometric_tf": {"class": "AmbiSynthGeometricTf"}},
            }
        )
    )
    work = tmp_path / "out"
    proc = run_vlmeval(["--config", str(config)], work=work, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    metrics = vlmeval_scores(work, model="replayed")["ambi_synth_geometric_tf"]
    assert metrics["acc"] == 0.0 and metrics["unparsed_rate"] == 0.0


def test_a_failing_dataset_makes_the_ambi_command_fail_and_named(tmp_path, env):
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_geometric_yn", mode="gold")
    work = tmp_path / "out"
    proc = run_vlmeval(
        ["--data", "ambi_synth_geometric_yn", "ambi_synth_geometric_mc", "--model", "ambi_replay"],
        work=work,
        env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)},
        launcher=("-m", "ambi_plugin.cli", "vlmeval"),  # the `ambi vlmeval` subcommand
    )
    assert proc.returncode == 1
    assert "ambi_replay x ambi_synth_geometric_mc" in proc.stderr
    assert vlmeval_scores(work)["ambi_synth_geometric_yn"]["acc"] == 1.0


def test_torchrun_launches_the_module(tmp_path, env):
    """``torchrun -m ambi_plugin.vlmeval`` (one process here: run.py's several-process mode needs NCCL GPUs)."""
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_geometric_letter", mode="gold")
    work = tmp_path / "out"
    proc = run_vlmeval(
        ["--data", "ambi_synth_geometric_letter", "--model", "ambi_replay"],
        work=work,
        env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)},
        launcher=("-m", "torch.distributed.run", "--nproc-per-node", "1", "-m", "ambi_plugin.vlmeval"),
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert vlmeval_scores(work)["ambi_synth_geometric_letter"]["acc"] == 1.0


def test_config_run_with_a_failing_dataset_exits_1_naming_it(tmp_path, env):
    """``--config`` runs are checked too: model and dataset names come from the JSON."""
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_geometric_yn", mode="gold")  # none for geometric_mc
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "model": {"replayed": {"class": "AmbiReplayVLM", "predictions": str(answers)}},
                "data": {
                    "ambi_synth_geometric_yn": {"class": "AmbiSynthGeometricYn"},
                    "ambi_synth_geometric_mc": {"class": "AmbiSynthGeometricMc"},
                },
            }
        )
    )
    work = tmp_path / "out"
    proc = run_vlmeval(["--config", str(config)], work=work, env=env)
    assert proc.returncode == 1, proc.stderr[-4000:]
    assert "no scores for replayed x ambi_synth_geometric_mc" in proc.stderr
    assert vlmeval_scores(work, model="replayed")["ambi_synth_geometric_yn"]["acc"] == 1.0


JUDGED = ["ambi_synth_object_open", "ambi_synth_description"]


def _judge_env(env: dict, tmp_path) -> dict:
    """Our configured judge: an LLM at an address where nothing listens (a run that calls it fails)."""
    clean = {k: v for k, v in env.items() if not k.startswith("AMBI_JUDGE_")}
    return {
        **clean,
        "AMBI_JUDGE_BACKEND": "openai",
        "AMBI_JUDGE_MODEL": "configured-judge",
        "AMBI_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "AMBI_JUDGE_RETRIES": "0",
        "AMBI_JUDGE_BACKOFF": "0.01",
        "AMBI_JUDGE_CACHE_PATH": str(tmp_path / "judge.sqlite"),
    }


def _score_files(work, model: str = "ambi_replay") -> dict[str, dict]:
    return {(d := json.loads(p.read_text()))["task"]: d for p in (work / model).rglob(f"{model}_*_score.json")}


def test_judge_exact_matching_through_run_py_is_rule_based_only(tmp_path, env):
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks=JUDGED, mode="gold")
    work = tmp_path / "out"
    proc = run_vlmeval(
        ["--data", *JUDGED, "--model", "ambi_replay", "--judge", "exact_matching"],
        work=work,
        env={**_judge_env(env, tmp_path), "AMBI_REPLAY_PREDICTIONS": str(answers)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    scores = _score_files(work)
    assert sorted(scores) == sorted(JUDGED)
    for task, score in scores.items():
        judge = score["judge"]
        assert judge["backend"] == "offline" and judge["settings"]["embeddings"] is False, task
        assert score["metrics"]["judge_errors"] == 0.0, task  # the unreachable configured judge was never asked
    assert scores["ambi_synth_object_open"]["metrics"]["acc"] == 1.0


def test_judge_model_goes_to_the_openai_backend_at_the_judge_base_url(tmp_path, env):
    from support.chat_server import LoopbackChatServer

    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks=JUDGED, mode="gold")
    work = tmp_path / "out"
    with LoopbackChatServer() as server:
        proc = run_vlmeval(
            ["--data", *JUDGED, "--model", "ambi_replay", "--judge", "gpt-4o-mini",
             "--judge-base-url", server.url, "--judge-key", "sk-test", "--judge-api-nproc", "2"],
            work=work,
            env={**_judge_env(env, tmp_path), "AMBI_REPLAY_PREDICTIONS": str(answers)},
        )  # fmt: skip
        requests = server.requests
        models = {p.get("model") for p in server.payloads}
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert requests > 0 and models == {"gpt-4o-mini"}
    scores = _score_files(work)
    assert sorted(scores) == sorted(JUDGED)
    for task, score in scores.items():
        judge = score["judge"]
        assert (judge["backend"], judge["model"]) == ("openai", "gpt-4o-mini"), task
        assert judge["settings"]["base_url"] == server.url and judge["settings"]["max_concurrency"] == 2, task
        assert score["metrics"]["judge_errors"] == 0.0, task
    assert scores["ambi_synth_object_open"]["metrics"]["acc"] == 1.0
    assert scores["ambi_synth_description"]["metrics"]["desc_score"] == 2.0


def test_a_rerun_resumes_from_the_json_prediction_file_with_the_answers_unchanged(tmp_path, env):
    """run.py resumes from the prediction file an earlier run left; with json (the launcher's default) it could not
    read it (a list of rows): the launcher stores it by columns first. The resumed answers are the first run's,
    exactly (NA strings included), not the new replay file's."""
    import json

    task = "ambi_synth_geometric_tf"
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    write_reference_predictions(second, tasks=task, mode="gold")
    rows = [json.loads(ln) for ln in second.read_text().splitlines()]
    first.write_text("".join(json.dumps({**r, "response": a}) + "\n" for r, a in zip(rows, ["None", "N/A", ""])))
    work = tmp_path / "out"
    for answers in (first, second):
        proc = run_vlmeval(
            ["--data", task, "--model", "ambi_replay"], work=work, env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)}
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
    assert "ambi vlmeval: resuming from" in proc.stderr and f"ambi_replay_{task}.json" in proc.stderr
    path, rows = prediction_table(str(work / "ambi_replay" / f"ambi_replay_{task}"))
    assert isinstance(json.loads(path.read_text()), list)  # written again by rows
    assert [r["prediction"] for r in rows] == ["None", "N/A", ""]
    assert vlmeval_scores(work)[task]["acc"] == 0.0  # the first run's answers, not the gold ones
