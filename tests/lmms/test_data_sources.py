"""Pointing tasks at data: ``ambi://synth`` reads ``$AMBI_SYNTH_DIR`` (a suite from ``ambi synth --out``) when set."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.data.sources import DatasetSpecError, resolve_jsonl, source_root
from ambi_plugin.synth import build_suite


def test_synth_dir_is_read(tmp_path, monkeypatch):
    suite = build_suite(tmp_path / "suite", seed=4, n=2)
    monkeypatch.setenv("AMBI_SYNTH_DIR", str(suite))
    assert source_root("ambi://synth") == suite
    rows = [json.loads(ln) for ln in resolve_jsonl("ambi://synth", "ambi_synth_navon_open").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["navon_open_0000", "navon_open_0001"]
    assert all(json.loads(r["record"])["image"].startswith(str(suite)) for r in rows)


def test_synth_dir_without_a_suite_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_DIR", str(tmp_path))
    with pytest.raises(DatasetSpecError, match=r"AMBI_SYNTH_DIR=.*no synthetic suite.*ambi synth --out"):
        source_root("ambi://synth")


# A task whose release has no rows runs on zero rows (lmms-eval 0.7.3 cannot build a task on an empty dataset).


def _task(dataset_path: str, dataset_name: str):
    from types import SimpleNamespace

    import datasets
    from lmms_eval.api.task import TaskConfig

    config = TaskConfig(task="t", dataset_path=dataset_path, dataset_name=dataset_name, test_split="test")
    data = datasets.DatasetDict({"test": datasets.Dataset.from_list([{"id": "ambi-no-records"}])})
    return SimpleNamespace(config=config, dataset=data, dataset_no_image=data, task_docs=data["test"])


def test_tasks_without_records_make_no_request_and_others_pass_through(monkeypatch):
    from lmms_eval.api.task import ConfigurableTask

    from ambi_plugin.data import sources as D
    from ambi_plugin.lmms.patches import install

    calls = []

    def fake_text(self, doc, new_keyword=None):
        calls.append(("text", doc, new_keyword))
        return "prompt"

    def fake_target(self, doc):
        calls.append(("target", doc))
        return "gold"

    def fake_build(self, *, limit=None, new_keyword=None):
        calls.append(("build", limit, new_keyword))
        self._instances = ["request"]

    for name, fake in (("doc_to_text", fake_text), ("doc_to_target", fake_target), ("build_all_requests", fake_build)):
        monkeypatch.setattr(ConfigurableTask, name, fake)
    for _ in range(2):  # idempotent
        for name in ("doc_to_text", "doc_to_target", "build_all_requests"):
            install(f"lmms_eval.api.task.ConfigurableTask.{name}")
    monkeypatch.setitem(D.NO_RECORDS, ("ambi://illusionbench", "illusionbench_description"), "no golden descriptions")

    theirs = _task("lmms-lab/MME", "")
    assert ConfigurableTask.doc_to_text(theirs, {"q": 1}, new_keyword=3) == "prompt"
    assert ConfigurableTask.doc_to_target(theirs, {"q": 1}) == "gold"
    ConfigurableTask.build_all_requests(theirs, limit=5, new_keyword=2)
    assert calls == [("text", {"q": 1}, 3), ("target", {"q": 1}), ("build", 5, 2)] and theirs._instances == ["request"]

    calls.clear()
    ours = _task("ambi://illusionbench", "illusionbench_description")
    assert D.no_records_reason(ours) == "no golden descriptions"
    assert ConfigurableTask.doc_to_text(ours, {"id": "ambi-no-records"}) == ""
    assert ConfigurableTask.doc_to_target(ours, {"id": "ambi-no-records"}) == ""
    ConfigurableTask.build_all_requests(ours, limit=None)
    assert calls == [] and ours._instances == [] and len(ours.dataset["test"]) == len(ours.task_docs) == 0


def test_tasks_without_records_get_nan_metrics_in_the_results(monkeypatch):
    import math

    from ambi_plugin.data import sources as D

    monkeypatch.setitem(D.NO_RECORDS, ("ambi://illusionbench", "illusionbench_description"), "no golden descriptions")
    metric_list = [{"metric": "desc_score"}, {"metric": "desc_score_classic"}]
    results = {
        "results": {"ambi_illusionbench_description": {"alias": "description"}, "other": {"acc,none": 0.5}},
        "configs": {
            "ambi_illusionbench_description": {"dataset_path": "ambi://illusionbench",
                                               "dataset_name": "illusionbench_description", "metric_list": metric_list},
            "other": {"dataset_path": "ambi://illusionbench", "dataset_name": "illusionbench_tf",
                      "metric_list": [{"metric": "acc"}]},
        },
        "n-samples": {"ambi_illusionbench_description": {"original": 1, "effective": 1}},
    }  # fmt: skip
    assert D.mark_tasks_without_records(results) == ["ambi_illusionbench_description"]
    got = results["results"]["ambi_illusionbench_description"]
    assert math.isnan(got["desc_score,none"]) and math.isnan(got["desc_score_classic,none"])
    assert results["results"]["other"] == {"acc,none": 0.5}
    assert results["n-samples"]["ambi_illusionbench_description"] == {"original": 0, "effective": 0}


def test_a_canonical_copy_without_a_records_file_still_fails_with_the_files_it_has(tmp_path, monkeypatch):
    """Only a converted release (it has a load report) explains a missing file; a copy you made must be complete."""
    (tmp_path / "illusionbench_tf.jsonl").write_text("")
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(tmp_path))
    with pytest.raises(DatasetSpecError, match=r"no records 'illusionbench_description'.*available: illusionbench_tf"):
        resolve_jsonl("ambi://illusionbench", "illusionbench_description", allow_empty=True)
