"""A good guest: runs without a task of ours are exactly what they are without the plugin, and every
wrapper of an lmms-eval internal passes its arguments through (a new keyword in lmms-eval reaches it)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from ambi_plugin.lmms import include_path, ownership, patches, results_meta
from ambi_plugin.lmms.ownership import HOOKS_ENV

FOREIGN_TASK = "guest_probe_qa"  # not ours: its own YAML, its own JSON, lmms-eval's own metric
VOLATILE = ("date", "start_time", "end_time", "total_evaluation_time_seconds")

YAML = """\
task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: "{{{{question}}}}"
doc_to_target: "answer"
generation_kwargs:
  max_new_tokens: 8
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 0
"""


@pytest.fixture
def foreign_task(tmp_path: Path) -> Path:
    """An include path holding one task that is not ours, over a local JSON file."""
    folder = tmp_path / "foreign_tasks"
    folder.mkdir()
    data = tmp_path / "qa.json"
    rows = [{"question": f"What is {i} plus {i}?", "answer": "A" if i % 2 else str(2 * i)} for i in range(4)]
    data.write_text(json.dumps(rows))
    (folder / f"{FOREIGN_TASK}.yaml").write_text(YAML.format(task=FOREIGN_TASK, data=data))
    (folder / "utils.py").write_text("def doc_to_visual(doc):\n    return []\n")
    return folder


def _comparable(results: dict) -> str:
    """The results JSON without what differs between any two runs: timestamps and function addresses."""
    kept = {k: v for k, v in results.items() if k not in VOLATILE}
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x?>", json.dumps(kept, sort_keys=True, indent=1))


# lmms-eval's CLI with a spy on judge construction: every judge (offline or LLM) runs Judge.__init__, and the
# first one built in the process writes the marker file named by the first argument.
JUDGE_SPY = """
import sys
from pathlib import Path


def install(marker):
    from ambi_plugin.judge.base import Judge

    init = Judge.__init__

    def spy(self, *args, **kwargs):
        Path(marker).write_text(type(self).__name__)
        init(self, *args, **kwargs)

    Judge.__init__ = spy


if __name__ == "__main__":
    install(sys.argv.pop(1))
    from lmms_eval.cli.dispatch import main

    sys.argv[0] = "lmms-eval"
    sys.exit(main())
"""


@pytest.fixture
def judge_spy(tmp_path: Path, monkeypatch) -> Path:
    """lmms-eval runs go through the spy launcher; returns the folder where each run's marker may appear."""
    from ambi_plugin.lmms import cli_run

    launcher = tmp_path / "spy_launcher.py"
    launcher.write_text(JUDGE_SPY)
    markers = tmp_path / "judges-built"
    markers.mkdir()
    counter = iter(range(100))
    monkeypatch.setattr(
        cli_run, "lmms_eval_argv", lambda: [sys.executable, str(launcher), str(markers / f"run{next(counter)}")]
    )
    return markers


def test_the_judge_spy_sees_a_judge_being_built(tmp_path: Path, monkeypatch):
    """The spy works: a run with a task of ours builds the judge its results section names (offline here)."""
    import runpy

    import ambi_plugin.judge as judge_pkg
    from ambi_plugin.judge.base import Judge

    (tmp_path / "spy.py").write_text(JUDGE_SPY)
    monkeypatch.setattr(Judge, "__init__", Judge.__init__)  # restored after the test
    monkeypatch.setattr(judge_pkg, "_judge", None)  # no judge built yet in this process
    monkeypatch.delenv("AMBI_JUDGE_BACKEND", raising=False)
    runpy.run_path(str(tmp_path / "spy.py"))["install"](tmp_path / "marker")
    ours = {"results": {"ambi_synth_region": {}}, "configs": {"ambi_synth_region": {"dataset_path": "ambi://synth"}}}
    results_meta.ambi_section(ours)
    assert (tmp_path / "marker").read_text() == "OfflineJudge"


