"""ambi build over every registered benchmark: checked, typed, loadable as users load it, read back by the tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BENCHMARKS
from PIL import Image

from ambi_plugin.core.schema import read_records


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_built_folder_validates_and_loads_from_the_push_folder(bench, data_root, tmp_path):
    import datasets

    from ambi_plugin.data.hub import validate_folder, write_push_folder

    built = data_root / bench
    assert validate_folder(built) == []
    info = json.loads((built / "build_info.json").read_text())
    files = write_push_folder(built, tmp_path / "push")
    assert sorted(str(p.relative_to(tmp_path / "push")) for p in (tmp_path / "push").rglob("*") if p.is_file()) == files
    dsd = datasets.load_dataset(str(tmp_path / "push"))  # the default config: every row
    totals: dict[str, int] = {}
    for splits in info["counts"].values():
        for split, n in splits.items():
            totals[split] = totals.get(split, 0) + n
    assert {s: d.num_rows for s, d in dsd.items()} == totals and sum(totals.values()) > 0
    first = dsd[sorted(dsd)[0]]
    assert first.features["category"].names == info["categories"]
    row = first[0]
    rec = json.loads(row["record"])
    assert row["id"] == str(rec["id"]) and first.features["category"].int2str(row["category"]) == rec["category"]
    if row["images"]:
        assert isinstance(row["images"][0], Image.Image) and row["images"][0].size[0] > 0
    for config, splits in sorted(info["counts"].items()):  # every config listed in the card loads
        one = datasets.load_dataset(str(tmp_path / "push"), config)
        assert {s: one[s].num_rows for s in one} == splits
        assert all(set(one[s]["records"]) == {config} for s in one)


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_card_metadata_is_valid_and_complete(bench, data_root):
    from huggingface_hub import DatasetCard, DatasetCardData

    card = DatasetCard((data_root / bench / "README.md").read_text())
    data = card.data
    assert isinstance(data, DatasetCardData) and data.license and data.task_categories
    info = json.loads((data_root / bench / "build_info.json").read_text())
    names = {c["config_name"] for c in data.configs}
    assert names == {*info["counts"], "all"}
    assert [c for c in data.configs if c.get("default")] == [c for c in data.configs if c["config_name"] == "all"]
    features = {f["name"] for f in data.dataset_info[0]["features"]}
    assert {"images", "category", "options", "boxes", "views", "record", "shown_image"} <= features
    assert "## Citation" in card.text and "## Human baseline" in card.text
    DatasetCardData(**data.to_dict())  # the metadata round-trips through huggingface_hub's class


def test_splits_follow_the_release(data_root):
    """VIA-Bench's public piece is the challenge's validation split; RCID rows keep the split of the release they
    came from (the Hub layout's ``dev`` folder is ``validation``), whatever records file they are in."""
    import datasets

    via = json.loads((data_root / "viabench" / "build_info.json").read_text())
    assert {s for splits in via["counts"].values() for s in splits} == {"validation"}
    assert via["counts"]["viabench_val"] == {"validation": 249}
    assert via["counts"]["viabench_va"] == {"validation": 3}
    rcid = json.loads((data_root / "rcid" / "build_info.json").read_text())
    assert rcid["records_files"]["rcid_stripe_pixel"] == {"config": "rcid_stripe_pixel",
                                                          "rows": {"test": 5, "validation": 2}}  # fmt: skip
    dsd = datasets.load_dataset(str(data_root / "rcid"), "rcid_stripe_pixel")
    for split, ids in (("validation", {"validation_dev_s1", "validation_dev_s5"}), ("test", None)):
        recs = [json.loads(r) for r in dsd[split]["record"]]
        assert {r["split"] for r in recs} == {split}
        assert ids is None or {r["id"] for r in recs} == ids


def test_records_files_without_rows_get_no_config(data_root, tmp_path):
    """RCID's fixture has no filter images: its filter records files are empty. They are named in build_info and
    the card's table, never listed as configs (``load_dataset`` refuses a config without data), and validate
    reports a card that lists one."""
    import datasets
    import yaml

    from ambi_plugin.data.hub import validate_folder

    info = json.loads((data_root / "rcid" / "build_info.json").read_text())
    assert {"rcid_filter_pixel", "rcid_filter_human", "rcid_filter_neutral"} <= set(info["empty_records"])
    assert not set(info["empty_records"]) & set(info["counts"])
    text = (data_root / "rcid" / "README.md").read_text()
    assert "`rcid_filter_human`" in text.split("Records files with no rows")[1]
    with pytest.raises(ValueError, match="rcid_filter_human"):
        datasets.load_dataset(str(data_root / "rcid"), "rcid_filter_human")  # not a config: says which exist
    # a card that lists a config without rows (as the build did before): validate names it
    import shutil

    folder = tmp_path / "rcid"
    shutil.copytree(data_root / "rcid", folder)
    head, _, body = (folder / "README.md").read_text().partition("\n---\n")
    meta = yaml.safe_load(head.removeprefix("---\n"))
    meta["configs"].append({"config_name": "rcid_filter_human",
                            "data_files": [{"split": "test", "path": "data/rcid_filter_human/test-*.parquet"}]})  # fmt: skip
    (folder / "README.md").write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{body}")
    problems = validate_folder(folder)
    assert len(problems) == 1 and "'rcid_filter_human'" in problems[0] and "has no rows" in problems[0], problems


def test_card_lists_the_tasks_reading_each_config(data_root):
    text = (data_root / "ambibench" / "README.md").read_text()
    assert "| `color_open` | test 4 | `ambibench_color_open` |" in text
    assert "`ambi_illusionvqa_soft_localization_4shot_cot`" in (data_root / "illusionvqa" / "README.md").read_text()


def test_protocol_material_is_recorded(data_root):
    """Region images carry the green box with its style; shuffled options keep their seed and released order;
    IllusionVQA's soft-localization images are shown grayscale."""
    import datasets

    ab = datasets.load_dataset(str(data_root / "ambibench"), "mixed_region")["test"]
    assert all(s["rgb"] == [0, 255, 0] and s["width"] >= 3 for s in ab["region_style"])
    im = ab[0]["images"][0].convert("RGB")
    x1, y1, _, _ = (round(v) for v in ab[0]["region"])
    assert im.getpixel((x1, y1)) == (0, 255, 0)
    ib = datasets.load_dataset(str(data_root / "illusionbench"), "illusionbench_mc")["test"]
    for row in ib:
        assert row["shuffle_seed"] == 0 and sorted(row["source_options"]) == sorted(row["options"])
        assert row["options"][row["answer_index"]] == row["source_options"][row["source_answer_index"]]
    iv = datasets.load_dataset(str(data_root / "illusionvqa"), "illusionvqa_soft_localization")["test"]
    import numpy as np

    shown = np.asarray(iv[0]["shown_image"].convert("RGB")).astype(int)
    assert iv[0]["preprocess"] == {"max_side": 512, "grayscale": True}
    assert (shown[..., 0] == shown[..., 1]).all() and (shown[..., 1] == shown[..., 2]).all()  # gray
    assert not (
        np.asarray(iv[0]["images"][0].convert("RGB"))[..., 0] == np.asarray(iv[0]["images"][0].convert("RGB"))[..., 1]
    ).all()
    synth = datasets.load_dataset(str(data_root / "ambi_synth"), "ambi_synth_region")["test"]
    assert synth[0]["region_style"]["rgb"] == [0, 255, 0]


def test_tasks_read_the_built_copy_through_the_data_root(data_root, sources, monkeypatch):
    from ambi_plugin.data.sources import source_root

    monkeypatch.setenv("AMBI_DATA_ROOT", str(data_root))
    monkeypatch.delenv("AMBI_AMBIBENCH_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", str(data_root / "no-config.yaml"))
    for bench in ("VIABENCH", "RCID"):
        monkeypatch.delenv(f"AMBI_{bench}_DIR", raising=False)
    for bench in ("illusionbench", "ambi_synth", "ambibench", "rcid", "viabench"):
        ambi = "synth" if bench == "ambi_synth" else bench
        root = source_root(f"ambi://{ambi}")
        manifest = json.loads((root / "manifest.json").read_text())
        assert manifest["built_copy"] == str(data_root / bench)
        info = json.loads((data_root / bench / "build_info.json").read_text())
        for name, placed in info["records_files"].items():
            recs = read_records(root / f"{name}.jsonl")
            assert len(recs) == sum(placed["rows"].values())  # every split; an empty records file comes back empty
            for rec in recs:
                for img in [rec["image"]] if isinstance(rec.get("image"), str) else rec.get("image") or []:
                    assert not Path(img).is_absolute() and (root / img).is_file()
    # a configured local copy still wins over the data root
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(sources["illusionbench"]))
    assert "built_copy" not in json.loads((source_root("ambi://illusionbench") / "manifest.json").read_text())


