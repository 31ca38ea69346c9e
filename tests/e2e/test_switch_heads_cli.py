"""``ambi switch-heads`` from a model name to heatmaps, scores and Tables 3 / 4, through lmms-eval's qwen2_5_vl backend.

The model is the tiny random Qwen2.5-VL: its numbers mean nothing. The test proves the path: activations captured by
the backend, scores and heatmaps written, every intervention condition run as a real lmms-eval evaluation of an
AmbiBench task through ``ambi_intervene``, and the tables read from the results JSONs.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ambi_plugin.analysis.collect import load_activations
from ambi_plugin.analysis.interventions import fit_iti, load_heads_file, write_heads_file
from ambi_plugin.demo import TINY_MODEL_ARGS
from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

pytestmark = pytest.mark.e2e


def _ambi(*args: str, env: dict) -> str:
    proc = subprocess.run([sys.executable, "-m", "ambi_plugin.cli", "switch-heads", *args], env=env,
                          capture_output=True, text=True, timeout=1500)  # fmt: skip
    assert proc.returncode == 0, f"{args[0]} failed\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc.stdout


def test_switch_heads_cli_end_to_end(tmp_path, offline_env):
    model = make_tiny_qwen2_5_vl(tmp_path / "tiny")
    out = tmp_path / "run"
    margs = f"pretrained={model},{TINY_MODEL_ARGS}"
    common = ["--model", "qwen2_5_vl", "--model-args", margs, "--max-new-tokens", "4"]

    # the random model's answers never match a real interpretation: the 'differs' rule lets images count
    _ambi("capture", *common, "--category", "bistable", "--category", "multiscene", "--limit", "2",
          "--switch-rule", "differs", "--out", str(out), env=offline_env)  # fmt: skip
    for category in ("bistable", "multiscene"):
        acts = load_activations(out / category)
        assert acts["pre"].shape == (2, 4, 4, 16)
    printed = _ambi("scores", "--out", str(out), "--threshold", "2.5", env=offline_env)
    assert "Pearson(bistable, multiscene)" in printed
    for category in ("bistable", "multiscene"):
        assert (out / f"heatmap_{category}.png").read_bytes()[:4] == b"\x89PNG"
        data = json.loads((out / f"scores_{category}.json").read_text())
        s = np.array(data["s"])
        assert s.shape == (4, 4) and np.allclose(s, 1 - np.array(data["cos"]))
        assert data["sparsity"]["rule"] == "top 1%" and data["sparsity"]["n_selected"] == 1
    pear = json.loads((out / "pearson.json").read_text())["pearson_s"]
    assert -1.0 <= pear <= 1.0
    heads = load_heads_file(out / "switch_heads.json")
    assert len(heads.heads) == 1

    # ITI file: fitted on the captured items with one labelled correct and one incorrect (the random model gives
    # no meaningful correctness); n_held_out = 0 so the evaluation starts at item 0
    acts = load_activations(out / "bistable")
    spec = fit_iti(acts["pre"], [True, False], heads.heads)
    spec.meta["n_held_out"] = 0
    iti = write_heads_file(out / "iti_heads.json", spec)

    printed = _ambi("intervene", *common, "--heads", str(out / "switch_heads.json"), "--iti", str(iti), "--seeds", "1",
                    "--alphas", "0.5", "--limit", "1", "--tasks", "ambibench_bistable_open", "--out", str(out),
                    env=offline_env)  # fmt: skip
    assert "Table 3" in printed and "Table 4" in printed
    t3 = json.loads((out / "table3.json").read_text())
    assert [r["condition"] for r in t3["rows"]] == ["none", "switch heads", "random heads (1 seeds)"]
    t4 = json.loads((out / "table4.json").read_text())
    assert [r["condition"] for r in t4["rows"]] == ["none", "ITI alpha=0.5"]
    for row in t3["rows"] + t4["rows"]:
        assert 0.0 <= row["ambibench_bistable_open"] <= 100.0, row
    assert (out / "table3.md").read_text().startswith("| condition |")
    # each condition was an lmms-eval run of ambi_intervene with its own model_args
    configs = [json.loads(p.read_text())["config"]["model_args"] for p in sorted(out.rglob("*_results.json"))]
    assert any("mode=mask" in c and "random_seed=0" in c for c in configs)
    assert any("mode=iti" in c and "alpha=0.5" in c for c in configs)
    assert any("mode=none" in c for c in configs)
    assert len(configs) == 4, "the 'none' row is shared by both tables: 4 runs, not 5"
