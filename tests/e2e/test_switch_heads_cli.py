"""``ambi switch-heads`` from a model name to heatmaps, scores and Tables 3 / 4, through lmms-eval's qwen2_5_vl backend.

The model is the tiny random Qwen2.5-VL: its accuracies mean nothing (they are 0 everywhere). The test proves the
path: ``all`` (capture, scores, heatmaps, overlays, Table 3), ``visualize``, a held-out capture judged for real,
``fit-iti`` and ``intervene`` with Tables 3 and 4, every condition a real lmms-eval evaluation of AmbiBench tasks
through ``ambi_intervene``, read from the results JSONs. That an intervention acts shows in the tables' ``changed``
column: masking planted heads changes the responses, the ``none`` row does not.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ambi_plugin.analysis.collect import load_activations
from ambi_plugin.analysis.interventions import fit_iti, load_heads_file
from ambi_plugin.analysis.prompts import _terms
from ambi_plugin.cli.demo import TINY_MODEL_ARGS
from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

pytestmark = pytest.mark.e2e

BISTABLE, MULTISCENE = "ambibench_bistable_open", "ambibench_multiscene_open"


def _ambi(*args: str, env: dict) -> str:
    proc = subprocess.run([sys.executable, "-m", "ambi_plugin.cli", "switch-heads", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=1500)  # fmt: skip
    assert proc.returncode == 0, f"{args[0]} failed\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc.stdout


def _rows(path) -> dict[str, dict]:
    return {r["condition"]: r for r in json.loads(path.read_text())["rows"]}


def test_switch_heads_cli_end_to_end(tmp_path, offline_env, ambibench_fixtures_dir):
    model = make_tiny_qwen2_5_vl(tmp_path / "tiny")
    out = tmp_path / "run"
    margs = f"pretrained={model},{TINY_MODEL_ARGS}"
    common = ["--model", "qwen2_5_vl", "--model-args", margs, "--max-new-tokens", "4"]

    # 1. `all`: capture (the random model never names a real interpretation: the 'differs' rule lets images count),
    #    scores, heatmaps, attention overlays and Table 3
    _ambi("all", *common, "--category", "bistable", "--category", "multiscene", "--limit", "2", "--switch-rule",
          "differs", "--threshold", "2.5", "--seeds", "1", "--tasks", BISTABLE, "--out", out, env=offline_env)  # fmt: skip
    for category in ("bistable", "multiscene"):
        assert load_activations(out / category)["pre"].shape == (2, 4, 4, 16)
        assert (out / f"heatmap_{category}.png").read_bytes()[:4] == b"\x89PNG"
        data = json.loads((out / f"scores_{category}.json").read_text())
        s = np.array(data["s"])
        assert s.shape == (4, 4) and np.allclose(s, 1 - np.array(data["cos"]))
        assert data["sparsity"]["rule"] == "top 1%" and data["sparsity"]["n_selected"] == 1
    assert -1.0 <= json.loads((out / "pearson.json").read_text())["pearson_s"] <= 1.0
    switch = load_heads_file(out / "switch_heads.json")
    assert len(switch.heads) == 1
    for i in (0, 1):  # overlays of the first two bistable images
        assert (out / f"attention_bistable_{i}.png").read_bytes()[:4] == b"\x89PNG"
        assert np.load(out / f"attention_bistable_{i}.npy").ndim == 2
    t3 = _rows(out / "table3.json")
    assert list(t3) == ["none", "switch heads", "random heads (1 seeds)"]
    # the random control's heads and seed are recorded, and are the heads its run masked
    drawn = json.loads((out / "table3.json").read_text())["random_control"]
    assert [c["seed"] for c in drawn] == [0] and len(drawn[0]["heads"]) == 1 and drawn[0]["heads"] != switch.heads
    assert t3["random heads (1 seeds)"]["runs"][0]["heads"] == drawn[0]["heads"]
    assert load_heads_file(out / "random_heads" / "seed0.json").heads == [tuple(h) for h in drawn[0]["heads"]]
    assert f"heads={out / 'random_heads' / 'seed0.json'}" in t3["random heads (1 seeds)"]["runs"][0]["model_args"]
    assert all(0.0 <= r[BISTABLE] <= 100.0 and r[f"{BISTABLE}_n"] == 2 for r in t3.values())
    assert t3["none"][f"{BISTABLE}_changed"] == 0.0

    # 2. `visualize` on one image
    image = json.loads((ambibench_fixtures_dir / "bistable_open.jsonl").read_text().splitlines()[2])["image"]
    printed = _ambi("visualize", *common, "--image", ambibench_fixtures_dir / image, "--out", out / "vis",
                    env=offline_env)  # fmt: skip
    info = json.loads(printed.strip().splitlines()[-1])
    assert info["layer"] == 2 and min(info["shape"]) > 1
    assert (out / "vis" / "attention_bistable_0.png").read_bytes()[:4] == b"\x89PNG"

    # 3. held-out fit set: the same two records, relabelled so the judge finds item 0 correct (its labels are what
    #    the model said) and item 1 wrong; captured with the judge rule, then fit-iti through the CLI
    said = {it["id"]: it for it in json.loads((out / "bistable" / "capture.json").read_text())["items"]}
    recs = [json.loads(x) for x in (ambibench_fixtures_dir / "bistable_open.jsonl").read_text().splitlines()[:2]]
    terms = _terms(said[recs[0]["id"]]["first"]) + _terms(said[recs[0]["id"]]["second"])
    assert terms, "the tiny model answered with words"
    recs[0]["views"] = [{"name": f"v{i}", "labels": [t]} for i, t in enumerate(terms)]
    recs[1]["views"] = [{"name": "v0", "labels": ["zebra"]}, {"name": "v1", "labels": ["giraffe"]}]
    held = tmp_path / "heldout" / "bistable_open.jsonl"
    held.parent.mkdir()
    for rec in recs:
        rec["image"] = str(ambibench_fixtures_dir / rec["image"])
    held.write_text("".join(json.dumps(r) + "\n" for r in recs))
    _ambi("capture", *common, "--category", "bistable", "--records", held, "--out", out / "heldout", env=offline_env)
    cap = json.loads((out / "heldout" / "bistable" / "capture.json").read_text())
    assert cap["dataset_name"] == "bistable_open" and cap["switch_rule"] == "judge"
    assert [it["correct"] for it in cap["items"]] == [True, False]
    _ambi("fit-iti", "--capture", out / "heldout" / "bistable", "--heads", out / "switch_heads.json", "--out",
          out / "iti.json", env=offline_env)  # fmt: skip
    iti = load_heads_file(out / "iti.json")
    assert iti.meta["held_out_ids"] == ["bistable_open_0", "bistable_open_1"]
    assert iti.meta["held_out_dataset_name"] == "bistable_open"
    acts = load_activations(out / "heldout" / "bistable")
    want = fit_iti(acts["pre"], [True, False], switch.heads)
    np.testing.assert_allclose(iti.directions, want.directions)
    np.testing.assert_allclose(iti.sigmas, want.sigmas)

    # 4. Tables 3 (planted heads: every head of layers 0 and 1) and 4 (ITI), both tasks, no --limit
    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps({"heads": [[layer, h] for layer in (0, 1) for h in range(4)]}))
    tables = out / "tables"
    printed = _ambi("intervene", *common, "--heads", planted, "--seeds", "0", "--iti", out / "iti.json", "--alphas",
                    "0.5", "--tasks", f"{BISTABLE},{MULTISCENE}", "--out", tables, env=offline_env)  # fmt: skip
    assert "Table 3" in printed and "Table 4" in printed and "2 held-out items left out of 'bistable_open'" in printed
    t3, t4 = _rows(tables / "table3.json"), _rows(tables / "table4.json")
    assert list(t3) == ["none", "switch heads"] and list(t4) == ["none", "ITI alpha=0.5"]
    # Table 3 on every item; Table 4 without exactly the two held-out items of bistable_open, multi-scene untouched
    assert all(r[f"{BISTABLE}_n"] == 3 and r[f"{MULTISCENE}_n"] == 4 for r in t3.values())
    assert all(r[f"{BISTABLE}_n"] == 1 and r[f"{MULTISCENE}_n"] == 4 for r in t4.values())
    meta = json.loads((tables / "table4.json").read_text())["held_out"]
    assert meta["excluded_ids"] == ["bistable_open_0", "bistable_open_1"] and meta["held_out_ids_not_found"] == []
    # the intervention measurably changes what the model says; the baseline row compares equal to itself
    assert t3["none"][f"{BISTABLE}_changed"] == t3["none"][f"{MULTISCENE}_changed"] == 0.0
    assert max(t3["switch heads"][f"{BISTABLE}_changed"], t3["switch heads"][f"{MULTISCENE}_changed"]) > 0
    for row in [*t3.values(), *t4.values()]:
        assert 0.0 <= row[BISTABLE] <= 100.0 and 0.0 <= row[MULTISCENE] <= 100.0, row
    assert "changed %" in (tables / "table3.md").read_text()
    configs = [json.loads(p.read_text())["config"]["model_args"] for p in sorted(tables.rglob("*_results.json"))]
    assert len(configs) == 4, "Table 4's 'none' row runs on the held-out-free copy, not shared with Table 3's"
    assert any("mode=iti" in c and "alpha=0.5" in c for c in configs)
    assert sum("mode=none" in c for c in configs) == 2