def test_ambi_data_shows_the_built_copies(data_root, monkeypatch):
    from ambi_plugin.data.status import report_lines

    monkeypatch.setenv("AMBI_DATA_ROOT", str(data_root))
    monkeypatch.delenv("AMBI_AMBIBENCH_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", str(data_root / "no-config.yaml"))
    lines = report_lines()
    assert f"  built copy (data root): {data_root / 'illusionbench'}" in lines
    assert any(ln.startswith("ambibench: available") for ln in lines)


def test_the_config_files_data_root_finds_the_built_copies(data_root, tmp_path, monkeypatch):
    """``data_root:`` in the ambi config file is the same setting as ``$AMBI_DATA_ROOT``; the variable wins."""
    from ambi_plugin.data.hub.built import built_copy
    from ambi_plugin.data.hub.built import data_root as configured_root
    from ambi_plugin.data.sources import source_root

    config = tmp_path / "config.yaml"
    config.write_text(f"data_root: {data_root}\n")
    monkeypatch.setenv("AMBI_CONFIG", str(config))
    monkeypatch.delenv("AMBI_DATA_ROOT", raising=False)
    monkeypatch.delenv("AMBI_ILLUSIONBENCH_DIR", raising=False)
    assert configured_root() == data_root and built_copy("synth") == data_root / "ambi_synth"
    manifest = json.loads((source_root("ambi://illusionbench") / "manifest.json").read_text())
    assert manifest["built_copy"] == str(data_root / "illusionbench")
    monkeypatch.setenv("AMBI_DATA_ROOT", str(tmp_path / "elsewhere"))
    assert configured_root() == tmp_path / "elsewhere" and built_copy("illusionbench") is None
