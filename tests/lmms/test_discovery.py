"""Our tasks are found without flags, in new processes, and never shadow an lmms-eval built-in."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms import discovery, include_path, patches
from ambi_plugin.lmms.validate import builtin_task_names, name_collisions
from ambi_plugin.paths import tasks_dir
from ambi_plugin.reports.results import find_results_json, task_metrics
from ambi_plugin.runtime.taskindex import index

PROBE = """
import json, sys
import lmms_eval.models  # what every evaluation run imports before building its TaskManager
from lmms_eval.tasks import TaskManager
tm = TaskManager(include_path=sys.argv[1] if len(sys.argv) > 1 else None)
print("ALL=" + json.dumps(sorted(t for t in tm.all_tasks if t.startswith("ambi"))))
"""


def _probe(env, *args):
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True, timeout=300)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("ALL=")]
    assert line, proc.stderr[-3000:]
    return json.loads(line[0][4:])


def test_fresh_process_finds_every_task_and_group(offline_env):
    found = _probe(offline_env)
    assert sorted(found) == sorted(index())


def test_include_path_still_works_and_does_not_duplicate(offline_env):
    found = _probe(offline_env, str(tasks_dir()))
    assert sorted(found) == sorted(index())


def test_no_name_collides_with_a_builtin():
    builtin = builtin_task_names()
    # the check can fail: lmms-eval ships tasks whose names we must avoid
    assert "illusionbench" in builtin or any(n.startswith("illusionvqa") for n in builtin)
    assert not (set(index()) & builtin)
    assert name_collisions() == []


def test_entry_point_returns_models_and_never_raises(monkeypatch):
    manifests = discovery.lmms_eval_entry_point()
    assert [m.model_id for m in manifests] == ["ambi_replay", "ambi_intervene"]

    def boom():
        raise RuntimeError("simulated failure")

    monkeypatch.setattr(patches, "wrap", lambda *args, **kwargs: boom())  # every patch fails to install
    assert patches.install_hooks() is False
    assert [m.model_id for m in discovery.lmms_eval_entry_point()] == ["ambi_replay", "ambi_intervene"]


def test_malformed_yaml_of_ours_is_named_and_does_not_break_lmms_eval(tmp_path, monkeypatch, capsys):
    copy = tmp_path / "task_yamls"
    shutil.copytree(tasks_dir(), copy)
    (copy / "ambi_synth" / "ambi_synth_broken.yaml").write_text("task: [unclosed\n")
    monkeypatch.setattr(include_path, "tasks_path", lambda: str(copy))
    assert include_path.with_our_path(["/x"]) == ["/x"]
    assert "ambi_synth_broken.yaml" in capsys.readouterr().err


def test_with_our_path_is_idempotent():
    ours = str(tasks_dir())
    assert include_path.with_our_path(None) == [ours]
    assert include_path.with_our_path("/x") == ["/x", ours]
    assert include_path.with_our_path([ours]) == [ours]


def test_tasks_list_subcommand_through_wrapper(offline_env):
    ambi = shutil.which("ambi", path=offline_env.get("PATH")) or shutil.which("ambi")
    cmd = (
        [ambi, "lmms-eval", "tasks", "list"]
        if ambi
        else [sys.executable, "-m", "ambi_plugin.cli", "lmms-eval", "tasks", "list"]
    )
    proc = subprocess.run(cmd, env=offline_env, capture_output=True, text=True, timeout=300)
    assert "ambi_synth_all" in proc.stdout, proc.stderr[-2000:]


@pytest.mark.e2e
def test_accelerate_launch_finds_tasks(tmp_path, offline_env):
    task = "ambi_synth_geometric_tf"
    preds = tmp_path / "gold.jsonl"
    write_reference_predictions(preds, tasks=task, mode="gold")
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--num_processes",
        "1",
        "--cpu",
        "-m",
        "lmms_eval",
        "--model",
        "ambi_replay",
        "--model_args",
        f"predictions={preds}",
        "--tasks",
        task,
        "--output_path",
        str(out),
    ]
    proc = subprocess.run(cmd, env=offline_env, capture_output=True, text=True, timeout=600)
    try:
        results = json.loads(find_results_json(out).read_text())
    except FileNotFoundError:
        pytest.fail(proc.stdout[-2000:] + proc.stderr[-4000:])
    assert task_metrics(results)[task]["acc"] == 1.0
