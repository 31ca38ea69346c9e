"""IllusionVQA read as the Hub publishes it: train (the 4-shot pool), test and Comprehension's select split, bad
rows skipped and counted, and the Hub cache read offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from illusion_fixtures import illusionvqa_hub_folder
from published_layouts import hub_cache

from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.benchmarks.release import read_report
from ambi_plugin.core.schema import read_records


def _add_split(hub: Path, split: str, rows: list[dict]) -> None:
    import datasets

    test = datasets.load_dataset(str(hub))["test"]
    extra = datasets.Dataset.from_list([{**test[0], **r} for r in rows], features=test.features)
    extra.to_parquet(str(hub / "data" / f"{split}-00000-of-00001.parquet"))


@pytest.fixture
def hubs(tmp_path, shared_data):
    comp = illusionvqa_hub_folder(tmp_path, shared_data, "comprehension", n=12)
    soft = illusionvqa_hub_folder(tmp_path, shared_data, "soft_localization", n=8)
    _add_split(comp, "select", [{"id": 9000 + k} for k in range(3)])
    # dirty test rows: an answer among no option, a single option
    import datasets

    test = datasets.load_dataset(str(comp))["test"]
    bad = [{**test[0], "id": 8001, "answer": "a purple elephant"}, {**test[1], "id": 8002, "options": ["only one"]}]
    dirty = datasets.concatenate_datasets([test, datasets.Dataset.from_list(bad, features=test.features)])
    for old in (comp / "data").glob("test-*.parquet"):
        old.unlink()
    dirty.to_parquet(str(comp / "data" / "test-00000-of-00001.parquet"))
    return comp, soft


def test_splits_and_bad_rows(hubs):
    comp, soft = hubs
    root = IV.materialize_from_hub(str(comp), str(soft))
    report = read_report(root)
    assert report["rows_read"] == 14 + 8  # the test rows of both releases
    kinds = {s["id"]: s["reason"].split(":")[0] for s in report["skipped"]}
    assert kinds == {"8001": "answer not among the options", "8002": "too few options"}
    skipped = [s for s in report["skipped"] if s["id"] == "8001"][0]
    assert skipped["task"] == "ambi_illusionvqa_comprehension"
    assert skipped["also"] == ["ambi_illusionvqa_comprehension_4shot"]
    assert len(read_records(root / "illusionvqa_comprehension.jsonl")) == 12
    assert len(read_records(root / "illusionvqa_comprehension_4shot.jsonl")) == 12
    select = read_records(root / "illusionvqa_comprehension_select.jsonl")
    assert [r["id"] for r in select] == ["9000", "9001", "9002"]
    assert all((root / r["image"]).is_file() for r in select)
    assert any("'select'" in n for n in report["notes"])
    assert report["records"]["ambi_illusionvqa_soft_localization"] == 8


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
    assert len(read_records(root / "illusionvqa_soft_localization_4shot.jsonl")) == 8


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
