"""Issue 30's run faults, unit by unit: a run owns only the results file it wrote (its own folder, its own id; never
by the absence of an id), an inherited AMBI_RUN_ID never wins, task names under lmms-eval's --include_path are
known, a typo of one of ours gets "did you mean" in plain lmms-eval, no secret of --model_args reaches lmms-eval's
response cache, a backend that needs CUDA stops before the model loads on a machine without it, and Ctrl-C under
``ambi eval`` ends the child quietly. Each wrapper of lmms-eval passes its arguments through and leaves runs that
are not ours exactly as they were. The end-to-end runs are in tests/e2e/test_run_faults.py."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ambi_plugin.lmms import cli_run, patches, run_guards
from ambi_plugin.lmms.eval_run import argument_problem
from ambi_plugin.lmms.tasknames import declared_names, include_paths, looks_like_ours

TOKEN = "sk-ambi-PLANTED-0123456789abcdef"

# ----------------------------------------------------------------------------------------- results ownership


def _results(path: Path, run_id: str | None = None, section: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict = {"results": {"t": {"acc,none": 1.0}}}
    if section:
        data["ambi_plugin"] = {"version": "x", **({"run_id": run_id} if run_id is not None else {})}
    path.write_text(json.dumps(data))
    return path


def test_a_run_id_is_its_start_time_and_random_digits_and_never_repeats():
    ids = {cli_run.new_run_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{8}", i) for i in ids)


def test_the_new_runs_id_wins_over_an_inherited_one(monkeypatch):
    monkeypatch.setenv(cli_run.RUN_ID_ENV, "inherited-from-a-wrapper-script")
    assert cli_run.child_env(None, "mine")[cli_run.RUN_ID_ENV] == "mine"
    assert cli_run.child_env({cli_run.RUN_ID_ENV: "inherited", "X": "1"}, "mine") == {
        cli_run.RUN_ID_ENV: "mine",
        "X": "1",
    }


def test_a_results_file_is_owned_by_its_folder_and_its_id_never_by_an_absent_id(tmp_path):
    run_dir = tmp_path / "out" / "run-1"
    ours = _results(run_dir / "model" / "a_results.json", "run-1")
    other_id = _results(run_dir / "model" / "b_results.json", "run-2")  # another run's file in our folder
    no_id = _results(run_dir / "model" / "c_results.json", None)  # a section of ours without an id
    foreign = _results(run_dir / "model" / "d_results.json", section=False)  # a run of no task of ours
    outside = _results(tmp_path / "out" / "someone" / "e_results.json", section=False)
    outside_ours = _results(tmp_path / "out" / "someone" / "f_results.json", "run-1")
    torn = run_dir / "model" / "g_results.json"
    torn.write_text('{"results": ')
    listed = run_dir / "model" / "h_results.json"
    listed.write_text("[1, 2]")
    owned = {p.name for p in (ours, other_id, no_id, foreign, outside, outside_ours, torn, listed)
             if cli_run.owns_results(p, "run-1", run_dir)}  # fmt: skip
    assert owned == {"a_results.json", "d_results.json"}


def test_a_run_claims_only_files_written_during_it(tmp_path):
    run_dir = tmp_path / "run-1"
    old = _results(run_dir / "m" / "old_results.json", "run-1")
    before = cli_run._results_files(run_dir)
    new = _results(run_dir / "m" / "new_results.json", "run-1")
    assert cli_run.claim_results(run_dir, "run-1", before) == [new]
    os.utime(old, ns=(before[old] + 10**9, before[old] + 10**9))  # rewritten during the run
    assert sorted(cli_run.claim_results(run_dir, "run-1", before)) == sorted([old, new])


# ------------------------------------------------------------------------------------------------ task names


def _task_yaml(folder: Path, name: str, **extra) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    body = {"task": name, "dataset_path": "json", **extra}
    (folder / f"{name}.yaml").write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in body.items()) + "\n")


def test_include_paths_reads_both_spellings_and_every_occurrence():
    argv = ["--model", "m", "--include_path", "A", "--tasks", "x", "--include_path=B", "--include_path"]
    assert include_paths(argv) == ["A", "B"]


def test_declared_names_reads_tasks_groups_and_tags_and_passes_over_a_broken_yaml(tmp_path):
    _task_yaml(tmp_path / "d", "ambi_mine_x", tag=["ambi_mine_tag"])
    (tmp_path / "d" / "group.yaml").write_text("group: ambi_mine_all\ntask:\n  - ambi_mine_x\n  - task: ambi_inline\n")
    (tmp_path / "d" / "broken.yaml").write_text("task: [unclosed\n")
    (tmp_path / "d" / "fn.yaml").write_text("task: ambi_mine_fn\ndoc_to_text: !function utils.doc_to_text\n")
    assert declared_names(tmp_path / "d") == {"ambi_mine_x", "ambi_mine_tag", "ambi_mine_all", "ambi_inline",
                                              "ambi_mine_fn"}  # fmt: skip
    assert declared_names(tmp_path / "d" / "ambi_mine_x.yaml") == {"ambi_mine_x", "ambi_mine_tag"}
    assert declared_names(tmp_path / "missing") == set()


def test_a_task_under_lmms_evals_include_path_is_known_to_ambi_eval(tmp_path):
    _task_yaml(tmp_path / "one", "ambi_mine_x")
    _task_yaml(tmp_path / "two", "ambibench_mine_y")
    base = ["--model", "ambi_replay", "--model_args", "predictions=p.jsonl"]
    assert argument_problem([*base, "--tasks", "ambi_mine_x"]).startswith("unknown task 'ambi_mine_x'; did you mean")
    assert argument_problem([*base, "--include_path", str(tmp_path / "one"), "--tasks", "ambi_mine_x"]) is None
    assert argument_problem([*base, f"--include_path={tmp_path / 'one'}", "--tasks", "ambi_mine_x"]) is None
    both = [*base, "--include_path", str(tmp_path / "one"), "--include_path", str(tmp_path / "two")]
    assert argument_problem([*both, "--tasks", "ambi_mine_x,ambibench_mine_y,ambi_synth_all"]) is None
    typo = argument_problem([*both, "--tasks", "ambi_mine_z"])
    assert typo.startswith("unknown task 'ambi_mine_z'; did you mean ambi_mine_x")


def test_only_names_that_look_like_ours_are_checked(tmp_path):
    assert looks_like_ours("ambibench_al") and looks_like_ours("AMBI_X")
    assert not looks_like_ours("mme") and not looks_like_ours("ambi_synth_*") and not looks_like_ours(None)
    yaml_path = tmp_path / "ambi_file.yaml"
    yaml_path.write_text("task: t\n")
    assert not looks_like_ours(str(yaml_path))  # lmms-eval also takes a YAML file as a task
    assert argument_problem(["--tasks", "mme_typo,ambi_synth_*"]) is None


def test_plain_lmms_eval_answers_a_typo_of_ours_and_leaves_other_names_alone(monkeypatch, capsys):
    from lmms_eval.tasks import TaskManager

    seen = []

    def fake(self, task_list, new_keyword=None):
        seen.append((list(task_list), new_keyword))
        return [t for t in task_list if t in self.all_tasks]

    monkeypatch.setattr(TaskManager, "match_tasks", fake)
    patches.install("lmms_eval.tasks.TaskManager.match_tasks")
    assert TaskManager.match_tasks is not fake
    manager = SimpleNamespace(all_tasks=["mme", "ambibench_all", "ambi_synth_all"])
    assert TaskManager.match_tasks(manager, ["mme_typo", "mme"], new_keyword=1) == ["mme"]  # lmms-eval's to answer
    assert seen == [(["mme_typo", "mme"], 1)]
    with pytest.raises(SystemExit) as stop:
        TaskManager.match_tasks(manager, ["mme", "ambibench_al"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("ambi-plugin: unknown task 'ambibench_al'; did you mean ambibench_all") and err.count("\n") == 1
    )


# ----------------------------------------------------------------------------------- secrets in the response cache


def test_secret_values_of_model_args_are_masked_and_nothing_else_changes(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_PlantedEnvironmentToken0123")
    got = run_guards.masked_model_args(
        f"model_version=gpt,api_key={TOKEN},base_url=http://user:{TOKEN}@127.0.0.1:1/v1,"
        "pretrained=hf_PlantedEnvironmentToken0123,max_tokens=8,OPENAI_API_KEY=x"
    )
    assert got == {"model_version": "gpt", "api_key": "***", "base_url": "http://***@127.0.0.1:1/v1",
                   "pretrained": "***", "max_tokens": 8, "OPENAI_API_KEY": "***"}  # fmt: skip
    assert run_guards.masked_model_args("pretrained=/models/x,device=cpu,base_url=http://h:1/v1") is None
    assert run_guards.masked_model_args({"token": TOKEN, "n": 1}) == {"token": "***", "n": 1}
    assert run_guards.masked_model_args(f"oops,access_token={TOKEN}") == "oops,access_token=***"  # not KEY=VALUE
    assert run_guards.masked_model_args(None) is None and run_guards.masked_model_args("") is None


@pytest.fixture
def response_cache(monkeypatch):
    """lmms-eval's ResponseCache with our fingerprint guard over it (restored after the test)."""
    from lmms_eval.caching.response_cache import ResponseCache

    monkeypatch.setattr(ResponseCache, "create", ResponseCache.__dict__["create"])
    monkeypatch.delenv(run_guards.EVAL_ENV, raising=False)
    monkeypatch.setenv("LMMS_CACHE_RUN_ID", "unit")
    patches.install("lmms_eval.caching.response_cache.ResponseCache.create")
    patches.install("lmms_eval.caching.response_cache.ResponseCache.create")  # idempotent
    return ResponseCache


