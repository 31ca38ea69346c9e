"""A first run you can trust: the preflight stops a doomed run before the model loads, ``--skip-missing`` runs the
rest, an unreadable item is that item's error, and a killed run resumes from lmms-eval's response cache."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import lmms_eval_argv, replay_args
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.synth import build_suite

pytestmark = pytest.mark.e2e

SYNTH = "ambi_synth_geometric_yn"
NO_MODEL = "predictions=/nonexistent/never-loaded.jsonl"  # creating the model would fail on this


def _env(offline_env, tmp_path, **extra) -> dict:
    env = {**offline_env, "AMBI_CACHE": str(tmp_path / "cache"), **extra}
    env.pop("AMBI_AMBIBENCH_DIR", None)  # no AmbiBench copy here (and none in the HF cache, offline)
    env["HF_HOME"] = str(tmp_path / "hf")
    return env


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (and theirs)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _gone(pid: int, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z":
                return True  # a zombie writes nothing more
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.05)
    return False


def _ambi(*args: str, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ambi_plugin.cli", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def _results(out: Path) -> dict:
    (path,) = list(out.rglob("*_results.json"))
    return json.loads(path.read_text())


def test_missing_release_stops_ambi_eval_and_plain_lmms_eval_before_the_model(tmp_path, offline_env):
    env = _env(offline_env, tmp_path)
    tasks = f"{SYNTH},ambibench_all"
    out = tmp_path / "out"
    cpu0 = _children_cpu()
    proc = _ambi("eval", "--model", "ambi_replay", "--model_args", NO_MODEL, "--tasks", tasks,
                 "--output_path", str(out), env=env)  # fmt: skip
    took = _children_cpu() - cpu0  # CPU seconds of the run: wall time on a busy machine says nothing
    text = proc.stdout + proc.stderr
    assert proc.returncode == 2, text[-3000:]
    assert text.count("ambi-plugin preflight:") == 1  # one block
    assert "hf download BLNL/AmbiBench --repo-type dataset" in text and "AMBI_AMBIBENCH_DIR" in text
    assert "Traceback" not in text and not out.exists()  # lmms-eval never started
    assert took < 120

    # plain lmms-eval: the same check runs when the task names are resolved, before the model is created
    plain = subprocess.run(
        [*lmms_eval_argv(), "--model", "ambi_replay", "--model_args", NO_MODEL, "--tasks", tasks,
         "--output_path", str(out)],  # fmt: skip
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    text = plain.stdout + plain.stderr
    assert plain.returncode == 2, text[-3000:]
    assert "ambi-plugin preflight:" in text and "hf download BLNL/AmbiBench" in text
    assert "never-loaded" not in text.split("ambi-plugin preflight:", 1)[1]  # no model error after the block
    assert "Error during evaluation" not in text


def test_skip_missing_scores_the_rest_and_reports_nan_with_the_reason(tmp_path, offline_env):
    env = _env(offline_env, tmp_path)
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=SYNTH, mode="gold")
    out = tmp_path / "out"
    proc = _ambi("eval", *replay_args(gold, f"{SYNTH},ambibench_all"), "--limit", "2", "--skip-missing",
                 "--output_path", str(out), env=env)  # fmt: skip
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1, text[-3000:]
    results = _results(out)
    metrics = task_metrics(results)
    assert metrics[SYNTH]["acc"] == 1.0
    skipped = results["ambi_plugin"]["skipped"]
    assert "ambibench_bistable_choice" in skipped and "BLNL/AmbiBench" in skipped["ambibench_bistable_choice"]
    assert len(skipped) == 18
    assert all(math.isnan(v) for v in results["results"]["ambibench_bistable_choice"].values() if isinstance(v, float))
    assert text.count("ambi-plugin preflight:") == 1  # the block, once (issue 30: it was printed three times)
    assert text.rstrip().splitlines()[-1].startswith("ambi eval: no results for ambibench_all")


_BLOCK_AV = """
import sys

class _NoAv:
    def find_spec(self, name, path=None, target=None):
        if name == "av" or name.startswith("av."):
            raise ModuleNotFoundError("No module named 'av' (blocked by the test)", name=name)

