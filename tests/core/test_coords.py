"""Box coordinate systems: Qwen2.5-VL's resize checked against its reference implementations, the
conversions, and scoring with a per-model box format."""

from __future__ import annotations

import random

import pytest

from ambi_plugin.core.coords import (
    BoxFormatError,
    from_original_pixels,
    smart_resize,
    to_original_pixels,
    with_model_settings,
)
from ambi_plugin.core.scoring import score_item

SIZES = [(470, 802), (512, 512), (28, 28), (10, 1000), (1080, 1920), (3000, 4000), (100, 150), (333, 777)]
SIZES += [(random.Random(s).randint(20, 3000), random.Random(s + 99).randint(20, 3000)) for s in range(40)]


@pytest.mark.parametrize(("h", "w"), [(h, w) for h, w in SIZES if max(h, w) / min(h, w) <= 200])  # Qwen's limit
def test_smart_resize_matches_qwen_vl_utils(h, w):
    from qwen_vl_utils import vision_process as vp

    ref = vp.smart_resize(h, w, factor=28, min_pixels=256 * 28 * 28, max_pixels=1605632)
    assert smart_resize(h, w) == tuple(ref)


# transformers rounds a side below half a patch to 0 px, qwen-vl-utils (what lmms-eval runs first) to 28
@pytest.mark.parametrize(("h", "w"), [(h, w) for h, w in SIZES[:20] if min(h, w) >= 14])
def test_smart_resize_matches_transformers(h, w):
    from transformers.models.qwen2_vl import image_processing_qwen2_vl as mod

    ref = mod.smart_resize(h, w, factor=28, min_pixels=3136, max_pixels=1003520)
    assert smart_resize(h, w, min_pixels=3136, max_pixels=1003520) == tuple(ref)


REC = {"id": "r", "image_size": [802, 470]}


def test_conversions():
    box = [100.0, 50.0, 400.0, 300.0]
    assert to_original_pixels([box], REC) == [box]  # absolute is the default
    norm = [b * 1000 / s for b, s in zip(box, (802, 470, 802, 470))]
    assert to_original_pixels([norm], {**REC, "box_format": "norm1000"})[0] == pytest.approx(box)
    unit = [b / s for b, s in zip(box, (802, 470, 802, 470))]
    assert to_original_pixels([unit], {**REC, "box_format": "norm1"})[0] == pytest.approx(box)
    qrec = {**REC, "box_format": "qwen_resized"}
    h2, w2 = smart_resize(470, 802)
    resized = [box[0] * w2 / 802, box[1] * h2 / 470, box[2] * w2 / 802, box[3] * h2 / 470]
    assert to_original_pixels([resized], qrec)[0] == pytest.approx(box)
    assert from_original_pixels(box, qrec) == pytest.approx(resized)
    assert (h2, w2) != (470, 802)  # the conversion is not the identity here


def test_bad_format_and_missing_size_name_the_record():
    with pytest.raises(BoxFormatError, match="box_format"):
        to_original_pixels([[0, 0, 1, 1]], {**REC, "box_format": "pixels"})
    with pytest.raises(BoxFormatError, match="record id='q'.*image_size"):
        to_original_pixels([[0, 0, 1, 1]], {"id": "q", "box_format": "norm1000"})
    with pytest.raises(BoxFormatError, match="lmms_eval_specific_kwargs"):
        with_model_settings(REC, {"box_format": "percent"})


def test_model_settings_are_copied_into_the_scored_record():
    rec = {"id": "l", "benchmark": "b", "category": "c", "task_type": "localization", "image_size": [1000, 500],
           "boxes": [{"label": "x", "box": [100, 100, 300, 300]}]}  # fmt: skip
    answer = "[(100, 200, 300, 600)]"  # the box in 0-1000 coordinates
    assert score_item(rec, answer)["hit"] is False  # read as pixels it misses
    scored = with_model_settings(rec, {"prompt": "...", "box_format": "norm1000"})
    assert scored is not rec and "prompt" not in scored and rec.get("box_format") is None
    item = score_item(scored, answer)
    assert item["hit"] is True and item["pred_boxes"][0] == pytest.approx([100, 100, 300, 300])
    assert with_model_settings(rec, {"prompt": "x"}) is rec