def _fingerprint_and_files(cache, root: Path, **kwargs) -> tuple[str, list[bytes]]:
    created = cache.create(str(root), model="openai", **kwargs)
    fingerprint = created.model_fingerprint
    created.close()
    with sqlite3.connect(root / "runs" / "unit" / "rank_0.db") as db:
        stored = db.execute("SELECT value FROM meta WHERE key = 'model_fingerprint'").fetchone()[0]
    assert stored == fingerprint
    return fingerprint, [p.read_bytes() for p in root.rglob("*") if p.is_file()]


def test_no_file_of_the_response_cache_holds_a_key_of_model_args(response_cache, tmp_path, monkeypatch):
    from lmms_eval.api.task import TaskConfig

    ours = {"ambi_synth_geometric_yn": SimpleNamespace(config=TaskConfig(task="x_ours", dataset_path="ambi://synth"))}
    args = f"model_version=m,api_key={TOKEN}"
    fp, files = _fingerprint_and_files(response_cache, tmp_path / "ours", model_args=args, task_dict=ours)
    assert fp == 'openai|{"api_key":"***","model_version":"m"}'
    assert files and not any(TOKEN.encode() in data for data in files)
    monkeypatch.setenv(run_guards.EVAL_ENV, "1")  # a run ambi eval started, whatever its tasks
    fp, files = _fingerprint_and_files(response_cache, tmp_path / "eval", model_args=args, task_dict={})
    assert "***" in fp and not any(TOKEN.encode() in data for data in files)


