"""The IllusionBench and IllusionVQA task YAMLs: generated, up to date, and valid in lmms-eval on fixture data."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from illusion_fixtures import illusionbench_copy, illusionvqa_copy

from ambi_plugin.paths import tasks_dir
from ambi_plugin.runtime.taskindex import index

FOLDERS = ("ambi_illusionbench", "ambi_illusionvqa")


def _generator(folder: str):
    path = tasks_dir() / folder / "_generate_configs.py"
    spec = importlib.util.spec_from_file_location(f"gen_{folder}", path)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ among the shipped YAMLs
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


@pytest.mark.parametrize("folder", FOLDERS)
def test_checked_in_yamls_are_the_generators_output(folder, tmp_path, monkeypatch):
    gen = _generator(folder)
    monkeypatch.setattr(gen, "HERE", tmp_path)
    gen.main()
    made = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.yaml")}
    shipped = {p.name: p.read_text(encoding="utf-8") for p in (tasks_dir() / folder).glob("*.yaml")}
    assert made and made == shipped, f"run: python task_yamls/{folder}/_generate_configs.py"


def test_names_and_groups():
    idx = index()
    ours = {n for n, i in idx.items() if i.path.parent.name in FOLDERS}
    assert {"ambi_illusionbench_all", "ambi_illusionbench_llm_all", "ambi_illusionvqa_all"} <= ours
    assert idx["ambi_illusionbench_all"].members == ["ambi_illusionbench_tf", "ambi_illusionbench_mc", "ambi_illusionbench_description"]  # fmt: skip
    assert len(idx["ambi_illusionvqa_all"].members) == 5
    assert all(n.startswith(("ambi_illusionbench", "ambi_illusionvqa")) for n in ours)
    mc = idx["ambi_illusionbench_mc"].config
    assert mc["metadata"]["shuffle_seed"] == 0 and mc["lmms_eval_specific_kwargs"]["default"]["option_case"] == "lower"
    soft = idx["ambi_illusionvqa_soft_localization"].config["lmms_eval_specific_kwargs"]["default"]
    assert soft["preprocess"] == {"max_side": 512, "grayscale": True}


def test_every_task_builds_and_validates_in_lmms_eval(tmp_path, shared_data, monkeypatch):
    from ambi_plugin.lmms.patches import install_hooks

    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(illusionbench_copy(tmp_path)))
    monkeypatch.setenv("AMBI_ILLUSIONVQA_DIR", str(illusionvqa_copy(tmp_path, shared_data)))
    install_hooks()
    from lmms_eval.tasks import TaskManager, get_task_dict

    from ambi_plugin.lmms.validate import _check_loaded

    tm = TaskManager()
    names = sorted(n for n, i in index().items() if i.kind == "task" and i.path.parent.name in FOLDERS)
    assert len(names) == 11
    problems = []
    for name in names:
        task = get_task_dict([name], tm)[name]
        problems += _check_loaded(name, task)
        assert len(task.test_docs()) in (15, 30, 435, 1000), name
    assert problems == []


def test_missing_data_is_skipped_with_the_reason_not_reported(monkeypatch, tmp_path):
    from ambi_plugin.benchmarks import hub

    monkeypatch.delenv("AMBI_ILLUSIONVQA_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hub, "_FAILED", {})
    from ambi_plugin.lmms import validate

    monkeypatch.setattr(validate, "index", lambda: {k: v for k, v in index().items() if k == "ambi_illusionvqa_soft_localization"})  # fmt: skip
    monkeypatch.setattr(validate, "name_collisions", lambda: [])
    skipped: list[str] = []
    assert validate.validate_tasks(load=True, skipped=skipped) == []
    assert len(skipped) == 1 and "AMBI_ILLUSIONVQA_DIR" in skipped[0] and "csebuetnlp" in skipped[0]


def test_generators_live_next_to_their_yamls():
    for folder in FOLDERS:
        assert (Path(tasks_dir()) / folder / "_generate_configs.py").is_file()
