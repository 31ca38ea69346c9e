"""The judge through the real lmms-eval CLI: recorded in the results JSON, raw replies in the samples,
an LLM judge on a loopback server, judge errors counted, and a second identical run sending nothing."""

from __future__ import annotations

import json
import math

import pytest
from support.chat_server import LoopbackChatServer, oracle_responder

from ambi_plugin.core.schema import read_records
from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.data.sources import source_root
from ambi_plugin.judge import templates as T
from ambi_plugin.judge.templates import template_hashes
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

TASKS = "ambi_synth_hybrid_open,ambi_synth_region,ambi_synth_description"


def _run(tmp_path, env, preds, name):
    run = run_lmms_eval(replay_args(preds, TASKS), output=tmp_path / name, env=env, timeout=900)
    if run.results is None:
        pytest.fail(f"no results JSON\n{run.tail()}")
    return run.results, run.samples


def _n_items(task: str) -> int:
    return len(read_records(source_root("ambi://synth") / f"{task}.jsonl"))


@pytest.fixture
def gold(tmp_path):
    preds = tmp_path / "gold.jsonl"
    write_reference_predictions(preds, tasks=TASKS, mode="gold")
    return preds


def test_offline_judge_is_recorded(tmp_path, offline_env, gold):
    env = {k: v for k, v in offline_env.items() if not k.startswith("AMBI_JUDGE_")}
    results, samples = _run(tmp_path, env, gold, "offline")
    section = results["ambi_plugin"]
    judge = section["judge"]
    assert (judge["backend"], judge["rounds"]) == ("offline", 1)
    assert judge["model"].startswith("lexicon") and judge["templates"] == template_hashes()
    assert judge["errors"] == dict.fromkeys(TASKS.split(","), 0.0) and judge["errors_total"] == 0.0
    assert section["synth"] == {"seed": 0, "n": 8} and section["version"]
    metrics = task_metrics(results)
    assert all(metrics[t]["judge_errors"] == 0.0 for t in TASKS.split(","))
    first = json.loads(samples["ambi_synth_hybrid_open"].read_text().splitlines()[0])
    assert first["acc"]["judge"]["backend"] == "offline" and first["acc"]["judge"]["raw"]


def test_llm_judge_on_loopback_then_zero_requests(tmp_path, offline_env, gold):
    env = {
        **offline_env,
        "AMBI_JUDGE_BACKEND": "openai",
        "AMBI_JUDGE_MODEL": "loopback-judge",
        "AMBI_JUDGE_CACHE_PATH": str(tmp_path / "judge.sqlite"),
        "AMBI_JUDGE_BACKOFF": "0.01",
    }
    with LoopbackChatServer(oracle_responder) as srv:
        env["AMBI_JUDGE_BASE_URL"] = srv.url
        first, samples = _run(tmp_path, env, gold, "first")
        sent = srv.requests
        judge = first["ambi_plugin"]["judge"]
        assert (judge["backend"], judge["model"], judge["rounds"]) == ("openai", "loopback-judge", 1)
        assert judge["base_url"] == srv.url and judge["errors_total"] == 0.0
        n_views = sum(
            len(r["views"])
            for t in TASKS.split(",")[:2]
            for r in read_records(source_root("ambi://synth") / f"{t}.jsonl")
        )
        assert judge["rounds_used"] == {
            "ambibench_set_match": {"1": n_views},
            "illusionbench_description": {"5": _n_items("ambi_synth_description")},
        }
        metrics = task_metrics(first)
        assert metrics["ambi_synth_hybrid_open"]["acc"] == 1.0 and metrics["ambi_synth_region"]["acc"] == 1.0
        assert metrics["ambi_synth_description"]["desc_score"] == 2.0
        # hybrid and region: one judgement per view; description: IllusionBench's 5 rounds; a prompt
        # repeated across items is asked once (cache and in-flight sharing)
        expected = {}
        for task in TASKS.split(","):
            for rec in read_records(source_root("ambi://synth") / f"{task}.jsonl"):
                if rec["task_type"] == "description":
                    expected[T.description_prompt(rec["description"], rec["description"])] = 5
                for view in rec.get("views") or []:
                    first_alts = [label.split("|")[0].strip() for label in view["labels"]]
                    expected[T.set_match_prompt(view["labels"], first_alts)] = 1
        assert dict(srv.per_prompt) == expected and sent == sum(expected.values())
        item = json.loads(samples["ambi_synth_description"].read_text().splitlines()[0])["desc_score"]
        assert item["judge"]["raw"] == ["2"] * 5 and item["judge"]["rounds"] == 5

        srv.reset_counters()
        second, _ = _run(tmp_path, env, gold, "second")
        assert srv.requests == 0
        assert task_metrics(second) == metrics


def test_unreadable_verdicts_are_counted_not_scored(tmp_path, offline_env, gold):
    env = {
        **offline_env,
        "AMBI_JUDGE_BACKEND": "openai",
        "AMBI_JUDGE_MODEL": "garbage-judge",
        "AMBI_JUDGE_CACHE": "0",
        "AMBI_JUDGE_PARSE_RETRIES": "1",
    }
    with LoopbackChatServer(lambda prompt, n, payload: "I would rather not say") as srv:
        env["AMBI_JUDGE_BASE_URL"] = srv.url
        results, _ = _run(tmp_path, env, gold, "garbage")
    metrics = task_metrics(results)
    errors = results["ambi_plugin"]["judge"]["errors"]
    for task in TASKS.split(","):
        n = _n_items(task)
        assert metrics[task]["judge_errors"] == n and errors[task] == n
        # every judgement failed: the score is NaN with the reason, not a silent 0 (issue 21)
        assert math.isnan(metrics[task].get("acc", metrics[task].get("desc_score")))
        assert "I would rather not say" in results["ambi_plugin"]["judge"]["failed"][task]
        assert metrics[task]["unparsed_rate"] == 0.0  # the model's answers were fine; the judge failed


def test_judge_url_credentials_reach_no_file(tmp_path, offline_env, gold):
    """A judge URL with user, password and a query token: the run works, and no file it wrote holds them."""
    secret = "PLANTED-url-secret-51d2"
    env = {
        **offline_env,
        "AMBI_JUDGE_BACKEND": "openai",
        "AMBI_JUDGE_MODEL": "loopback-judge",
        "AMBI_JUDGE_CACHE_PATH": str(tmp_path / "judge.sqlite"),
    }
    with LoopbackChatServer(oracle_responder) as srv:
        host = srv.url.split("://", 1)[1]
        env["AMBI_JUDGE_BASE_URL"] = srv.url.replace(host, f"user:{secret}@{host}") + f"?api_key={secret}"
        run = run_lmms_eval(replay_args(gold, "ambi_synth_hybrid_open"), output=tmp_path / "out", env=env, timeout=900)
        assert run.results is not None, run.tail()
        assert srv.requests > 0
    judge = run.results["ambi_plugin"]["judge"]
    shown = srv.url.replace(host, f"***@{host}") + "?api_key=***"
    assert judge["base_url"] == shown and judge["settings"]["base_url"] == shown
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert any(p.name.endswith("_results.json") for p in written)
    for path in written:
        assert secret not in path.read_text(errors="replace"), path