def test_a_run_that_is_not_ours_keeps_lmms_evals_own_fingerprint(response_cache, tmp_path):
    from lmms_eval.api.task import TaskConfig

    theirs = {"mme": SimpleNamespace(config=TaskConfig(task="mme", dataset_path="lmms-lab/MME"))}
    fp, _ = _fingerprint_and_files(response_cache, tmp_path / "a", model_args=f"api_key={TOKEN}", task_dict=theirs)
    assert fp == f'openai|{{"api_key":"{TOKEN}"}}'  # lmms-eval's behaviour, untouched
    plain, _ = _fingerprint_and_files(
        response_cache, tmp_path / "b", model_args="model_version=m,max_tokens=8", task_dict={}
    )
    assert plain == 'openai|{"max_tokens":8,"model_version":"m"}'


# --------------------------------------------------------------------------------------------- CPU-only machines


@pytest.fixture
def no_cuda(monkeypatch):
    """A machine without a CUDA device, whatever this one has (the check reads torch.cuda.is_available())."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def test_a_backend_that_would_put_the_model_on_cuda_is_named_with_the_cpu_arguments(no_cuda):
    problem = run_guards.cuda_problem("qwen2_5_vl", "pretrained=/m")
    assert problem == (
        "no CUDA device here (torch.cuda.is_available() is False) and lmms-eval's qwen2_5_vl backend would put the "
        "model on CUDA (device=cuda, device_map=auto); to run on the CPU add device=cpu,device_map=cpu to "
        "--model_args; nothing was loaded"
    )
    assert "(device_map=auto)" in run_guards.cuda_problem("qwen2_5_vl", "pretrained=/m,device=cpu")  # inputs.to("cuda")
    assert "(device=cuda:0)" in run_guards.cuda_problem("qwen2_5_vl", {"device": "cuda:0", "device_map": "cpu"})
    assert run_guards.cuda_problem("qwen2_5_vl", "pretrained=/m,device=cpu,device_map=cpu") is None
    assert run_guards.cuda_problem("qwen2_5_vl", "pretrained=/m,device_map=cpu", device="cpu") is None  # --device
    for model in ("ambi_replay", "openai", "no_such_model"):  # no device to place, or lmms-eval's to name
        assert run_guards.cuda_problem(model, "x=1") is None
    assert run_guards.cuda_problem(object(), "") is None


def test_with_cuda_nothing_is_asked(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert run_guards.cuda_problem("qwen2_5_vl", "pretrained=/m") is None


def test_the_cpu_check_stops_runs_of_ours_before_the_model_and_leaves_other_runs_alone(no_cuda, monkeypatch, capsys):
    from lmms_eval import evaluator

    calls = []

    def fake(model, model_args=None, tasks=None, device=None, force_simple=False, new_keyword=None):
        calls.append((model, model_args, tasks, device, new_keyword))
        return "evaluated"

    monkeypatch.setattr(evaluator, "simple_evaluate", fake)
    monkeypatch.delenv(run_guards.EVAL_ENV, raising=False)
    patches.install("lmms_eval.evaluator.simple_evaluate")
    assert evaluator.simple_evaluate is not fake
    assert evaluator.simple_evaluate("qwen2_5_vl", "pretrained=/m", ["mme"], new_keyword=3) == "evaluated"
    assert calls == [("qwen2_5_vl", "pretrained=/m", ["mme"], None, 3)]  # not ours: lmms-eval's own failure later
    with pytest.raises(SystemExit) as stop:
        evaluator.simple_evaluate("qwen2_5_vl", model_args="pretrained=/m", tasks=["ambi_synth_all"])
    assert stop.value.code == 2 and len(calls) == 1
    assert capsys.readouterr().err.startswith("ambi-plugin: no CUDA device here")
    monkeypatch.setenv(run_guards.EVAL_ENV, "1")  # started by ambi eval: checked whatever the tasks
    with pytest.raises(SystemExit):
        evaluator.simple_evaluate("qwen2_5_vl", model_args="pretrained=/m", tasks=["mme"])
    assert evaluator.simple_evaluate("qwen2_5_vl", "pretrained=/m,device=cpu,device_map=cpu", ["mme"]) == "evaluated"


# ------------------------------------------------------------------------------------------------------ Ctrl-C


def test_ctrl_c_ends_a_child_of_ambi_eval_without_its_traceback(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(sys, "excepthook", lambda *a: seen.append(a[0]))
    monkeypatch.delenv(run_guards.EVAL_ENV, raising=False)
    patches.install("sys.excepthook")
    sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert seen == [KeyboardInterrupt]  # plain lmms-eval: Python's own report
    monkeypatch.setenv(run_guards.EVAL_ENV, "1")
    patches.install("sys.excepthook")
    sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
    sys.excepthook(ValueError, ValueError("x"), None)
    assert seen == [KeyboardInterrupt, ValueError]  # only the interrupt is quiet
