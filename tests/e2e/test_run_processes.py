"""Runs as processes: a run claims only its own results, signals reach lmms-eval and it never outlives us, bad
invocations exit non-zero, and no file we write holds a planted secret (issue 21, points 1, 2, 4, 7)."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval

pytestmark = pytest.mark.e2e

TASK = "ambi_synth_geometric_yn"
TOKEN = "hf_PlantedSecretToken0123456789"


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")  # a zombie is dead


def _wait_gone(pid: int, timeout: float = 30) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_a_run_never_claims_another_runs_results(tmp_path, offline_env):
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=TASK, mode="gold")
    out = tmp_path / "out"
    good = run_lmms_eval([*replay_args(gold, TASK), "--limit", "2"], output=tmp_path / "other", env=offline_env)
    assert good.results_path is not None
    # a failing run (no answers at all) into `out`, while "another run" writes its results there
    partial = tmp_path / "none.jsonl"
    partial.write_text("")
    cmd = [sys.executable, "-m", "ambi_plugin.cli", "eval", *replay_args(partial, TASK), "--limit", "2",
           "--output_path", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, env=offline_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    (out / "someone").mkdir(parents=True)
    shutil.copy(good.results_path, out / "someone" / "20990101_000000_results.json")  # written during the run
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode != 0, stderr[-3000:]
    assert "the run failed" in stderr and "someone" not in stderr


def test_sigterm_reaches_lmms_eval_and_kill_9_leaves_no_orphan(tmp_path, offline_env):
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks="ambi_synth_all", mode="gold")
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        out = tmp_path / f"out-{sig.name}"
        cmd = [sys.executable, "-m", "ambi_plugin.cli", "eval", *replay_args(gold, "ambi_synth_all"),
               "--output_path", str(out)]  # fmt: skip
        proc = subprocess.Popen(cmd, env=offline_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while not _children(proc.pid) and time.time() < deadline:
            time.sleep(0.05)
        children = _children(proc.pid)
        assert children, "lmms-eval never started"
        time.sleep(1.0)  # lmms-eval is importing
        os.kill(proc.pid, sig)
        proc.wait(timeout=120)
        for child in children:
            assert _wait_gone(child), f"lmms-eval (pid {child}) outlived `ambi eval` after {sig.name}"
        if sig != signal.SIGKILL:
            assert proc.returncode != 0
        time.sleep(1.0)
        assert not list(out.rglob("*_results.json"))  # nothing written after we ended


def test_no_file_a_run_writes_holds_a_planted_token(tmp_path, offline_env):
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=TASK, mode="gold")
    env = {**offline_env, "HF_TOKEN": TOKEN, "AMBI_JUDGE_API_KEY": TOKEN + "x", "AMBI_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "out"
    log = tmp_path / "out" / "lmms-eval.log"
    log.parent.mkdir(parents=True)
    run = run_lmms_eval([*replay_args(gold, TASK), "--limit", "2"], output=out, env=env, capture=False, log=log)
    assert run.results is not None
    text = log.read_text()
    assert "'token': '***'" in text  # lmms-eval printed the token (its tracker-args line); the log masks it
    for path in [p for p in tmp_path.rglob("*") if p.is_file()]:
        data = path.read_bytes()
        assert TOKEN.encode() not in data, f"{path} holds the planted token"
    assert json.loads(run.results_path.read_text())["ambi_plugin"]["run_id"]


def test_an_unreachable_judge_is_told_and_its_tasks_are_nan(tmp_path, offline_env):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    task = "ambi_synth_object_open"
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=task, mode="gold")
    env = {**offline_env, "AMBI_CACHE": str(tmp_path / "cache"), "AMBI_JUDGE_BACKEND": "openai",
           "AMBI_JUDGE_MODEL": "judge", "AMBI_JUDGE_BASE_URL": f"http://127.0.0.1:{port}/v1",
           "AMBI_JUDGE_API_KEY": "x", "AMBI_JUDGE_RETRIES": "0", "AMBI_JUDGE_PARSE_RETRIES": "0",
           "AMBI_JUDGE_TIMEOUT": "2", "AMBI_JUDGE_CACHE": "0", "NO_PROXY": "*"}  # fmt: skip
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "eval", *replay_args(gold, task), "--limit", "4",
         "--output_path", str(out)],  # fmt: skip
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 1, (proc.stdout + proc.stderr)[-3000:]
    line = [x for x in proc.stderr.splitlines() if x.startswith("ambi eval: judge errors:")]
    assert line and line[0].startswith(f"ambi eval: judge errors: 4 of 4 items, task {task}: <no reply"), line
    (path,) = list(out.rglob("*_results.json"))
    results = json.loads(path.read_text())
    assert math.isnan(results["results"][task]["acc,none"])
    assert results["results"][task]["judge_errors,none"] == 4
    assert "every judgement failed" in results["ambi_plugin"]["judge"]["failed"][task]
