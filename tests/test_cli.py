"""The ``ambi`` command as a user types it: help on every option, plain wording, honest exit codes."""

from __future__ import annotations

import argparse
import json
import re

from ambi_plugin.cli import PASSTHROUGH, build_parser, main
from ambi_plugin.lmms.eval_run import option_value, tasks_without_results, without_option
from ambi_plugin.synth import SYNTH_TASKS


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_has_help_text():
    for name, parser in _subparsers().items():
        for action in parser._actions:
            assert action.help and action.help.strip(), f"ambi {name}: {'/'.join(action.option_strings) or action.dest}"


def test_passthrough_commands_leave_lmms_eval_arguments_alone():
    for name in PASSTHROUGH:
        desc = _subparsers()[name].description or ""
        assert "lmms-eval" in desc


def test_tasks_wording(capsys):
    assert main(["tasks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "kind", "benchmark", "category", "task", "type", "members"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:]}
    assert rows["ambibench_all"][-2:] == ["10", "groups"]
    assert rows["ambi_synth_all"][-2:] == [str(len(SYNTH_TASKS)), "tasks"]
    assert rows["ambibench_color"][-2:] == ["1", "task"]  # never "1 tasks"
    # a group's benchmark is its tasks' (not the folder name)
    assert rows["ambi_illusionbench_all"][2] == rows["ambi_illusionbench_tf"][2] == "illusionbench"
    assert not any(re.search(r"\b1 tasks\b", ln) for ln in lines)


def test_results_says_what_it_expects(tmp_path, capsys):
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"doc_id": 0}\n{"doc_id": 1}\n')
    assert main(["results", str(samples)]) == 2
    err = capsys.readouterr().err
    assert "samples.jsonl is not a JSON file" in err and "results JSON lmms-eval writes" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"a": 1}))
    assert main(["results", str(other)]) == 2
    assert "has no 'results' table" in capsys.readouterr().err


def test_option_helpers():
    argv = ["--model", "m", "--tasks=a,b", "--output_path", "out", "--limit", "2"]
    assert option_value(argv, "--tasks") == "a,b" and option_value(argv, "--output_path") == "out"
    assert option_value(argv, "--seed") is None
    assert without_option(argv, "--output_path") == ["--model", "m", "--tasks=a,b", "--limit", "2"]


def test_tasks_without_results():
    nan = float("nan")
    results = {
        "results": {
            "t_ok": {"alias": "t_ok", "acc,none": 0.5, "acc_stderr,none": "N/A"},
            "t_nan": {"alias": "t_nan", "acc,none": nan},
            "g": {"alias": "g"},
            "g2": {"alias": "g2"},
        },
        "group_subtasks": {"g": ["t_ok"], "g2": ["t_ok", "t_nan"]},
    }
    assert tasks_without_results(results, ["t_ok", "g"]) == []
    assert tasks_without_results(results, ["t_nan", "g2", "absent", "t_o*", "zz*"]) == ["t_nan", "g2", "absent", "zz*"]


def test_eval_without_arguments_prints_help(capsys):
    assert main(["eval"]) == 2  # nothing to run is a mistake, not a success (issue 21)
    assert "exit non-zero" in capsys.readouterr().err