@pytest.mark.e2e
def test_foreign_run_is_identical_with_and_without_our_hooks(
    lmms_eval, judge_spy: Path, foreign_task: Path, tmp_path: Path
):
    """... and builds no judge (no Judge is constructed in the process, with the hooks on)."""
    args = ["--model", "dummy", "--tasks", FOREIGN_TASK, "--include_path", str(foreign_task), "--batch_size", "1"]
    output = tmp_path / "out"  # one output path (and run folder) for both runs, so the paths in the JSON agree
    texts = {}
    for label, env in (("hooks", {HOOKS_ENV: "1"}), ("no hooks", {HOOKS_ENV: "0"})):
        run = lmms_eval(args, output, env=env, run_id="guest")
        assert run.results["results"][FOREIGN_TASK]["exact_match,none"] == 0.5  # the dummy model answers "A"
        texts[label] = _comparable(run.results)
        shutil.rmtree(output)
    assert results_meta.SECTION not in json.loads(texts["hooks"])
    assert texts["hooks"] == texts["no hooks"]
    assert list(judge_spy.iterdir()) == []  # neither run built a judge


def test_hooks_switch(monkeypatch):
    for value, enabled in (("0", False), ("off", False), ("False", False), ("1", True), ("", True)):
        monkeypatch.setenv(HOOKS_ENV, value)
        assert ownership.hooks_enabled() is enabled
    monkeypatch.setenv(HOOKS_ENV, "0")
    assert patches.install_hooks() is False


def test_section_only_for_runs_with_our_tasks():
    foreign = {"results": {"x": {"acc,none": 1.0}}, "configs": {"x": {"dataset_path": "json", "task": "x"}}}
    assert not ownership.run_has_our_tasks(foreign)
    by_data = {"results": {"y": {}}, "configs": {"y": {"dataset_path": "ambi://synth", "task": "y"}}}
    assert ownership.run_has_our_tasks(by_data)
    by_name = {"results": {"ambi_synth_region": {}}, "configs": {"ambi_synth_region": {"dataset_path": "json"}}}
    assert ownership.run_has_our_tasks(by_name)
    group = {"results": {"ambi_synth_all": {}}, "group_subtasks": {"ambi_synth_all": []}, "configs": {}}
    assert ownership.run_has_our_tasks(group)


def test_config_with_our_function_is_ours():
    from ambi_plugin.runtime.hooks import process_results

    assert ownership.config_is_ours({"dataset_path": "json", "process_results": process_results})
    assert not ownership.config_is_ours({"dataset_path": "json", "process_results": lambda doc, res: {}})


def test_lmms_eval_task_config_is_read_by_attribute():
    """lmms-eval's TaskConfig is a dict subclass that keeps its fields as attributes (the dict stays empty and
    falsy): ownership must read the attributes, or per-model scoring settings never reach our hooks."""
    from lmms_eval.api.task import TaskConfig

    from ambi_plugin.runtime.hooks import process_results

    ours = TaskConfig(task="mybench_x", dataset_path="ambi://ambibench", dataset_name="mixed_localization")
    assert not ours and ownership.config_is_ours(ours)
    assert ownership.config_is_ours(TaskConfig(task="mine", dataset_path="json", process_results=process_results))
    assert not ownership.config_is_ours(TaskConfig(task="theirs", dataset_path="lmms-lab/MME"))


def test_process_results_of_a_task_config_of_ours_sees_its_model_kwargs(monkeypatch):
    from types import SimpleNamespace

    from lmms_eval.api.task import ConfigurableTask, TaskConfig

    from ambi_plugin.runtime import task_kwargs

    seen = []

    def fake_process(self, doc, results):
        seen.append(dict(task_kwargs.current()))
        return {}

    _install_over(monkeypatch, ConfigurableTask, "process_results", fake_process, _patch(f"{TASK}.process_results"))
    config = TaskConfig(task="mybench_boxes", dataset_path="ambi://ambibench")
    kwargs = {"box_format": "norm1000"}
    ConfigurableTask.process_results(SimpleNamespace(config=config, lmms_eval_specific_kwargs=kwargs), {}, ["x"])
    theirs = TaskConfig(task="theirs", dataset_path="lmms-lab/MME")
    ConfigurableTask.process_results(SimpleNamespace(config=theirs, lmms_eval_specific_kwargs=kwargs), {}, ["x"])
    assert seen == [kwargs, {}]


