"""Runs as processes: a run claims only its own results, signals reach lmms-eval and it never outlives us (and end
``ambi eval`` with one line, issue 30), bad invocations exit non-zero, and no file we write holds a planted secret
(issue 21, points 1, 2, 4, 7)."""

from __future__ import annotations

import json
import math
import os
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


# In the lmms-eval process of a run (only it has AMBI_RUN_ID), as it ends, so after the run's snapshot: another
# run's results JSON (its own run id) appears in this run's own folder, and one of a run that carries no id (no
# ambi_plugin section) in the output folder both runs were given, as runs writing at the same time would leave them.
FOREIGN_RESULTS = """
import atexit, json, os, sys
from pathlib import Path


def _write_foreign_results():
    if not os.environ.get("AMBI_RUN_ID") or "--output_path" not in sys.argv:
        return
    run_dir = Path(sys.argv[sys.argv.index("--output_path") + 1])
    theirs = json.loads(os.environ["FOREIGN_RESULTS"])
    (run_dir / "someone").mkdir(parents=True, exist_ok=True)
    with_id = {**theirs, "ambi_plugin": {"run_id": "20990101-000000-0123abcd"}}
    (run_dir / "someone" / "20990101_000000_results.json").write_text(json.dumps(with_id))
    shared = Path(os.environ["FOREIGN_OUTPUT"])  # the --output_path both runs were given
    (shared / "someone-else").mkdir(parents=True, exist_ok=True)
    (shared / "someone-else" / "20990101_000001_results.json").write_text(json.dumps(theirs))


atexit.register(_write_foreign_results)
"""


def test_a_failed_run_never_claims_another_runs_results(tmp_path, offline_env):
    """Neither the file with another run's id in this run's folder (the run-id check) nor the file without an id
    beside it (never ours by absence) is claimed by a run that wrote none: it fails, naming neither."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(FOREIGN_RESULTS)
    theirs = {"results": {TASK: {"alias": TASK, "acc,none": 1.0}}, "configs": {TASK: {"task": TASK}}}
    out = tmp_path / "out"
    env = {**offline_env, "FOREIGN_RESULTS": json.dumps(theirs), "FOREIGN_OUTPUT": str(out),
           "PYTHONPATH": os.pathsep.join(p for p in (str(hook), offline_env.get("PYTHONPATH")) if p)}  # fmt: skip
    none = tmp_path / "none.jsonl"  # no answers at all: the run fails
    none.write_text("")
    proc = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "eval", *replay_args(none, TASK), "--limit", "2",
         "--output_path", str(out)],  # fmt: skip
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode != 0, proc.stderr[-3000:]
    assert "the run failed" in proc.stderr and "someone" not in proc.stderr
    assert len(list(out.rglob("*_results.json"))) == 2  # both were written during the run


def test_signals_end_a_run_with_one_line_and_leave_no_orphan(tmp_path, offline_env):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) and SIGTERM while lmms-eval waits on the judge:
    exit code 130 / 143, one line of ours that says rerunning the same command resumes, no traceback (ours or, as
    ``ambi eval`` started it, lmms-eval's). SIGKILL while lmms-eval starts: it never outlives us. Never a results
    file after we ended."""
    from support.chat_server import LoopbackChatServer, Reply

    task = "ambi_synth_hybrid_open"
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=task, mode="gold")
    expected = {
        signal.SIGINT: "ambi eval: interrupted (Ctrl-C); rerunning the same command resumes",
        signal.SIGTERM: "ambi eval: stopped by SIGTERM (exit code 143); rerunning the same command resumes",
    }
    with LoopbackChatServer(lambda prompt, n, payload: Reply(text="True", delay=2)) as srv:
        env = {**offline_env, "AMBI_JUDGE_BACKEND": "openai", "AMBI_JUDGE_MODEL": "judge",
               "AMBI_JUDGE_BASE_URL": srv.url, "AMBI_JUDGE_API_KEY": "x", "AMBI_JUDGE_RETRIES": "0",
               "AMBI_JUDGE_TIMEOUT": "60", "AMBI_JUDGE_CACHE": "0", "NO_PROXY": "*"}  # fmt: skip
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            out = tmp_path / f"out-{sig.name}"
            cmd = [sys.executable, "-m", "ambi_plugin.cli", "eval", *replay_args(gold, task), "--limit", "2",
                   "--output_path", str(out)]  # fmt: skip
            err_path = tmp_path / f"{sig.name}.err"
            asked = srv.requests
            with err_path.open("w") as err:
                proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
            deadline = time.time() + 600
            while not _children(proc.pid) and time.time() < deadline:
                time.sleep(0.05)
            children = _children(proc.pid)
            assert children, "lmms-eval never started"
            if sig == signal.SIGKILL:
                time.sleep(1.0)  # lmms-eval is importing
                os.kill(proc.pid, sig)
            else:
                while srv.requests == asked and proc.poll() is None and time.time() < deadline:
                    time.sleep(0.05)  # lmms-eval is scoring: our hooks are in, the judge is being asked
                assert srv.requests > asked, err_path.read_text()[-3000:]
                if sig == signal.SIGINT:
                    os.killpg(proc.pid, sig)  # the terminal's Ctrl-C reaches every process of the group
                else:
                    os.kill(proc.pid, sig)
            proc.wait(timeout=300)
            for child in children:
                assert _wait_gone(child), f"lmms-eval (pid {child}) outlived `ambi eval` after {sig.name}"
            text = err_path.read_text()
            if sig != signal.SIGKILL:
                assert proc.returncode == 128 + sig, text[-3000:]
                assert text.rstrip().splitlines()[-1].startswith(expected[sig]), text[-3000:]
                assert "Traceback" not in text, text[-3000:]
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
