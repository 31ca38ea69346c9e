"""What a new user meets first: versions, usage on a mistake, argument sentences, their own categories everywhere,
what a results table says about its run, quiet and informative VLMEvalKit launches, short validation output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ambi_plugin.cli import build_parser, main


def _ambi(*args: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", *args], capture_output=True, text=True, timeout=600, env=env, cwd=cwd
    )


def test_version_names_ours_and_the_harnesses(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("ambi-plugin 0.") and "lmms-eval 0.7" in out and "VLMEvalKit" in out


def test_an_unknown_argument_shows_the_subcommands_usage(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["synth", "--out", "x", "--bogus"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: ambi synth" in err and "unrecognized arguments: --bogus" in err


def test_model_args_in_both_spellings():
    parser = build_parser()
    for spelling in ("--model_args", "--model-args"):
        args = parser.parse_args(["switch-heads", "capture", "--model", "m", spelling, "pretrained=x", "--out", "o"])
        assert args.model_args == "pretrained=x"
    from ambi_plugin.lmms.eval_run import normalize_argv

    assert normalize_argv(["--model-args", "a=1", "--model-args=b=2"]) == ["--model_args", "a=1", "--model_args=b=2"]


def test_eval_argument_mistakes_are_sentences(tmp_path):
    proc = _ambi("eval", "--model", "ambi_replay", "--model_args", "gold.jsonl", "--tasks", "ambi_synth_all")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--model_args item 'gold.jsonl' has no '='" in proc.stderr and "predictions=gold.jsonl" in proc.stderr
    proc = _ambi("eval", "--model", "ambi_replay", "--model_args", "predictions=x", "--tasks", "ambi_synth_geometrc_yn")
    assert proc.returncode == 2 and "did you mean ambi_synth_geometric_yn" in proc.stderr
    proc = _ambi("eval")
    assert proc.returncode == 2 and "usage: ambi eval" in proc.stderr and "no arguments" in proc.stderr


def test_a_users_category_is_known_to_every_command(tmp_path, monkeypatch, capsys):
    from PIL import Image

    from ambi_plugin.paths import tasks_dir

    yamls, data = tmp_path / "my_tasks", tmp_path / "my_records"
    args = ["new-category", "--benchmark", "mine", "--category", "ducks", "--task-type", "yes_no",
            "--prompt", "{question} Answer yes or no.", "--yaml-dir", str(yamls), "--data-dir", str(data)]  # fmt: skip
    assert main(args) == 0
    text = (yamls / "mine_ducks_yes_no.yaml").read_text()
    assert str(tasks_dir()) not in text and str(tmp_path) not in text and "include:" not in text
    Image.new("RGB", (16, 16)).save(data / "images" / "0.png")
    capsys.readouterr()
    monkeypatch.setenv("AMBI_TASKS_PATH", str(yamls))
    monkeypatch.setenv("AMBI_DATA_DIR", str(data))
    assert main(["tasks"]) == 0
    assert "mine_ducks_yes_no" in capsys.readouterr().out
    gold = tmp_path / "gold.jsonl"
    assert main(["replay-file", "--out", str(gold), "--tasks", "mine_ducks_yes_no", "--data-dir", str(data)]) == 0
    assert json.loads(gold.read_text().splitlines()[0])["task"] == "mine_ducks_yes_no"
    capsys.readouterr()
    assert main(["score", "--task", "mine_ducks_yes_no", "--answers", str(gold), "--data-dir", str(data)]) == 0
    assert "acc" in capsys.readouterr().out
    run = tmp_path / "run" / "m"
    run.mkdir(parents=True)
    (run / "x_results.json").write_text(
        json.dumps(
            {
                "results": {"mine_ducks_yes_no": {"acc,none": 1.0, "unparsed_rate,none": 0.0}},
                "n-samples": {"mine_ducks_yes_no": {"original": 1, "effective": 1}},
                "config": {"model": "m"},
            }
        )
    )
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")]) == 0
    assert "mine_ducks_yes_no" in (tmp_path / "report" / "report.md").read_text()


def test_results_show_the_model_items_and_a_limit_warning(tmp_path, capsys):
    results = {
        "results": {"ambi_synth_geometric_yn": {"acc,none": 0.5}},
        "n-samples": {"ambi_synth_geometric_yn": {"original": 8, "effective": 2}},
        "config": {"model": "qwen2_5_vl", "model_args": "pretrained=/m", "limit": 2.0},
        "ambi_plugin": {
            "skipped": {"ambibench_mixed_open": "ambibench: no copy"},
            "item_errors": {"ambi_synth_geometric_yn": {"count": 1, "items": [{"id": "3", "reason": "bad png"}]}},
        },
    }
    path = tmp_path / "x_results.json"
    path.write_text(json.dumps(results))
    assert main(["results", str(path)]) == 0
    out = capsys.readouterr().out
    assert "model: qwen2_5_vl (pretrained=/m)" in out
    assert "items per task: ambi_synth_geometric_yn 2" in out
    assert "WARNING: this run used --limit 2.0" in out
    assert "skipped (NaN): ambibench_mixed_open: ambibench: no copy" in out
    assert "item errors: ambi_synth_geometric_yn: 1 (first: id 3: bad png)" in out
    results["config"]["limit"] = None
    path.write_text(json.dumps(results))
    assert main(["results", str(path)]) == 0
    assert "WARNING" not in capsys.readouterr().out


def test_vlmeval_help_is_quiet_and_says_where_it_writes(tmp_path):
    proc = _ambi("vlmeval", "--help", cwd=tmp_path)
    assert proc.returncode == 0
    assert "ERROR" not in proc.stdout + proc.stderr
    assert "VLMEvalKit writes predictions and scores under outputs/<model>/" in proc.stderr
    assert "$LMUData" in proc.stderr and "usage: run.py" in proc.stdout


def test_validate_tasks_prints_one_line_per_problem_and_a_summary(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("task: mine_bad\ndataset_path: ambi://local\ndatset_name: x\nmetric_lst: []\n")
    assert main(["validate-tasks", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("- ")]
    assert len(lines) == 2 and all("bad.yaml" in line for line in lines)
    assert captured.out.strip() == "2 problem(s) (details: --verbose)"


def test_a_single_column_report_is_not_titled_by_breakdown():
    from ambi_plugin.reports.layouts import generic_layout

    assert generic_layout("t", ["acc", "unparsed_rate"]).title == "t: acc (%)"
    assert generic_layout("t", ["acc", "acc_near", "acc_far"]).title == "t: acc (%) by breakdown value"


def test_new_category_has_an_example_record_for_every_task_type():
    from ambi_plugin.core.schema import TASK_TYPES, validate_record
    from ambi_plugin.runtime.new_category import example_record

    for task_type in TASK_TYPES:  # color_naming had none: `ambi new-category --task-type color_naming` crashed
        assert validate_record(example_record("b", "c", task_type, []))["task_type"] == task_type


def test_vlmeval_refuses_a_data_name_nobody_knows(tmp_path):
    # VLMEvalKit's run.py would log it as invalid, skip it and exit 0 having evaluated nothing
    proc = _ambi("vlmeval", "--data", "ambi_synth_geometrc_yn", "--model", "x", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--data 'ambi_synth_geometrc_yn' is neither" in proc.stderr and "ambi_synth_geometric_yn" in proc.stderr
    assert not (tmp_path / "outputs").exists()
