"""IllusionVQA read as the Hub publishes it: train (the 4-shot pool), test and Comprehension's select split, bad
rows of every split skipped and counted, the Hub cache read offline, and the tasks through the real lmms-eval CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from illusion_fixtures import illusionvqa_hub_folder
from published_layouts import hub_cache

from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.benchmarks.release import UNASSIGNED, read_report
from ambi_plugin.core.answers import gold_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.reports.results import task_metrics


def _add_split(hub: Path, split: str, rows: list[dict]) -> None:
    import datasets

    test = datasets.load_dataset(str(hub))["test"]
    extra = datasets.Dataset.from_list([{**test[0], **r} for r in rows], features=test.features)
    extra.to_parquet(str(hub / "data" / f"{split}-00000-of-00001.parquet"))


def _append(hub: Path, split: str, rows: list[dict]) -> None:
    """Rows added to a split of a Hub-laid-out folder (each row: the split's first row with some fields changed)."""
    import datasets

    ds = datasets.load_dataset(str(hub))[split]
    more = datasets.Dataset.from_list([{**ds[0], **r} for r in rows], features=ds.features)
    merged = datasets.concatenate_datasets([ds, more])
    for old in (hub / "data").glob(f"{split}-*.parquet"):
        old.unlink()
    merged.to_parquet(str(hub / "data" / f"{split}-00000-of-00001.parquet"))


@pytest.fixture
def hubs(tmp_path, shared_data):
    comp = illusionvqa_hub_folder(tmp_path, shared_data, "comprehension", n=12)
    soft = illusionvqa_hub_folder(tmp_path, shared_data, "soft_localization", n=8)
    _add_split(comp, "select", [{"id": 9000 + k} for k in range(3)])
    # dirty rows: test (an answer among no option, a single option), select and train (an answer among no option)
    import datasets

    test = datasets.load_dataset(str(comp))["test"]
    _append(comp, "test", [{**test[0], "id": 8001, "answer": "a purple elephant"},
                           {**test[1], "id": 8002, "options": ["only one"]}])  # fmt: skip
    _append(comp, "select", [{"id": 9100, "answer": "a purple elephant"}])
    _append(comp, "train", [{"id": 4, "answer": "a purple elephant"}])  # four good examples remain
    # soft-localization: one of its four examples is bad, so no 4-shot records (its tasks run on zero rows)
    shots = datasets.load_dataset(str(soft))["train"].to_list()
    shots[2]["answer"] = "The middle object"
    for old in (soft / "data").glob("train-*.parquet"):
        old.unlink()
    features = datasets.load_dataset(str(soft))["test"].features
    datasets.Dataset.from_list(shots, features=features).to_parquet(str(soft / "data" / "train-00000-of-00001.parquet"))
    return comp, soft


def test_splits_and_bad_rows(hubs):
    comp, soft = hubs
    root = IV.materialize_from_hub(str(comp), str(soft))
    report = read_report(root)
    # every row of every split is read: test 14 + 8, train 5 + 4, select 4
    assert report["rows_read"] == 14 + 8 + 5 + 4 + 4
    kinds = {s["id"]: s["reason"].split(":")[0] for s in report["skipped"]}
    assert kinds == {
        "8001": "answer not among the options",
        "8002": "too few options",
        "select:9100": "answer not among the options",
        "train:4": "answer not among the options",
        "train:2": "answer not among the options",
    }
    by_id = {s["id"]: s for s in report["skipped"]}
    assert by_id["8001"]["task"] == "ambi_illusionvqa_comprehension"
    assert by_id["8001"]["also"] == ["ambi_illusionvqa_comprehension_4shot"]
    assert by_id["train:4"]["task"] == "ambi_illusionvqa_comprehension_4shot"
    assert by_id["train:2"]["task"] == "ambi_illusionvqa_soft_localization_4shot"
    assert by_id["train:2"]["also"] == ["ambi_illusionvqa_soft_localization_4shot_cot"]
    assert by_id["select:9100"]["task"] == UNASSIGNED  # no task reads the select split
    assert len(read_records(root / "illusionvqa_comprehension.jsonl")) == 12
    assert len(read_records(root / "illusionvqa_comprehension_4shot.jsonl")) == 12
    select = read_records(root / "illusionvqa_comprehension_select.jsonl")
    assert [r["id"] for r in select] == ["9000", "9001", "9002"]
    assert all((root / r["image"]).is_file() for r in select)
    assert any("'select'" in n for n in report["notes"])
    assert report["records"]["ambi_illusionvqa_soft_localization"] == 8
    assert not (root / "illusionvqa_soft_localization_4shot.jsonl").exists()
    assert "few-shot ('train') split is not usable" in report["absent"]["illusionvqa_soft_localization_4shot"]


@pytest.mark.e2e
def test_the_hub_layout_runs_through_lmms_eval(hubs, tmp_path, offline_env):
    """AMBI_ILLUSIONVQA_DIR at the two repos as downloaded: every task runs; gold answers score 1; the 4-shot
    soft-localization tasks (no usable examples) report NaN with the reason; skipped rows are counted per task."""
    comp, soft = hubs
    local = tmp_path / "illusionvqa"
    local.mkdir()
    (local / "illusionVQA-Comprehension").symlink_to(comp, target_is_directory=True)
    (local / "illusionVQA-Soft-Localization").symlink_to(soft, target_is_directory=True)
    root = IV.materialize_local(local)
    answers = []
    for name in ("illusionvqa_comprehension", "illusionvqa_comprehension_4shot", "illusionvqa_soft_localization"):
        answers += [{"task": f"ambi_{name}", "id": r["id"], "response": gold_response(r)}
                    for r in read_records(root / f"{name}.jsonl")]  # fmt: skip
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_ILLUSIONVQA_DIR": str(local)}
    run = run_lmms_eval(replay_args(preds, "ambi_illusionvqa_all"), output=tmp_path / "out", env=env, timeout=900)
    assert run.results is not None, run.tail()
    got = task_metrics(run.results)
    assert sorted(got) == sorted(t for task in IV.TASKS for t in IV.harness_tasks(task))
    for name in ("ambi_illusionvqa_comprehension", "ambi_illusionvqa_comprehension_4shot",
                 "ambi_illusionvqa_soft_localization"):  # fmt: skip
        assert got[name]["acc"] == 1.0 and got[name]["unparsed_rate"] == 0.0, name
    for name in ("ambi_illusionvqa_soft_localization_4shot", "ambi_illusionvqa_soft_localization_4shot_cot"):
        assert got[name] and all(math.isnan(v) for v in got[name].values()), name
    data = run.results["ambi_plugin"]["data"]
    assert data["ambi_illusionvqa_comprehension"]["skipped_by_reason"] == {
        "answer not among the options": 1,
        "too few options": 1,
    }
    assert data["ambi_illusionvqa_comprehension_4shot"]["skipped"] == 3  # two test rows, one example
    assert "not usable" in data["ambi_illusionvqa_soft_localization_4shot_cot"]["no_records"]
    assert data["ambi_illusionvqa_soft_localization_4shot"]["skipped"] == 1


def test_hub_cache_offline(hubs, tmp_path, monkeypatch):
    comp, soft = hubs
    import huggingface_hub.constants as C

    cache = hub_cache(tmp_path / "hf", IV.HUB_COMPREHENSION, comp)
    hub_cache(cache, IV.HUB_SOFT_LOCALIZATION, soft)
    monkeypatch.setattr(C, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    for var in ("AMBI_ILLUSIONVQA_COMPREHENSION_HUB", "AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB"):
        monkeypatch.delenv(var, raising=False)
    root = IV.materialize_from_hub()
    report = read_report(root)
    assert f"hf://datasets/{IV.HUB_COMPREHENSION}" in report["source"]
    assert len(read_records(root / "illusionvqa_comprehension.jsonl")) == 12
    assert len(read_records(root / "illusionvqa_comprehension_4shot.jsonl")) == 12
    assert len(read_records(root / "illusionvqa_soft_localization.jsonl")) == 8


def test_local_copy_of_the_two_downloaded_repos(hubs, tmp_path):
    comp, soft = hubs
    local = tmp_path / "illusionvqa"
    local.mkdir()
    (local / "illusionVQA-Comprehension").symlink_to(comp, target_is_directory=True)
    (local / "illusionVQA-Soft-Localization").symlink_to(soft, target_is_directory=True)
    root = IV.materialize_local(local)
    assert len(read_records(root / "illusionvqa_comprehension.jsonl")) == 12
    assert IV.materialize_local(root) == root  # a canonical folder is used as it is
    with pytest.raises(FileNotFoundError, match="illusionVQA-Comprehension"):
        IV.materialize_local(tmp_path / "illusionvqa" / "illusionVQA-Comprehension" / "data")
