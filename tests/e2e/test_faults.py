"""Faults through the real lmms-eval CLI: the judge server failing mid-run, and the evaluation killed
mid-run. On rerun (lmms-eval's ``--use_cache`` plus our judge cache) nothing already judged is lost or
asked twice, and the final numbers equal an uninterrupted run's. Every run carries a planted API key
and HF token, which must appear in no log, results file, samples file or error message."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest
from support.chat_server import LoopbackChatServer, Reply, oracle_responder

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import lmms_eval_argv, replay_args, run_lmms_eval
from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

TASK = "ambi_synth_hybrid_open"  # 8 items x 2 views: 16 set-match judgements, 10 distinct prompts
API_KEY = "sk-ambi-PLANTED-SECRET-7f3a9c0e1b2d4f6a"
HF_TOKEN = "hf_ambiPLANTEDtoken5e8d7c6b5a4f3e2d"


def judge_env(offline_env: dict, cache: Path, url: str) -> dict:
    return {
        **offline_env,
        "AMBI_JUDGE_BACKEND": "openai",
        "AMBI_JUDGE_MODEL": "loopback-judge",
        "AMBI_JUDGE_BASE_URL": url,
        "AMBI_JUDGE_CACHE_PATH": str(cache),
        "AMBI_JUDGE_RETRIES": "1",
        "AMBI_JUDGE_BACKOFF": "0.01",
        "AMBI_JUDGE_API_KEY": API_KEY,
        "OPENAI_API_KEY": API_KEY,
        "HF_TOKEN": HF_TOKEN,
        "HUGGING_FACE_HUB_TOKEN": HF_TOKEN,
    }


def assert_no_secret(*texts: str, folder: Path | None = None) -> None:
    blobs = list(texts)
    if folder is not None:
        blobs += [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]
    for blob in blobs:
        # lmms-eval 0.7.3 itself logs its tracker arguments, HF token included, at INFO level (not a line
        # of ours, and a good guest does not rewrite lmms-eval's logging): docs/reliability.md
        blob = "\n".join(line for line in blob.splitlines() if "Evaluation tracker args" not in line)
        assert API_KEY not in blob and HF_TOKEN not in blob and "PLANTED" not in blob, [
            line for line in blob.splitlines() if "PLANTED" in line
        ][:3]


def run(tmp_path: Path, env: dict, preds: Path, name: str, *extra: str) -> dict:
    out = tmp_path / name
    result = run_lmms_eval(replay_args(preds, TASK, *extra), output=out, env=env, timeout=900)
    assert result.results is not None, result.tail()
    assert_no_secret(result.stdout, result.stderr, folder=out)
    return task_metrics(result.results)[TASK]


@pytest.fixture
def gold(tmp_path) -> Path:
    preds = tmp_path / "gold.jsonl"
    write_reference_predictions(preds, tasks=TASK, mode="gold")
    return preds


@pytest.fixture
def uninterrupted(tmp_path, offline_env, gold) -> tuple[dict, set[str]]:
    """Metrics and judge prompts of a run that nothing interrupts."""
    with LoopbackChatServer(oracle_responder) as srv:
        metrics = run(tmp_path, judge_env(offline_env, tmp_path / "clean.sqlite", srv.url), gold, "clean")
        prompts = set(srv.per_prompt)
    assert len(prompts) >= 8 and metrics["judge_errors"] == 0.0  # views sharing labels share a prompt
    return metrics, prompts


def test_judge_server_failing_mid_run_then_rerun(tmp_path, offline_env, gold, uninterrupted):
    clean_metrics, all_prompts = uninterrupted
    answered: set[str] = set()
    lock = threading.Lock()

    def dies_after_five(prompt: str, n: int, payload: dict):
        with lock:
            if prompt not in answered and len(answered) >= 5:
                return Reply(status=500, text="upstream failure")
            answered.add(prompt)
        return oracle_responder(prompt, n, payload)

    cache = tmp_path / "judge.sqlite"
    with LoopbackChatServer(dies_after_five) as srv:
        broken = run(tmp_path, judge_env(offline_env, cache, srv.url), gold, "broken")
    assert len(answered) == 5
    assert broken["judge_errors"] > 0 and broken["acc"] < clean_metrics["acc"]  # reported, not guessed

    with LoopbackChatServer(oracle_responder) as srv:
        rerun = run(tmp_path, judge_env(offline_env, cache, srv.url), gold, "rerun")
        resent = set(srv.per_prompt)
        assert max(srv.per_prompt.values()) == 1
    assert not resent & answered  # nothing already judged asked again
    assert resent | answered == all_prompts  # nothing lost
    assert rerun == clean_metrics


def test_evaluation_killed_mid_run_then_rerun(tmp_path, offline_env, gold, uninterrupted):
    clean_metrics, all_prompts = uninterrupted
    cache, lm_cache, out = tmp_path / "judge.sqlite", tmp_path / "lmms-cache", tmp_path / "killed"
    with LoopbackChatServer(oracle_responder, latency=0.4) as srv:
        env = {**judge_env(offline_env, cache, srv.url), "AMBI_JUDGE_CONCURRENCY": "1"}
        cmd = [*lmms_eval_argv(), *replay_args(gold, TASK, "--use_cache", str(lm_cache)), "--output_path", str(out)]
        log = tmp_path / "killed.log"
        with log.open("w") as fh:
            proc = subprocess.Popen(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 600
        while srv.requests < 4 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        first_requests = srv.requests
    assert 4 <= first_requests < len(all_prompts), log.read_text()[-3000:]
    assert not list(out.rglob("*results*.json"))  # killed before it wrote results
    with sqlite3.connect(cache) as conn:
        kept = conn.execute("SELECT COUNT(*) FROM replies WHERE ok = 1").fetchone()[0]
    assert 1 <= kept <= first_requests
    assert_no_secret(log.read_text())

    with LoopbackChatServer(oracle_responder) as srv:
        env = judge_env(offline_env, cache, srv.url)
        rerun = run(tmp_path, env, gold, "resumed", "--use_cache", str(lm_cache))
        assert max(srv.per_prompt.values()) == 1 and set(srv.per_prompt) <= all_prompts
        assert srv.requests == len(all_prompts) - kept  # the kept verdicts are not asked again; the rest are
    assert rerun == clean_metrics
