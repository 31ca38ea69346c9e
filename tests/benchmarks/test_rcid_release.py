"""RCID as downloaded: class names from the dataset's own ClassLabel (unknown ones counted, mapped only by the
user), the illusion type only from folders inside the download, AMBI_RCID_DIR at the Hub folder or its zip, data
built with the authors' construction code (each item's own question and option order, Top/Bottom stripes, human
answers from a file, pixel-only items), the zero-shot note and the filter tasks' reason."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from rcid_fixtures import N_BAD, N_GOOD, hub_layout

from ambi_plugin.benchmarks import rcid as R
from ambi_plugin.benchmarks.rcid.hub import NOTE_FILTER, NOTE_ZERO_SHOT
from ambi_plugin.benchmarks.release import read_report
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import score_item


def _png(path: Path, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (20, 28, 3), dtype=np.uint8)).save(path)


def hub_as_published(root: Path) -> Path:
    """The Hub copy's layout: ``test/<class>/<file>``, 4 classes sorted with class 0 look_like_different, no type;
    ``root`` sits below a folder called ``contrast`` (a user's folder, not part of the download)."""
    rows = [("look_like_different", 3), ("look_like_same", 1), ("same", 2), ("zz_unlisted", 2)]
    k = 0
    for cls, n in rows:
        for _ in range(n):
            _png(root / "test" / cls / f"{k}.png", k)
            k += 1
    (root / "README.md").write_text("---\nlicense: mit\n---\n# RCID (test fixture)\n")
    return root


def test_class_names_are_the_datasets_own_and_the_type_comes_from_inside_the_download(tmp_path, monkeypatch):
    for var in ("AMBI_RCID_TYPE", "AMBI_RCID_CLASS_MAP", "AMBI_RCID_HUB"):
        monkeypatch.delenv(var, raising=False)
    copy = hub_as_published(tmp_path / "contrast" / "RCID")
    root = R.materialize_from_hub(str(copy))
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["classes"] == {"test": ["look_like_different", "look_like_same", "same", "zz_unlisted"]}
    report = read_report(root)
    kinds = report["skipped_by_reason"]
    assert kinds == {"no illusion type": 6, "unknown class": 2}  # never "contrast" from the folder above the copy
    assert report["identity"]["adds_up"] and report["rows_read"] == 8 and report["items_loaded"] == 0
    assert any("'zz_unlisted' x2" in n and "AMBI_RCID_CLASS_MAP" in n for n in report["notes"])
    assert sum("carry no illusion type" in n for n in report["notes"]) == 1  # said once
    assert "AMBI_RCID_TYPE" in report["absent"]["rcid_contrast_pixel"]
    assert report["absent"]["rcid_filter_pixel"] == NOTE_FILTER

    # the user knows the copy is one type and what the unlisted class means: mapped, never guessed by us
    monkeypatch.setenv("AMBI_RCID_TYPE", "contrast")
    monkeypatch.setenv("AMBI_RCID_CLASS_MAP", "zz_unlisted=different")
    root = R.materialize_from_hub(str(copy))
    recs = read_records(root / "rcid_contrast_pixel.jsonl")
    assert len(recs) == 8 and sum(not r["is_illusion"] for r in recs) == 4
    monkeypatch.setenv("AMBI_RCID_CLASS_MAP", "zz_unlisted=darker")
    with pytest.raises(ValueError, match="AMBI_RCID_CLASS_MAP: 'zz_unlisted=darker'"):
        R.materialize_from_hub(str(copy))


def test_ambi_rcid_dir_reads_the_downloaded_folder_and_its_zip(tmp_path, monkeypatch):
    from ambi_plugin.data.sources import source_root

    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    for var in ("AMBI_RCID_TYPE", "AMBI_RCID_CLASS_MAP"):
        monkeypatch.delenv(var, raising=False)
    copy = hub_layout(tmp_path / "RCID")
    monkeypatch.setenv("AMBI_RCID_DIR", str(copy))
    root = source_root("ambi://rcid")
    assert root == R.materialize_from_hub(str(copy))  # converted once
    assert read_report(root)["identity"]["items_loaded"] == N_GOOD
    archive = tmp_path / "RCID.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in copy.rglob("*"):
            if p.is_file():
                zf.write(p, Path("RCID") / p.relative_to(copy))
    monkeypatch.setenv("AMBI_RCID_DIR", str(archive))
    zipped = source_root("ambi://rcid")
    report = read_report(zipped)
    assert report["items_loaded"] == N_GOOD and report["identity"]["skipped"] == N_BAD
    assert len(read_records(zipped / "rcid_stripe_pixel.jsonl")) == 5


def authors_copy(root: Path) -> tuple[Path, Path]:
    """Data as the authors' construction code writes it, plus a human-answer file for some contrast images."""
    root.mkdir(parents=True)
    orders = [
        ["left is darker", "They are exact same", "right is darker"],
        ["They are exact same", "right is darker", "left is darker"],
        ["right is darker", "left is darker", "They are exact same"],
        ["left is darker", "right is darker", "They are exact same"],
        ["They are exact same", "left is darker", "right is darker"],
        ["right is darker", "They are exact same", "left is darker"],
    ]
    contrast = []
    for k, opts in enumerate(orders):
        _png(root / "contrast_images" / f"{k}.png", k)
        block = "\n".join(f"{lab}. {o}" for lab, o in zip("ABC", opts))
        contrast.append(
            {
                "image_id": f"{k}.png",
                "question": f"How do the colors of the wall on the left and the wall on the right compare ({k})?"
                f"\n\nHere are the options you can choose from:\n{block}",
                "correct_answer": "ABC"[opts.index("They are exact same")],
            }
        )
    contrast.append(dict(contrast[0]))  # repeated identically
    contrast.append({**contrast[1], "image_id": "99.png"})  # an image that is not there
    (root / "questions.json").write_text(json.dumps(contrast, indent=4))
    stripe = []
    for k, direction in enumerate(["horizontal", "vertical", "vertical", "diagonal_1"]):
        name = f"image_{k}_{direction}.png"
        _png(root / f"generated_images_{direction}" / name, 50 + k)
        sides = {"horizontal": ("Left", "Right"), "vertical": ("Top", "Bottom"),
                 "diagonal_1": ("Top-left", "Bottom-right")}[direction]  # fmt: skip
        opts = [f"{sides[1]} side is darker", "They are about the same", f"{sides[0]} side is darker"]
        stripe.append({"image_name": name, "question": "How do the stripe colors and brightness compare?",
                       "options": [f"{r}. {o}" for r, o in zip(("I", "II", "III"), opts)], "result": "II",
                       "num_bars": 12 if direction == "vertical" else 6})  # fmt: skip
    (root / "train_results.json").write_text(json.dumps(stripe, indent=4))
    human = tmp = root.parent / "human.jsonl"
    # people: image 0 sees the left darker (A), image 1 either side (two options), image 2 "left is darker" as text,
    # image 3 B, image 5 A; image 4 has no human answer (pixel-only)
    tmp.write_text("".join(json.dumps(r) + "\n" for r in [
        {"image": "0.png", "human": "A"}, {"image": "1.png", "human": ["B", "C"]},
        {"image": "2.png", "human": "left is darker"}, {"image": "3.png", "human": "B"},
        {"image": "5.png", "human": "A"}]))  # fmt: skip
    return root, human


def test_data_built_with_the_authors_code(tmp_path, monkeypatch):
    from ambi_plugin.data.sources import source_root

    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    copy, human = authors_copy(tmp_path / "built")
    monkeypatch.setenv("AMBI_RCID_DIR", str(copy))
    monkeypatch.setenv("AMBI_RCID_HUMAN", str(human))
    root = source_root("ambi://rcid")
    report = read_report(root)
    assert report["identity"] == {"rows_read": 12, "items_loaded": 10, "skipped": 1,
                                  "skipped_by_reason": {"missing image": 1}, "merged_duplicates": 1,
                                  "adds_up": True}  # fmt: skip
    pixel = {r["image_name"]: r for r in read_records(root / "rcid_contrast_pixel.jsonl")}
    assert len(pixel) == 6
    # each item's own question and option order, lettered A/B/C
    assert pixel["1.png"]["options"] == ["They are exact same", "right is darker", "left is darker"]
    assert pixel["1.png"]["option_style"] == "letter" and pixel["1.png"]["answer_index"] == 0
    assert pixel["1.png"]["question"].startswith("Based on pixel values, how do the colors of the wall")
    assert "Here are the options" not in pixel["1.png"]["question"]
    # the parser reads a letter or the option's text against lettered options
    rec = pixel["2.png"]  # C is "They are exact same"
    assert score_item(rec, "C")["correct"] and score_item(rec, "They are exact same")["correct"]
    assert not score_item(rec, "A")["correct"]
    human_recs = {r["image_name"]: r for r in read_records(root / "rcid_contrast_human.jsonl")}
    assert set(human_recs) == {"0.png", "1.png", "2.png", "3.png", "5.png"}  # 4.png has no human answer: pixel-only
    assert human_recs["2.png"]["human_answer_index"] == 1  # "left is darker" is B in image 2's order
    assert human_recs["1.png"]["human_answer_indices"] == [1, 2]
    assert any("pixel-only" in n for n in report["notes"])
    # few-shot human-like examples: only items whose human answer is a single option (never image 1)
    hl = read_records(root / "rcid_contrast_fewshot_hl.jsonl")
    assert hl and all("contrast_1" not in r["fewshot_ids"] for r in hl)
    # stripes: Top/Bottom where the authors' code says so (vertical), the direction from the file name
    stripes = {r["image_name"]: r for r in read_records(root / "rcid_stripe_pixel.jsonl")}
    assert stripes["image_1_vertical.png"]["options"] == [
        "Bottom side is darker", "They are about the same", "Top side is darker"]  # fmt: skip
    assert stripes["image_1_vertical.png"]["option_style"] == "roman"
    assert stripes["image_1_vertical.png"]["breakdown"]["direction"] == "vertical"
    assert stripes["image_3_diagonal_1.png"]["breakdown"]["direction"] == "diagonal"
    assert score_item(stripes["image_0_horizontal.png"], "II")["correct"]
    assert not (root / "rcid_stripe_human.jsonl").read_text().strip()  # no human answers for stripes
    assert "human-answer file" in report["absent"]["rcid_stripe_human"]


def test_zero_shot_note_and_filter_reason_reach_the_results_json(tmp_path, monkeypatch):
    from ambi_plugin.data import sources as D

    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("AMBI_RCID_DIR", str(hub_layout(tmp_path / "RCID")))
    D.resolve_jsonl("ambi://rcid", "rcid_contrast_pixel")
    D.resolve_jsonl("ambi://rcid", "rcid_filter_pixel", allow_empty=True)
    configs = {
        "ambi_rcid_contrast_pixel": {"dataset_path": "ambi://rcid", "dataset_name": "rcid_contrast_pixel"},
        "ambi_rcid_filter_pixel": {"dataset_path": "ambi://rcid", "dataset_name": "rcid_filter_pixel"},
    }
    data = D.data_summary(configs)
    assert data["ambi_rcid_contrast_pixel"]["benchmark_notes"] == [NOTE_ZERO_SHOT]
    assert (
        data["ambi_rcid_filter_pixel"]["no_records"] == NOTE_FILTER and data["ambi_rcid_filter_pixel"]["records"] == 0
    )
    from ambi_plugin.benchmarks.rcid.tables import LAYOUTS as RCID

    assert "zero-shot" in next(lay for lay in RCID if lay.key == "rcid_table_1").note


def test_rcid_copy_imports_the_authors_data(tmp_path, capsys):
    from ambi_plugin.cli import main

    copy, human = authors_copy(tmp_path / "built")
    out = tmp_path / "copy"
    assert main(["rcid-copy", "--out", str(out), "--hub", str(copy), "--human", str(human)]) == 0
    assert "skipped rows: 1" in capsys.readouterr().out
    assert len(read_records(out / "rcid_contrast_pixel.jsonl")) == 6
    assert len(read_records(out / "rcid_contrast_human.jsonl")) == 5
    assert read_report(out)["identity"]["adds_up"]