# Each wrapper, installed over a stand-in for the lmms-eval method that has a keyword lmms-eval might add.

TASK = "lmms_eval.api.task.ConfigurableTask"


def _patch(target: str):
    """Installs the patch of one lmms-eval method (ambi_plugin.lmms.patches)."""
    return lambda: patches.install(target)


def _install_over(monkeypatch, cls, name: str, fake, patch) -> None:
    monkeypatch.setattr(cls, name, fake)
    patch()
    assert getattr(cls, name) is not fake and getattr(getattr(cls, name), "__ambi_plugin_wrapped__", False)


def test_initialize_tasks_passes_new_keywords_and_positionals(monkeypatch):
    from lmms_eval.tasks import TaskManager

    seen = {}

    def fake(self, include_path=None, include_defaults=True, new_keyword=None):
        seen.update(include_path=include_path, include_defaults=include_defaults, new_keyword=new_keyword)

    _install_over(
        monkeypatch, TaskManager, "initialize_tasks", fake, _patch("lmms_eval.tasks.TaskManager.initialize_tasks")
    )
    TaskManager.initialize_tasks(object(), "/tmp/theirs", False, new_keyword=7)
    assert seen["new_keyword"] == 7 and seen["include_defaults"] is False
    assert seen["include_path"][0] == "/tmp/theirs" and seen["include_path"][1] == include_path.tasks_path()
    seen.clear()
    TaskManager.initialize_tasks(object(), new_keyword="x")
    assert seen["include_path"] == [include_path.tasks_path()] and seen["new_keyword"] == "x"


def test_download_of_a_foreign_task_is_called_exactly_as_lmms_eval_called_it(monkeypatch):
    from types import SimpleNamespace

    from lmms_eval.api.task import ConfigurableTask

    calls = []

    def fake(self, dataset_kwargs=None, new_keyword=None):
        calls.append((dataset_kwargs, new_keyword))

    _install_over(monkeypatch, ConfigurableTask, "download", fake, _patch(f"{TASK}.download"))
    task = SimpleNamespace(DATASET_PATH="json", DATASET_NAME=None, config=SimpleNamespace(task="theirs"))
    ConfigurableTask.download(task, {"data_files": "x.json"}, new_keyword=3)
    assert calls == [({"data_files": "x.json"}, 3)]


def test_process_results_and_save_pass_new_keywords(monkeypatch):
    from types import SimpleNamespace

    from lmms_eval.api.task import ConfigurableTask
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    seen = []

    def fake_process(self, doc, results, full_docs=None, new_keyword=None):
        seen.append(("process", new_keyword))
        return {}

    def fake_save(self, results, samples, datetime_str, new_keyword=None):
        seen.append(("save", new_keyword, dict(results)))

    _install_over(monkeypatch, ConfigurableTask, "process_results", fake_process, _patch(f"{TASK}.process_results"))
    save = "lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated"
    _install_over(monkeypatch, EvaluationTracker, "save_results_aggregated", fake_save, _patch(save))
    task = SimpleNamespace(config=SimpleNamespace(task="theirs", dataset_path="json"))
    ConfigurableTask.process_results(task, {}, ["A"], new_keyword=1)
    foreign = {"results": {"theirs": {}}, "configs": {"theirs": {"dataset_path": "json"}}}
    EvaluationTracker.save_results_aggregated(object(), results=foreign, samples={}, datetime_str="d", new_keyword=2)
    assert seen == [("process", 1), ("save", 2, foreign)]
