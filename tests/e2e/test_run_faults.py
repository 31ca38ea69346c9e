"""Issue 30's run faults through the real CLIs: runs started in the same second keep their own results (each in its
own folder, claiming only its own file, whatever AMBI_RUN_ID a wrapper exported) and no file holds the API key of
--model_args; on a machine without CUDA a model backend that needs it stops before the model loads, in plain
lmms-eval and in ``ambi eval``; a typo of a task of ours in plain lmms-eval gets "did you mean" and exit code 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import lmms_eval_argv

pytestmark = pytest.mark.e2e

TASK = "ambi_synth_geometric_yn"
TOKEN = "sk-ambi-PLANTED-key-5d1c9e7a3b2f4e60"

# lmms-eval names its results file by the second its run started (lmms_eval.utils.get_datetime_str): in these
# processes every run starts in the same second, as runs started at once do
SAME_SECOND = """
import importlib.abc, importlib.util, sys

class _SameSecond(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "lmms_eval.utils":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            module.get_datetime_str = lambda timezone=None: "20990101_000000"

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _SameSecond())
"""

# every file a process opens below $SPY_DIR is listed in $SPY_LOG (Python's audit hook: transformers opens the
# model's config.json first thing when it loads a model)
OPEN_SPY = """
import os, sys

_DIR, _LOG = os.environ.get("SPY_DIR"), os.environ.get("SPY_LOG")

def _spy(event, args):
    if event == "open" and _DIR and _LOG and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        if path.startswith(_DIR):
            with open(_LOG, "a", encoding="utf-8") as fh:
                fh.write(path + "\\n")

sys.addaudithook(_spy)
"""


def _with_sitecustomize(env: dict, folder: Path, code: str) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(code)
    return {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(folder), env.get("PYTHONPATH")) if p)}


def _ambi(*args: str, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ambi_plugin.cli", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def test_runs_in_the_same_second_keep_their_own_results_and_no_file_holds_the_key(tmp_path, offline_env):
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=TASK, mode="gold")
    env = _with_sitecustomize(offline_env, tmp_path / "clock", SAME_SECOND)
    env.update({"AMBI_CACHE": str(tmp_path / "cache"), "AMBI_RUN_ID": "exported-by-a-wrapper-script"})
    out = tmp_path / "out"
    args = ["--model", "ambi_replay", "--model_args", f"predictions={gold},api_key={TOKEN}", "--tasks", TASK,
            "--batch_size", "1", "--log_samples", "--limit", "1", "--output_path", str(out)]  # fmt: skip
    runs = [_ambi("eval", *args, env=env) for _ in range(2)]
    for proc in runs:
        assert proc.returncode == 0, proc.stderr[-3000:]
    written = sorted(out.rglob("*_results.json"))
    assert len(written) == 2, written  # neither run overwrote the other's file
    claimed = {}
    for proc in runs:
        run_id, run_dir = re.search(r"^ambi eval: run (\S+) writes below (\S+)$", proc.stderr, re.M).groups()
        assert Path(run_dir) == out / run_id and run_id != env["AMBI_RUN_ID"]
        path = Path(re.search(r"^ambi eval: results of 1 requested task\(s\) in (\S+)$", proc.stderr, re.M)[1])
        assert path.name == "20990101_000000_results.json" and path.is_relative_to(out / run_id)  # the same second
        claimed[run_id] = path
    assert sorted(claimed.values()) == written
    for run_id, path in claimed.items():
        results = json.loads(path.read_text())
        assert results["ambi_plugin"]["run_id"] == run_id  # the new run's id, not the inherited one
        assert results["results"][TASK]["acc,none"] == 1.0
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "cache.db" for p in files) and any(p.name == "rank_0.db" for p in files)
    leaks = [str(p) for p in files if TOKEN.encode() in p.read_bytes()]
    assert not leaks, f"the planted key is in {leaks}"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    return make_tiny_qwen2_5_vl(tmp_path_factory.mktemp("tiny") / "tiny")


def test_without_cuda_a_backend_that_needs_it_stops_before_the_model_loads(tmp_path, offline_env, tiny_model):
    spy_log = tmp_path / "opened.txt"
    env = _with_sitecustomize(offline_env, tmp_path / "spy", OPEN_SPY)
    env.update({"SPY_DIR": str(tiny_model), "SPY_LOG": str(spy_log), "CUDA_VISIBLE_DEVICES": ""})  # no CUDA here
    # the spy sees a model being loaded (transformers reads the folder's config.json)
    load = [
        sys.executable,
        "-c",
        f"from transformers import AutoConfig; AutoConfig.from_pretrained({str(tiny_model)!r})",
    ]
    subprocess.run(load, env=env, check=True, capture_output=True, timeout=300)
    assert f"{tiny_model}/config.json" in spy_log.read_text().splitlines()
    spy_log.unlink()

    args = ["--model", "qwen2_5_vl", "--model_args", f"pretrained={tiny_model}", "--tasks", TASK, "--limit", "1",
            "--batch_size", "1"]  # fmt: skip
    plain = subprocess.run([*lmms_eval_argv(), *args, "--output_path", str(tmp_path / "plain")], env=env,
                           capture_output=True, text=True, timeout=900)  # fmt: skip
    ours = _ambi("eval", *args, "--output_path", str(tmp_path / "eval"), env=env)
    for proc in (plain, ours):
        text = proc.stdout + proc.stderr
        assert proc.returncode == 2, text[-3000:]
        (line,) = [x for x in proc.stderr.splitlines() if x.startswith("ambi-plugin: no CUDA device here")]
        assert "qwen2_5_vl backend" in line and "add device=cpu,device_map=cpu to --model_args" in line
        assert "NVIDIA" not in text and "Traceback" not in text
        assert not list(tmp_path.rglob("*_results.json"))
    assert "the run failed" not in ours.stdout + ours.stderr  # the one line says it all
    assert not spy_log.exists(), f"the model was loaded: {spy_log.read_text()}"


def test_plain_lmms_eval_answers_a_typo_of_our_task_names(tmp_path, offline_env):
    proc = subprocess.run(
        [*lmms_eval_argv(), "--model", "ambi_replay", "--model_args", "predictions=/nonexistent.jsonl",
         "--tasks", "ambibench_al", "--output_path", str(tmp_path / "out")],  # fmt: skip
        env=offline_env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    text = proc.stdout + proc.stderr
    assert proc.returncode == 2, text[-3000:]  # lmms-eval alone: its traceback, exit code 0
    assert "ambi-plugin: unknown task 'ambibench_al'; did you mean ambibench_all" in proc.stderr
    assert "Traceback" not in text and "Tasks not found" not in text
