"""The YAML hooks: prompts fill from records, bad input names record and field, scores round-trip."""

from __future__ import annotations

import json
import re

import pytest
from PIL import Image

from ambi_plugin.core.answers import MODES, reference_response
from ambi_plugin.runtime import aggregate as agg
from ambi_plugin.runtime import hooks


def _doc(rec):
    return {"id": rec["id"], "task_type": rec["task_type"], "category": rec["category"], "record": json.dumps(rec)}


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "im.png"
    Image.new("RGB", (64, 48), (10, 20, 30)).save(path)
    return str(path)


def test_prompt_fills_question_options_and_size(image):
    rec = {
        "id": "a",
        "benchmark": "b",
        "category": "c",
        "task_type": "choice",
        "image": image,
        "question": "Which?",
        "options": ["left", "right", "same"],
        "option_style": "roman",
        "answer_index": 2,
        "prompt_vars": {"object": "dog"},
    }
    kw = {"prompt": "{question} {options_inline} | {width}x{height} {object}", "option_case": "upper"}
    assert hooks.doc_to_text(_doc(rec), kw) == "Which? I. left II. right III. same | 64x48 dog"
    assert hooks.doc_to_text(_doc(rec), {"prompt": "{options}"}) == "i. left\nii. right\niii. same"


def test_prompt_missing_field_is_named(image):
    rec = {"id": "a7", "benchmark": "b", "category": "c", "task_type": "yes_no", "answer_bool": True, "image": image}
    with pytest.raises(hooks.PromptError, match=r"a7.*object"):
        hooks.doc_to_text(_doc(rec), {"prompt": "Find the {object}"})


def test_unreadable_image_names_record_and_field(tmp_path, monkeypatch):
    from ambi_plugin.runtime import item_errors

    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not an image")
    rec = {"id": "z9", "benchmark": "b", "category": "c", "task_type": "yes_no", "answer_bool": True, "image": str(bad)}
    monkeypatch.setenv("AMBI_STRICT", "1")  # strict: the run stops, naming record, field and file
    with pytest.raises(OSError, match=r"z9.*'image'.*broken\.png"):
        hooks.doc_to_visual(_doc(rec))
    monkeypatch.setenv("AMBI_STRICT", "0")  # default: that item's error, with the same message (issue 20)
    (placeholder,) = hooks.doc_to_visual(_doc(rec))
    assert placeholder.size == (28, 28)
    assert re.search(r"z9.*'image'.*broken\.png", item_errors.error_of(rec))
    item = hooks.process_results(_doc(rec), ["Yes"])["acc"]  # "Yes" is right, but the model never saw the image
    assert item["correct"] is False and item["item_error"] == item_errors.error_of(rec)


