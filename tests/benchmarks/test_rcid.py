"""RCID: rates on hand-built cases, the filter generator's HSV guarantee, the synthetic copy, the Hub importer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rcid_fixtures import N_BAD, N_GOOD, UNEXPECTED_ROWS, hub_layout

from ambi_plugin.benchmarks.rcid import LABELS, build_synthetic, materialize_from_hub
from ambi_plugin.benchmarks.rcid import prompts as P
from ambi_plugin.core.schema import RecordError, read_records, validate_record
from ambi_plugin.core.scoring import aggregate, score_item
from ambi_plugin.synth.common import item_rng
from ambi_plugin.synth.filter import TRUE_COLORS, in_color_range, make_filter

RATES = ("human_like_rate", "no_illusion_rate", "na_rate")
MC = {
    "id": "m",
    "benchmark": "rcid",
    "category": "contrast",
    "task_type": "perception",
    "options": P.OPTIONS["contrast"],
    "option_style": "roman",
    "pixel_answer_index": 2,
    "human_answer_index": 0,
    "answer_index": 2,
    "is_illusion": True,
    "prompt_kind": "neutral",
}
FILTER = {
    "id": "f",
    "benchmark": "rcid",
    "category": "filter",
    "task_type": "color_naming",
    "pixel_colors": ["Gray", "Yellowish-green", "Greenish-yellow", "Green"],
    "human_colors": ["Red"],
    "is_illusion": True,
    "prompt_kind": "pixel",
}


def _rates(items):
    return [aggregate(m, items) for m in RATES]


def test_rates_sum_to_one_hand_built_contrast():
    # illusion replies: human, pixel, neither, unreadable, out-of-range label; controls do not count
    ctrl = {**MC, "id": "c", "is_illusion": False, "pixel_answer_index": 1, "human_answer_index": 1}
    items = [score_item(MC, r) for r in ("I", "III", "II", "no idea", "V")] + [score_item(ctrl, "II")]
    assert _rates(items) == pytest.approx([1 / 5, 1 / 5, 3 / 5])
    assert sum(_rates(items)) == pytest.approx(1.0)
    assert aggregate("control_acc", items) == 1.0
    assert aggregate("unparsed_rate", items) == pytest.approx(1 / 6)


def test_rates_sum_to_one_hand_built_filter():
    replies = ("Red", "greenish-yellow", "It is gray, maybe red", "purplish", "???", "reddish")
    items = [score_item(FILTER, r) for r in replies]
    assert [it["outcome"] for it in items] == [
        "human_like",
        "no_illusion",
        "no_illusion",
        "na",
        "unparsed",
        "human_like",
    ]
    assert _rates(items) == pytest.approx([2 / 6, 2 / 6, 2 / 6])
    assert sum(_rates(items)) == pytest.approx(1.0)
    assert aggregate("acc", items) == pytest.approx(2 / 6)  # pixel prompt: the pixel colors are right


def test_answer_sets_of_the_hub_classes():
    # look_like_different: pixels "exactly same", people see either side darker
    _, pixel, human = LABELS["look_like_different"]
    rec = {**MC, "pixel_answer_indices": pixel, "human_answer_indices": human, "prompt_kind": "human"}
    outcomes = [score_item(rec, r)["outcome"] for r in ("I", "II", "III")]
    assert outcomes == ["human_like", "human_like", "no_illusion"]
    assert [score_item(rec, r)["correct"] for r in ("I", "II", "III")] == [True, True, False]
    with pytest.raises(RecordError, match="human_answer_indices"):
        validate_record({**rec, "human_answer_indices": [5]})


def test_empty_rates_are_nan():
    assert all(np.isnan(v) for v in _rates([]))


@pytest.mark.parametrize("color", TRUE_COLORS)
@pytest.mark.parametrize("scene", ["single", "multiple"])
def test_filtered_images_have_no_pixel_in_the_original_color_range(color, scene):
    for i in range(3):
        ill = make_filter(item_rng(7, f"filter-{color}-{scene}", i), True, scene, color)
        assert not in_color_range(ill.image, color).any()
        assert color not in ill.pixel_colors and ill.human_colors == [color]
        ctrl = make_filter(item_rng(7, f"filter-{color}-{scene}", i), False, scene, color)
        assert in_color_range(ctrl.image, color)[ctrl.mask].mean() > 0.95  # the control keeps its color
        assert ctrl.pixel_colors == [color]


def test_synthetic_copy_has_every_file_and_valid_records(tmp_path):
    root = build_synthetic(tmp_path / "rcid", n=8)
    for name in P.file_names():
        recs = read_records(root / f"{name}.jsonl")  # validates every record
        assert len(recs) == 8, name
    shots = read_records(root / "rcid_stripe_fewshot_ni.jsonl")
    assert all(r["id"] not in r["fewshot_ids"] and len(r["fewshot_ids"]) == 3 for r in shots)
    assert all((root / r["image"]).is_file() for r in shots)
    with pytest.raises(ValueError, match="at least 8"):
        build_synthetic(tmp_path / "small", n=4)


def test_hub_layout_import_reports_and_skips_bad_rows(tmp_path, caplog):
    src = hub_layout(tmp_path / "hub")
    root = materialize_from_hub(str(src))
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["n_skipped"] == N_BAD
    reasons = {row["id"]: row["reason"] for row in manifest["skipped"]}
    assert set(reasons) == {"test_bad_label", "test_bad_filter", "test_bad_image"}
    assert "mystery_class" in reasons["test_bad_label"] and "cannot be read" in reasons["test_bad_image"]
    assert "test_bad_label" in caplog.text
    counts = manifest["counts"]
    assert counts["rcid_contrast_pixel"] + counts["rcid_stripe_pixel"] == N_GOOD
    stripes = {r["id"]: r for r in read_records(root / "rcid_stripe_human.jsonl")}
    assert stripes["test_s1"]["human_answer_indices"] == [0, 1] and stripes["test_s1"]["pixel_answer_index"] == 2
    assert stripes["test_s1"]["options"] == P.OPTIONS["stripe"]
    assert stripes["test_s1"]["question"].startswith("Based on human perception, how do the colors")
    assert stripes["test_s5"]["is_illusion"] is False
    # human-like examples need a single human answer: look_like_different images (either side looks darker) are none
    assert counts["rcid_stripe_fewshot_hl"] == 0 and counts["rcid_contrast_fewshot_hl"] == 0
    assert counts["rcid_stripe_fewshot_ni"] == 5
    assert manifest["classes"] == {"test": ["look_like_different", "look_like_same", "mystery_class", "same"]}
    assert manifest["warnings"] == [] and "were skipped" not in caplog.text  # 3 of 13: not a large share


def test_a_release_unlike_the_assumptions_warns_loudly(tmp_path, caplog):
    src = hub_layout(tmp_path / "hub", UNEXPECTED_ROWS)
    root = materialize_from_hub(str(src))
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["n_skipped"] == 7 and manifest["counts"]["rcid_contrast_pixel"] == 1
    (warning,) = manifest["warnings"]
    assert "7 of 8 rows (88%)" in warning
    assert "'illusion_left_darker' (4), 'no_illusion' (2)" in warning  # the unknown labels, most frequent first
    assert "unknown_label 6, unknown_type 1" in warning and "AMBI_RCID_TYPE" in warning
    assert warning in caplog.text
    from ambi_plugin.benchmarks.release import read_report

    assert warning in read_report(root)["notes"]


def test_skip_warning_threshold():
    from ambi_plugin.benchmarks.rcid.hub import LOUD_SHARE, skip_warning

    rows = [{"id": "a", "kind": "unknown_label", "label": "x"}]
    assert skip_warning(rows, int(1 / LOUD_SHARE) + 1, "src") is None
    assert "1 of 4 rows" in skip_warning(rows, 4, "src") and skip_warning([], 0, "src") is None


def test_cot_instruction_is_on_its_own_line():
    from ambi_plugin.runtime.hooks import build_prompt
    from ambi_plugin.runtime.taskindex import index

    kwargs = index()["ambi_rcid_contrast_cot"].config["lmms_eval_specific_kwargs"]["default"]
    prompt = build_prompt({**MC, "question": "How do the colors of A and B compare?"}, kwargs)
    assert "III. They are exactly same\nFirst consider whether" in prompt
    fkw = index()["ambi_rcid_filter_cot"].config["lmms_eval_specific_kwargs"]["default"]
    assert build_prompt({**FILTER, "question": "What color is the ball?"}, fkw).startswith(
        "What color is the ball?\nFirst consider"
    )


def test_rcid_yamls_are_up_to_date():
    import subprocess
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "task_yamls" / "ambi_rcid"
    before = {p.name: p.read_text() for p in folder.glob("*.yaml")}
    subprocess.run([sys.executable, str(folder / "_generate_configs.py")], check=True)
    assert {p.name: p.read_text() for p in folder.glob("*.yaml")} == before and len(before) == 22


def test_table1_reference_rows():
    from ambi_plugin.benchmarks.rcid.tables import TABLE1, format_table1, na_rate

    cells = [c for row in TABLE1.values() for c in row.values()]
    assert len(cells) == 12 and all(0 <= na_rate(*c) <= 100 for c in cells)
    assert na_rate(*TABLE1["LLaVA-1.5 (7B)"]["contrast_pixel"]) == pytest.approx(23.4)
    assert "35.4 (41.2)" in format_table1()


def test_cli_rcid_copy_from_a_hub_layout_folder(tmp_path, capsys):
    from ambi_plugin.cli import main

    src = hub_layout(tmp_path / "hub")
    assert main(["rcid-copy", "--out", str(tmp_path / "copy"), "--hub", str(src)]) == 0
    assert f"skipped rows: {N_BAD}" in capsys.readouterr().out
    assert len(read_records(tmp_path / "copy" / "rcid_contrast_neutral.jsonl")) == 5


def test_hub_cache_offline_and_load_report(tmp_path, monkeypatch):
    """mao1207/RCID as huggingface_hub caches it, read with HF_HUB_OFFLINE; bad rows in the shared load report."""
    import huggingface_hub.constants as C
    from published_layouts import hub_cache

    from ambi_plugin.benchmarks.rcid import HUB_ID
    from ambi_plugin.benchmarks.release import read_report

    src = hub_layout(tmp_path / "hub")
    monkeypatch.setattr(C, "HF_HUB_CACHE", str(hub_cache(tmp_path / "hf", HUB_ID, src)))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    monkeypatch.delenv("AMBI_RCID_HUB", raising=False)
    root = materialize_from_hub()
    report = read_report(root)
    assert report["source"] == f"hf://datasets/{HUB_ID}"
    assert report["skipped_total"] == N_BAD
    assert {s["id"] for s in report["skipped"]} == {"test_bad_label", "test_bad_filter", "test_bad_image"}
    assert report["records"]["ambi_rcid_contrast_pixel"] + report["records"]["ambi_rcid_stripe_pixel"] == N_GOOD
