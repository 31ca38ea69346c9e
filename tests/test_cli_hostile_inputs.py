"""Hostile or unlucky inputs to the ``ambi`` command, as real processes: one line naming the file (and line),
exit code 2, never a traceback (issue 21, point 13). Before: "'utf-8' codec can't decode byte 0xff" with no file,
RecursionError tracebacks, and 16-72-line tracebacks for an unreachable Hub or a missing folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BAD_BYTE = b'{"id": "a", "response": "caf\xff"}\n'
DEEP = "[" * 100_000 + "]" * 100_000


def ambi(*args: str, env: dict | None = None, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", *args],
        env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def assert_one_line(run: subprocess.CompletedProcess, *expected: str) -> str:
    assert run.returncode == 2, (run.returncode, run.stderr[-3000:])
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("ambi ")]
    assert len(lines) == 1, run.stderr[-3000:]
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    (root / "images").mkdir()
    out = {"root": root}
    out["bad"] = root / "bad.jsonl"
    out["bad"].write_bytes(b'{"id": "x", "response": "ok"}\n' + BAD_BYTE)  # the bad byte on line 2, column 29
    out["deep_jsonl"] = root / "deep.jsonl"
    out["deep_jsonl"].write_text('{"id": "a", "response": "ok"}\n{"id": "b", "response": ' + DEEP + "}\n")
    out["deep_json"] = root / "deep.json"
    out["deep_json"].write_text("[\n" + DEEP + "\n]\n")
    yamls = root / "yamls"
    yamls.mkdir()
    out["yaml"] = yamls / "mytask.yaml"
    out["yaml"].write_bytes(b"task: mytask\ndataset_path: json\n# \xfe\n")
    results = root / "run"
    results.mkdir()
    out["results"] = results / "2026_results.json"
    out["results"].write_bytes(b'{"results": {"caf\xe9": {}}}')
    out["config"] = root / "config.yaml"
    out["config"].write_bytes(b"judge:\n  backend: offline\n  model: \xff\n")
    return out


TASK = "ambi_synth_geometric_yn"


@pytest.mark.parametrize(
    ("name", "args", "where"),
    [
        ("score answers", ["score", "--task", TASK, "--answers", "{bad}"], "{bad}:2:"),
        ("score records", ["score", "--task", TASK, "--answers", "{deep_jsonl}", "--records", "{bad}"], "{bad}:2:"),
        (
            "import illusionvqa",
            ["import", "illusionvqa", "--jsonl", "{bad}", "--images", "{root}/images", "--out", "{root}/o1"],
            "{bad}:2:",
        ),  # fmt: skip
        (
            "import illusionbench",
            ["import", "illusionbench", "--jsonl", "{bad}", "--images", "{root}/images", "--out", "{root}/o2"],
            "{bad}:2:",
        ),  # fmt: skip
        (
            "import ambibench",
            ["import", "ambibench", "--jsonl", "{bad}", "--images", "{root}/images", "--out", "{root}/o3"],
            "{bad}:2:",
        ),  # fmt: skip
        ("judge-agreement", ["judge-agreement", "{bad}", "{bad}"], "{bad}:2:"),
        ("validate-tasks", ["validate-tasks", "{yaml}"], "{yaml}:3:"),
        ("report", ["report", "{results}", "--out", "{root}/rep", "--no-plots"], "{results}:1:"),
        ("score --results", ["score", "--results", "{results}"], "{results}:1:"),
    ],
)
def test_non_utf8_input_names_file_and_line(files, name, args, where):
    fmt = {k: str(v) for k, v in files.items()}
    line = assert_one_line(ambi(*[a.format(**fmt) for a in args]), where.format(**fmt), "not UTF-8")
    assert "save the file as UTF-8" in line


def test_non_utf8_config_file_names_itself(files):
    run = ambi("score", "--task", TASK, "--answers", str(files["bad"]), env={"AMBI_CONFIG": str(files["config"])})
    assert_one_line(run, f"{files['config']}:3:", "not UTF-8")


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["score", "--task", TASK, "--answers", "{deep_jsonl}"], "{deep_jsonl}:2:"),
        (["score", "--task", TASK, "--answers", "{deep_json}"], "{deep_json}:2:"),
        (["judge-agreement", "{deep_jsonl}", "{deep_jsonl}"], "{deep_jsonl}:2:"),
        (
            ["import", "illusionvqa", "--jsonl", "{deep_jsonl}", "--images", "{root}/images", "--out", "{root}/o4"],
            "{deep_jsonl}:2:",
        ),  # fmt: skip
    ],
)
def test_deeply_nested_json_names_file_and_line(files, args, where):
    fmt = {k: str(v) for k, v in files.items()}
    assert_one_line(ambi(*[a.format(**fmt) for a in args]), where.format(**fmt), "nested too deeply")


def test_push_to_an_unreachable_hub_is_one_line(tmp_path):
    built = tmp_path / "built"
    assert ambi("build", "ambi_synth", "--out", str(built), "--quiet").returncode == 0
    token = "hf_PLANTEDpushTOKEN0123456789"
    env = {"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9", "HF_TOKEN": token}  # port 9: refused
    run = ambi("push", str(built), "--repo", "someone/ambi-test", env=env)
    line = assert_one_line(run, f"cannot push {built} to the dataset repo someone/ambi-test at http://127.0.0.1:9")
    assert token not in run.stderr + run.stdout and "HF_ENDPOINT" in line


def test_rcid_copy_from_a_missing_folder_is_one_line(tmp_path):
    run = ambi("rcid-copy", "--hub", "/nonexistent", "--out", str(tmp_path / "rcid"))
    assert_one_line(run, "--hub /nonexistent: no such folder")
    assert not (tmp_path / "rcid").exists()


def test_bare_vlmeval_is_one_line():
    assert_one_line(ambi("vlmeval"), "ambi vlmeval needs --data")


# -- point 14: arguments and variables -------------------------------------------------------------------------
def test_new_category_prompt_with_control_characters_writes_a_yaml_that_loads(tmp_path):
    from ambi_plugin.lmms.validate import check_keys
    from ambi_plugin.runtime.taskindex import load_yaml

    prompt = "Look\x7f at {question}\x01 \u0085 and\ttell \u2028 me 😀"
    run = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "new-category", "--benchmark", "mybench", "--category", "ducks",
         "--task-type", "choice", "--prompt", prompt, "--yaml-dir", "y", "--data-dir", "d"],
        cwd=tmp_path, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    path = tmp_path / "y" / "mybench_ducks_choice.yaml"
    loaded = load_yaml(path)  # the loader of our task index (lmms-eval's !function tags)
    assert loaded["lmms_eval_specific_kwargs"]["default"]["prompt"] == prompt
    assert check_keys(path) == []  # and lmms-eval's keys check reads it


def test_bad_synth_seed_names_the_variable(tmp_path):
    run = ambi("replay-file", "--out", str(tmp_path / "r.jsonl"), "--tasks", TASK, env={"AMBI_SYNTH_SEED": "abc"})
    assert_one_line(run, "AMBI_SYNTH_SEED='abc' is not an integer")
    run = ambi("replay-file", "--out", str(tmp_path / "r.jsonl"), "--tasks", TASK, env={"AMBI_SYNTH_N": "8.5"})
    assert_one_line(run, "AMBI_SYNTH_N='8.5' is not an integer")


def test_paper_name_without_a_value_says_the_form(files):
    run = ambi("report", str(files["root"] / "nothing"), "--paper-name", "novalue", "--out", str(files["root"] / "r"))
    assert_one_line(run, "--paper-name 'novalue': expected MODEL=PAPER ROW NAME")


@pytest.mark.parametrize("source", ["/no/such/release", "./missing-release", "release.zip"])
def test_a_missing_source_path_is_not_described_as_a_hub_dataset(tmp_path, source):
    run = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "build", "illusionvqa", "--source", source, "--out", "out"],
        cwd=tmp_path, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    line = assert_one_line(run, f"--source {source}: no such file or folder")
    assert "Hub dataset '" not in line and not (tmp_path / "out").exists()