RECORDS = [
    {
        "id": "c",
        "benchmark": "b",
        "category": "c",
        "task_type": "choice",
        "options": ["a", "b", "c"],
        "option_style": "letter",
        "answer_index": 1,
    },
    {
        "id": "r",
        "benchmark": "b",
        "category": "c",
        "task_type": "choice",
        "options": ["a", "b", "c", "d"],
        "option_style": "roman",
        "answer_index": 3,
    },
    {
        "id": "m",
        "benchmark": "b",
        "category": "c",
        "task_type": "multi_choice",
        "options": ["x", "y", "z", "w", "None"],
        "answer_indices": [0, 2],
        "none_index": 4,
    },
    {
        "id": "n",
        "benchmark": "b",
        "category": "c",
        "task_type": "multi_choice",
        "options": ["x", "y", "z", "w", "None"],
        "answer_indices": [4],
        "none_index": 4,
    },
    {"id": "t", "benchmark": "b", "category": "c", "task_type": "true_false", "answer_bool": False},
    {"id": "y", "benchmark": "b", "category": "c", "task_type": "yes_no", "answer_bool": True},
    {
        "id": "h",
        "benchmark": "b",
        "category": "c",
        "task_type": "open",
        "views": [{"name": "near", "labels": ["circle"]}, {"name": "far", "labels": ["square|box"]}],
    },
    {
        "id": "o",
        "benchmark": "b",
        "category": "c",
        "task_type": "open",
        "answer_format": "object",
        "views": [{"name": "object", "labels": ["star"]}],
    },
    {
        "id": "l",
        "benchmark": "b",
        "category": "c",
        "task_type": "region",
        "region": [0, 0, 5, 5],
        "views": [{"name": "layer1", "labels": ["letter h|h"]}, {"name": "layer2", "labels": ["letter t|t"]}],
    },
    {
        "id": "b",
        "benchmark": "b",
        "category": "c",
        "task_type": "localization",
        "boxes": [
            {"label": "star", "box": [10, 10, 30, 30], "group": "combined"},
            {"label": "star", "box": [50, 50, 70, 80], "group": "combined"},
        ],
    },
    {
        "id": "d",
        "benchmark": "b",
        "category": "c",
        "task_type": "description",
        "description": "Two equal lines.",
        "key_terms": ["equal|same length"],
        "conflict_terms": ["different length"],
    },
    {
        "id": "p",
        "benchmark": "b",
        "category": "c",
        "task_type": "perception",
        "options": ["A is darker", "B is darker", "They are exactly same"],
        "option_style": "roman",
        "pixel_answer_index": 2,
        "human_answer_index": 0,
        "answer_index": 2,
        "is_illusion": True,
        "prompt_kind": "pixel",
    },
]


@pytest.mark.parametrize("rec", RECORDS, ids=[r["id"] for r in RECORDS])
@pytest.mark.parametrize("mode", MODES)
def test_reference_responses_score_as_intended(rec, mode):
    out = hooks.process_results(_doc(rec), [reference_response(rec, mode)])
    item = next(iter(out.values()))
    assert item["parsed"] is (mode != "garbage" or rec["task_type"] == "description")
    if rec["task_type"] == "description":
        assert item["score"] == (2.0 if mode == "gold" else 0.0)
    else:
        assert item["correct"] is (mode == "gold")


def test_process_results_keys_match_metric_names():
    rec = RECORDS[6]
    out = hooks.process_results(_doc(rec), ["circle, box"])
    assert sorted(out) == ["acc", "acc_far", "acc_near", "judge_errors", "unparsed", "unparsed_rate"]
    item = out["acc"]
    assert item["views"] == {"near": True, "far": True}
    half = hooks.process_results(_doc(rec), ["circle, xylophone"])["acc"]
    assert half["correct"] is False and half["views"] == {"near": True, "far": False}
    assert agg.acc_near([item, half]) == 1.0 and agg.acc_far([item, half]) == 0.5 and agg.acc([item, half]) == 0.5


def test_unknown_aggregation_name_fails_clearly():
    with pytest.raises(AttributeError, match="no aggregation"):
        agg.f1_macro  # noqa: B018


def test_yes_no_without_question_reads_restatements_against_the_prompt():
    """AmbiBench motion records have no question: the task's prompt is the question a restatement answers."""
    from ambi_plugin.benchmarks.ambibench import PROMPT_MOTION_IMAGE, PROMPT_MOTION_STATIC
    from ambi_plugin.runtime import task_kwargs

    rec = {"id": "m1", "task_type": "yes_no", "answer_bool": True, "image": "x.png"}
    with task_kwargs.using({"prompt": PROMPT_MOTION_STATIC}):
        item = hooks.score_response(rec, ["There is no motion in this image."])
    assert item["pred_bool"] is True and item["parse_reason"] == "restated"
    with task_kwargs.using({"prompt": PROMPT_MOTION_IMAGE}):
        item = hooks.score_response(rec, ["There is no motion in this image."])
    assert item["pred_bool"] is False
    assert "question" not in rec  # the record itself is left alone