sys.meta_path.insert(0, _NoAv())
"""


def test_video_task_without_pyav_fails_preflight_and_skip_missing_runs_the_rest(tmp_path, offline_env):
    blocker = tmp_path / "noav"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(_BLOCK_AV)
    env = {**offline_env, "AMBI_CACHE": str(tmp_path / "cache")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(blocker), env.get("PYTHONPATH")) if p)
    video, other = "ambibench_motion_video_open", "ambibench_bistable_choice"
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=[video, other], mode="gold")
    out = tmp_path / "out"
    proc = _ambi("eval", *replay_args(gold, f"{video},{other}"), "--output_path", str(out), env=env)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 2, text[-3000:]
    assert "PyAV" in text and "fix: pip install av" in text and video in text and other not in text.split("fix:")[0]

    proc = _ambi("eval", *replay_args(gold, f"{video},{other}"), "--skip-missing", "--output_path", str(out), env=env)
    results = _results(out)
    assert proc.returncode == 1, (proc.stdout + proc.stderr)[-3000:]
    assert task_metrics(results)[other]["exact_match"] == 1.0
    assert "PyAV" in results["ambi_plugin"]["skipped"][video]
    assert math.isnan(results["results"][video]["acc,none"])


def test_an_unreadable_image_is_that_items_error(tmp_path, offline_env):
    suite = build_suite(tmp_path / "suite", seed=3, n=4)
    records = [json.loads(line) for line in (suite / f"{SYNTH}.jsonl").read_text().splitlines() if line.strip()]
    bad = records[1]
    (suite / bad["image"]).write_bytes((suite / bad["image"]).read_bytes()[:40])  # a truncated PNG
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=SYNTH, mode="gold", data_dir=suite)
    env = {**offline_env, "AMBI_CACHE": str(tmp_path / "cache"), "AMBI_SYNTH_DIR": str(suite)}
    out = tmp_path / "out"
    args = replay_args(gold, SYNTH)
    args[args.index("--model_args") + 1] += ",check_visuals=true"  # read every image, as a real model does
    proc = _ambi("eval", *args, "--output_path", str(out), env=env)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text[-3000:]
    results = _results(out)
    errors = results["ambi_plugin"]["item_errors"][SYNTH]
    assert errors["count"] == 1 and errors["items"][0]["id"] == str(bad["id"])
    assert "cannot read" in errors["items"][0]["reason"]
    assert task_metrics(results)[SYNTH]["acc"] == 0.75  # the bad item scored as wrong, the other three right
    assert task_metrics(results)[SYNTH]["unparsed"] == 0  # an item error only, not also an unread answer
    assert SYNTH not in (results["ambi_plugin"].get("unparsed") or {})
    assert results["n-samples"][SYNTH]["effective"] == 4
    # AMBI_STRICT=1: fatal again
    strict = _ambi("eval", *args, "--output_path", str(tmp_path / "strict"), env={**env, "AMBI_STRICT": "1"})
    assert strict.returncode != 0


def _audit_lines(cache: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in cache.rglob("*.audit.jsonl"))


def test_a_killed_run_resumes_from_the_response_cache(tmp_path, offline_env):
    from ambi_plugin.cli.demo import TINY_MODEL_ARGS, tiny_model_dir

    env = {**offline_env, "AMBI_CACHE": str(tmp_path / "cache"), "AMBI_RESUME_CHUNK": "4"}
    model = tiny_model_dir()
    # enough items that a kill lands mid-run on an idle machine too (the tiny model answers in milliseconds there)
    tasks = "ambi_synth_geometric_yn,ambi_synth_geometric_tf,ambi_synth_geometric_mc,ambi_synth_geometric_letter"
    args = ["eval", "--model", "qwen2_5_vl", "--model_args", f"pretrained={model},{TINY_MODEL_ARGS}",
            "--tasks", tasks, "--limit", "8", "--batch_size", "1", "--gen_kwargs", "max_new_tokens=48"]  # fmt: skip
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ambi_plugin.cli", *args, "--output_path", str(out)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while _audit_lines(out) < 4 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed mid-generation"
    children = _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)  # the wrapper dies at once; lmms-eval dies with it
    proc.wait()
    # lmms-eval got SIGTERM when its parent died: once it is gone nothing more is written (waiting for that, not
    # for a fixed time, which a busy machine can outlast)
    assert children and all(_gone(pid) for pid in children), f"lmms-eval ({children}) outlived the killed run"
    answered = _audit_lines(out)
    assert 4 <= answered <= 28  # answers are stored 4 at a time as they come
    assert not list(out.rglob("*_results.json"))

    rerun = _ambi(*args, "--output_path", str(out), env=env)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    stats = re.findall(
        r"ResponseCache stats: (\d+) hits(?:, (\d+) from shared DB)?, (\d+) misses", rerun.stdout + rerun.stderr
    )
    assert stats, (rerun.stdout + rerun.stderr)[-3000:]
    hits, _shared, misses = stats[-1]
    assert int(hits) >= answered and int(hits) + int(misses) == 32  # nothing already answered was generated again

    fresh = _ambi(*args, "--output_path", str(tmp_path / "fresh"), env=env)
    assert fresh.returncode == 0
    assert task_metrics(_results(tmp_path / "fresh")) == task_metrics(_results(out))
