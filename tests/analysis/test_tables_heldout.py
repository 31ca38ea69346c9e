"""Table 4's held-out items are left out by id (only from the records they came from); table rows and 'changed %'."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ambi_plugin.analysis.heads import HeadLayout
from ambi_plugin.analysis.heldout import data_env_var, evaluation_copy
from ambi_plugin.analysis.interventions import HeadsSpec, load_heads_file, random_heads
from ambi_plugin.analysis.tables import RunResult, format_table, intervention_table, table3_conditions
from ambi_plugin.cli.switch_heads import _held_out, _random_controls
from ambi_plugin.core.schema import read_records


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def test_evaluation_copy_drops_exactly_the_held_out_ids(tmp_path, ambibench_fixtures_dir):
    src = Path(ambibench_fixtures_dir)
    held = evaluation_copy("ambi://ambibench", "bistable_open", ["bistable_open_0", "bistable_open_2", "nope"],
                           tmp_path / "eval")  # fmt: skip
    assert held.excluded == ["bistable_open_0", "bistable_open_2"] and held.missing == ["nope"]
    assert _ids(tmp_path / "eval" / "bistable_open.jsonl") == ["bistable_open_1"]
    for name in ("multiscene_open", "bistable_choice"):  # other records untouched, multi-scene included
        assert _ids(tmp_path / "eval" / f"{name}.jsonl") == _ids(src / f"{name}.jsonl")
    assert held.env == {"AMBI_AMBIBENCH_DIR": str(tmp_path / "eval")}
    for rec in read_records(tmp_path / "eval" / "multiscene_open.jsonl"):
        assert os.path.isabs(rec["image"]) and os.path.exists(rec["image"])
    with pytest.raises(FileNotFoundError, match="--dataset-name"):
        evaluation_copy("ambi://ambibench", "no_such_records", ["x"], tmp_path / "e2")


def test_held_out_note_and_env(tmp_path, ambibench_fixtures_dir, capsys):
    spec = HeadsSpec([(0, 0)], [[1.0]], [1.0], {"held_out_ids": ["bistable_open_1"], "held_out_dataset_name":
                                                "bistable_open"})  # fmt: skip
    env, meta, note = _held_out(spec, "ambi://ambibench", tmp_path / "eval")
    assert env == {"AMBI_AMBIBENCH_DIR": str(tmp_path / "eval")}
    assert meta["held_out"]["excluded_ids"] == ["bistable_open_1"] and "1 held-out items" in note
    env, meta, note = _held_out(HeadsSpec([(0, 0)]), "ambi://ambibench", tmp_path / "eval2")
    assert env == {} and meta == {"held_out": None} and "warning" in capsys.readouterr().out
    assert data_env_var("ambi://local") == "AMBI_DATA_DIR"


def _fake_lmms_output(folder: Path, acc: float, resps: list[str], n: int) -> None:
    """What an lmms-eval run writes (results JSON + --log_samples file); the real runs are in the e2e test."""
    folder.mkdir(parents=True, exist_ok=True)
    results = {"results": {"t": {"acc,none": acc}}, "n-samples": {"t": {"original": n + 2, "effective": n}}}
    (folder / "x_results.json").write_text(json.dumps(results))
    rows = [{"doc_id": i, "doc_hash": f"h{i}", "filtered_resps": [r]} for i, r in enumerate(resps)]
    (folder / "x_samples_t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_intervention_table_rows_changed_and_env(tmp_path):
    plan = {"seed=0": (0.5, ["a", "b", "c", "Z"]), "seed=1": (0.0, ["a", "b", "c", "d"]),
            "mode=none": (0.5, ["a", "b", "c", "d"]), "mode=mask": (0.25, ["a", "X", "c", "Y"])}  # fmt: skip
    calls = []

    def run(argv, output, env=None):
        extra = argv[argv.index("--model_args") + 1]
        key = next(k for k in plan if k in extra)
        calls.append((argv, env))
        _fake_lmms_output(output, *plan[key], n=4)
        return RunResult(json.loads((output / "x_results.json").read_text()), output)

    conds = [("none", "mode=none"), ("switch heads", "mode=mask"), ("random heads (seed 0)", "mode=mask,seed=0"),
             ("random heads (seed 1)", "mode=mask,seed=1")]  # fmt: skip
    table = intervention_table(run, base="qwen2_5_vl", base_args="pretrained=x", conditions=conds, tasks=["t"],
                               out_dir=tmp_path, env={"AMBI_AMBIBENCH_DIR": "/d"}, meta={"held_out": {"n": 1}})  # fmt: skip
    assert all(env == {"AMBI_AMBIBENCH_DIR": "/d"} and "--log_samples" in argv for argv, env in calls)
    rows = {r["condition"]: r for r in table["rows"]}
    assert rows["none"]["t"] == 50.0 and rows["none"]["t_changed"] == 0.0 and rows["none"]["t_n"] == 4
    assert rows["switch heads"]["t"] == 25.0 and rows["switch heads"]["t_changed"] == 50.0
    rnd = rows["random heads (2 seeds)"]
    assert rnd["t"] == 25.0 and rnd["t_std"] == 25.0 and rnd["t_changed"] == 12.5
    assert table["held_out"] == {"n": 1} and table["baseline_condition"] == "none"
    md = format_table(table)
    assert "| switch heads | 25.00 | 50.0 |" in md and "25.00 +- 25.00 | 12.5" in md


def test_random_control_heads_and_seeds_are_recorded(tmp_path):
    spec = HeadsSpec([(0, 0), (1, 2)], meta={"n_heads_total": 16, "shape": [4, 4], "max_fraction": 0.1})
    controls = _random_controls(spec, "sw.json", range(2), tmp_path / "random_heads")
    layout = HeadLayout(tuple(f"l{i}" for i in range(4)), n_heads=4, head_dim=8)
    for c in controls:  # the same draw as ambi_intervene's random_seed=N on the model's layout
        assert [tuple(h) for h in c["heads"]] == random_heads(layout, 2, seed=c["seed"], exclude=spec.heads)
        assert not {tuple(h) for h in c["heads"]} & {(0, 0), (1, 2)}
        assert load_heads_file(c["heads_file"]).heads == [tuple(h) for h in c["heads"]], "the file the run masks"
    assert controls[0]["heads"] != controls[1]["heads"]
    conds = table3_conditions("sw.json", controls=controls)
    assert conds[2][1] == f"mode=mask,heads={controls[0]['heads_file']},epsilon=0.001"

    def run(argv, output, env=None):
        _fake_lmms_output(output, 0.5, ["a"], n=1)
        return RunResult(json.loads((output / "x_results.json").read_text()), output)

    meta = {"random_control": [{"seed": c["seed"], "heads": c["heads"]} for c in controls]}
    table = intervention_table(run, base="b", base_args="", conditions=conds, tasks=["t"], out_dir=tmp_path, meta=meta)
    rnd = table["rows"][-1]
    assert rnd["seeds"] == [0, 1] and [r["heads"] for r in rnd["runs"]] == [c["heads"] for c in controls]
    assert table["random_control"][1]["seed"] == 1
    assert "Random heads, seed 0: " + ", ".join(f"({a}, {b})" for a, b in controls[0]["heads"]) in format_table(table)


def test_random_control_refusal_names_the_setting(tmp_path):
    spec = HeadsSpec([(i, h) for i in range(3) for h in range(4)], meta={"n_heads_total": 16, "shape": [4, 4],
                                                                         "max_fraction": 1.0})  # fmt: skip
    with pytest.raises(SystemExit, match=r"smaller --max-fraction \(the file was made with 1.0; at most 0.5"):
        _random_controls(spec, "sw.json", range(1), tmp_path)
    assert _random_controls(spec, "sw.json", range(0), tmp_path) == [], "--seeds 0 skips the control"
    with pytest.raises(SystemExit, match="no 'shape'"):
        _random_controls(HeadsSpec([(0, 0)]), "h.json", range(1), tmp_path)
