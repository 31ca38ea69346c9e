"""AmbiBench data: the importer (release rows -> canonical records), the fixtures, the Hub layout and
loader, and the real visual-anagrams rotation illusions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from support.ambibench_fixtures import partial_response

from ambi_plugin.benchmarks import ambibench as AB
from ambi_plugin.benchmarks.ambibench.examples import outputs_by_id
from ambi_plugin.benchmarks.ambibench.importer import (
    ImportErrorAt,
    import_release,
    import_visual_anagrams,
    label_from_prompt,
    positions_from_ground_truth,
    record_from_row,
    task_of,
)
from ambi_plugin.core.answers import gold_response, wrong_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import metric_names, score_item

# core scoring called directly with no judge: the judge layer's default, installed explicitly (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("default_judge_provider")


def _records(folder: Path) -> dict[str, list[dict]]:
    return {p.stem: read_records(p) for p in sorted(Path(folder).glob("*.jsonl"))}


# ----------------------------------------------------------------------------- fixtures


def test_fixtures_cover_every_task_and_metric(ambibench_fixtures_dir):
    recs = _records(ambibench_fixtures_dir)
    assert sorted(recs) == sorted(t.data for t in AB.TASKS)
    for spec in AB.TASKS:
        fields = tuple(spec.breakdown)
        reported = {m for r in recs[spec.data] for m in metric_names(r, by=fields)}
        assert reported == set(spec.metrics), spec.name
        for r in recs[spec.data]:
            assert (r["category"], r["task_type"]) == (spec.category, spec.task_type)
            if r.get("image"):
                with Image.open(Path(ambibench_fixtures_dir) / r["image"]) as im:
                    assert [im.width, im.height] == r["image_size"]


def test_fixture_answers_score_as_intended(ambibench_fixtures_dir):
    a10 = outputs_by_id()
    n_partial = 0
    for data, recs in _records(ambibench_fixtures_dir).items():
        for r in recs:
            assert score_item(r, gold_response(r))["correct"] is True, (data, r["id"])
            assert score_item(r, wrong_response(r))["correct"] is False, (data, r["id"])
            partial = partial_response(r)
            if partial is not None:
                n_partial += 1
                assert score_item(r, partial)["correct"] is False, (data, r["id"], partial)
            if r["id"] in a10:
                output, label = a10[r["id"]]
                assert score_item(r, output)["correct"] is label, (data, r["id"], output)
    assert n_partial >= 20


def test_partial_answers_are_partly_right(ambibench_fixtures_dir):
    recs = _records(ambibench_fixtures_dir)
    hybrid = recs["hybrid_open"][0]
    item = score_item(hybrid, partial_response(hybrid))
    assert item["views"]["near"] is True and item["correct"] is False
    two_boxes = next(r for r in recs["mixed_localization"] if len(r["boxes"]) == 2)
    item = score_item(two_boxes, partial_response(two_boxes))
    assert item["hit"] is False and len(item["pred_boxes"]) == 1
    from ambi_plugin.core.metrics import iou

    one = next(r for r in recs["multiscene_localization"] if len(r["boxes"]) == 1)
    pred = score_item(one, partial_response(one))["pred_boxes"][0]
    assert 0.2 < iou(pred, one["boxes"][0]["box"]) < 0.5


def test_region_items_carry_the_drawn_green_box(ambibench_fixtures_dir):
    for data in ("multiscene_region", "mixed_region"):
        for r in _records(ambibench_fixtures_dir)[data]:
            style = r["region_style"]
            assert style["rgb"] == [0, 255, 0] and style["width"] >= 3
            with Image.open(Path(ambibench_fixtures_dir) / r["image"]) as im:
                x1, y1, x2, y2 = (round(v) for v in r["region"])
                assert im.convert("RGB").getpixel((x1, (y1 + y2) // 2)) == (0, 255, 0)


def test_geometric_has_several_questions_per_image(ambibench_fixtures_dir):
    recs = _records(ambibench_fixtures_dir)["geometric_yes_no"]
    by_image: dict[str, int] = {}
    for r in recs:
        by_image[r.get("image_id", r["id"])] = by_image.get(r.get("image_id", r["id"]), 0) + 1
    assert max(by_image.values()) >= 3


# ----------------------------------------------------------------------------- importer


def test_task_of_names_and_aliases():
    assert task_of("Camouflaged", "Noncamo") == "nonambi_open"
    assert task_of("Multi-view", "") == "multiview_open"
    assert task_of("multi scene", "Local Region Description") == "multiscene_region"
    assert task_of("Mixed", "Ambiguous localization") == "mixed_localization"
    assert task_of("COCO", "Image") == "motion_coco_yes_no"
    assert task_of("Bistable", "") is None  # bistable needs open or choice


def test_ground_truth_forms():
    assert positions_from_ground_truth("hybrid_open", "Far: A panda, Near: A shark") == [["shark"], ["panda"]]
    assert positions_from_ground_truth("hybrid_open", "Near: bird, Far: flower, Very far: tree") == [
        ["bird"], ["flower"], ["tree"]]  # fmt: skip
    assert positions_from_ground_truth("multiscene_open", "desert, sand; skull") == [["desert", "sand"], ["skull"]]
    assert positions_from_ground_truth("camouflaged_open", "Object: 'Insect'") == [["Insect"]]
    assert positions_from_ground_truth("multiview_open", "Upright: cat, Rotated: bat") == [["cat"], ["bat"]]
    choice = {"category": "Bistable", "question_type": "Choice", "choices": ["cat", "dog", "E: None"]}
    assert record_from_row({**choice, "ground_truth": "None"}, "bistable_choice", "c")["answer_indices"] == []
    assert record_from_row({**choice, "ground_truth": "B"}, "bistable_choice", "c")["answer_indices"] == [1]
    assert label_from_prompt('the word "happy", cursive writing') == "happy"
    assert label_from_prompt("an oil painting of a snowy mountain village") == "snowy mountain village"


def _release(tmp_path: Path, rows: list[dict]) -> Path:
    rel = tmp_path / "release"
    (rel / "annotations").mkdir(parents=True)
    (rel / "img").mkdir()
    Image.new("RGB", (200, 100), (255, 255, 255)).save(rel / "img" / "a.png")
    (rel / "annotations" / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rel


def test_importer_writes_every_derived_record(tmp_path):
    rows = [
        {"id": "m1", "category": "Motion", "question_type": "Image", "ground_truth": "Yes", "image": "img/a.png"},
        {"id": "r1", "category": "Mixed", "question_type": "Region", "ground_truth": "duck; rock",
         "image": "img/a.png", "region": [10, 10, 90, 60]},
        {"id": "l1", "category": "Multi-scene", "question_type": "Localization", "image": "img/a.png",
         "object": "face", "boxes": [{"label": "face", "bbox": [10, 10, 50, 40], "type": "combined"}],
         "bbox_format": "xywh"},
    ]  # fmt: skip
    out = import_release(_release(tmp_path, rows), tmp_path / "out")
    recs = _records(out)
    assert json.loads((out / "manifest.json").read_text())["records"] == {
        "mixed_region": 1, "motion_image_yes_no": 1, "motion_static_yes_no": 1, "multiscene_localization": 1}  # fmt: skip
    assert recs["motion_static_yes_no"][0]["answer_bool"] is False and recs["motion_image_yes_no"][0]["answer_bool"]
    loc = recs["multiscene_localization"][0]
    assert loc["boxes"][0]["box"] == [10.0, 10.0, 60.0, 50.0] and loc["breakdown"] == {"group": "combined"}
    assert loc["image_size"] == [200, 100] and loc["prompt_vars"] == {"object": "face"}
    region = recs["mixed_region"][0]
    assert region["image"] != "media/img/a.png" and region["region_style"]["rgb"] == [0, 255, 0]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"id": "x1", "category": "Painting", "ground_truth": "cat", "image": "img/a.png"}, "name no AmbiBench task"),
        (
            {
                "id": "x2",
                "category": "Bistable",
                "question_type": "Choice",
                "choices": "A: cat, B: dog",
                "ground_truth": "A",
                "image": "img/a.png",
            },
            "'None' option",
        ),  # fmt: skip
        (
            {
                "id": "x3",
                "category": "Multi-scene",
                "question_type": "Region",
                "ground_truth": "a; b",
                "image": "img/a.png",
            },
            "field 'region'",
        ),  # fmt: skip
        ({"id": "x4", "category": "Color", "ground_truth": "cat, dog", "image": "img/missing.png"}, "does not exist"),
        (
            {"id": "x5", "category": "Geometric", "ground_truth": "Maybe", "image": "img/a.png", "question": "Is it?"},
            "Yes or No",
        ),  # fmt: skip
        ({"id": "x6", "category": "Hybrid", "ground_truth": "a, b, c, d", "image": "img/a.png"}, "at most 3"),
    ],
)
def test_importer_errors_name_file_line_id_and_field(tmp_path, row, message):
    rows = [
        {"id": "ok", "category": "Camouflaged", "question_type": "Camo", "ground_truth": "fish", "image": "img/a.png"}
    ]
    with pytest.raises(ImportErrorAt) as err:
        import_release(_release(tmp_path, [*rows, row]), tmp_path / "out")
    text = str(err.value)
    assert "rows.jsonl:2" in text and f"record id={row['id']!r}" in text and message in text
    assert not (tmp_path / "out").exists()  # nothing half-written


# ----------------------------------------------------------------------------- Hub layout


def test_hub_layout_round_trip_and_resolution(tmp_path, monkeypatch, ambibench_fixtures_dir):
    import datasets  # noqa: F401 - a hard dependency of the test extras

    from ambi_plugin.data.hub.build import build
    from ambi_plugin.data.sources import resolve_jsonl, source_root

    hub = build("ambibench", str(ambibench_fixtures_dir), tmp_path / "hub").out
    assert (hub / "README.md").read_text().startswith("---\n") and len(list((hub / "data").glob("*/*.parquet"))) == 18

    ds = datasets.load_dataset(str(hub))["test"]  # the folder loads as the Hub repo would
    assert ds.num_rows == sum(len(v) for v in _records(ambibench_fixtures_dir).values())

    monkeypatch.delenv("AMBI_AMBIBENCH_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "no-config.yaml"))
    monkeypatch.setenv("AMBI_AMBIBENCH_HUB", str(hub))
    root = source_root("ambi://ambibench")  # no local copy: the Hub loader
    assert root != Path(ambibench_fixtures_dir)
    original, loaded = _records(ambibench_fixtures_dir), _records(root)
    assert loaded == original
    for rec in loaded["motion_video_open"] + loaded["color_open"]:
        key = "video" if rec.get("video") else "image"
        assert (root / rec[key]).read_bytes() == (Path(ambibench_fixtures_dir) / rec[key]).read_bytes()
    assert resolve_jsonl("ambi://ambibench", "hybrid_open").is_file()
    assert source_root("ambi://ambibench") == root  # cached


def test_hub_unavailable_offline_says_what_to_do(tmp_path, monkeypatch):
    from ambi_plugin.benchmarks.hub import DataUnavailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(DataUnavailableError, match="AMBI_AMBIBENCH_DIR"):
        AB.materialize_from_hub("nobody-here/no-such-ambibench-copy")


# ----------------------------------------------------------------------------- real data


def test_visual_anagrams_import_as_multiview_items(tmp_path, shared_data):
    out = import_visual_anagrams(shared_data / "visual_anagrams", tmp_path / "va")
    recs = read_records(out / "multiview_open.jsonl")
    assert len(recs) == 12
    labels = {r["id"]: [v["labels"][0] for v in r["views"]] for r in recs}
    assert labels["visual_anagrams_00"] == ["giraffe", "penguin"]
    assert labels["visual_anagrams_11"] == ["canyon", "maine coon"]
    assert {r["rotation"] for r in recs} == {"rot180", "rot90cw", "rot90ccw"}
    for r in recs:
        assert r["image_size"] == [512, 512] and (out / r["image"]).is_file()
        assert score_item(r, gold_response(r))["correct"] is True
        assert score_item(r, partial_response(r))["views"] == {"upright": True, "rotated": False}
    canyon = next(r for r in recs if r["id"] == "visual_anagrams_11")
    assert score_item(canyon, "a canyon, a cat")["correct"] is True  # maine coon is a cat (lexicon)


def test_cli_import_matches_the_fixtures(tmp_path, capsys, ambibench_fixtures_dir):
    from support.ambibench_fixtures import build_release

    from ambi_plugin.cli import main

    release = build_release(tmp_path / "release")
    code = main(["import", "ambibench", "--jsonl", str(release / "annotations"), "--images", str(release),
                 "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 0 and "wrote 65 records" in capsys.readouterr().out
    assert _records(tmp_path / "out") == _records(ambibench_fixtures_dir)
