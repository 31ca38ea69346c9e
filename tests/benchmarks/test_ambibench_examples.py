"""Appendix A.10, table-driven: every printed output scores as the paper labels it, through the
importer's reading of the printed ground truth and ``core.scoring.score_item`` with the offline judge."""

from __future__ import annotations

import pytest

from ambi_plugin.benchmarks.ambibench import PROMPT_MULTISCENE_LOCALIZATION, TASKS_BY_DATA
from ambi_plugin.benchmarks.ambibench.examples import A10_EXAMPLES, A10_LOCALIZATION, example_id, outputs_by_id
from ambi_plugin.benchmarks.ambibench.importer import record_from_row, task_of
from ambi_plugin.core.scoring import score_item
from ambi_plugin.runtime.hooks import build_prompt

# core scoring called directly with no judge: the judge layer's default, installed explicitly (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("default_judge_provider")

CASES = [(ex, out, label) for ex in A10_EXAMPLES for out, label in ex.outputs]


def a10_record(ex) -> dict:
    data = task_of(ex.row["category"], ex.row["question_type"])
    assert data is not None, ex.key
    return record_from_row(ex.row, data, f"a10_{ex.key}")


@pytest.mark.parametrize(("ex", "output", "label"), CASES, ids=[f"{e.key}:{o}" for e, o, _ in CASES])
def test_a10_output_scores_as_labelled(ex, output, label):
    item = score_item(a10_record(ex), output)
    assert item["parsed"], item
    assert item["correct"] is label, item


def test_every_example_has_a_correct_and_an_incorrect_output():
    for ex in A10_EXAMPLES:
        labels = [lab for _, lab in ex.outputs]
        assert labels[0] is True and False in labels, ex.key


def test_ground_truths_read_as_printed():
    recs = {ex.key: a10_record(ex) for ex in A10_EXAMPLES}
    assert [v["labels"] for v in recs["camo"]["views"]] == [["Insect"]]
    assert recs["bistable_choice"]["options"] == ["car with snow", "face", "Motorcycle", "Bus", "None"]
    assert recs["bistable_choice"]["answer_indices"] == [0, 1] and recs["bistable_choice"]["none_index"] == 4
    assert [(v["name"], v["labels"]) for v in recs["hybrid"]["views"]] == [("near", ["shark"]), ("far", ["panda"])]
    assert [v["labels"] for v in recs["multiview"]["views"]] == [["cat in a garden"], ["bat in a cave"]]
    assert [v["labels"] for v in recs["multiscene_open"]["views"]] == [["desert"], ["skull"]]
    assert [v["labels"] for v in recs["multiscene_region"]["views"]] == [["bones"], ["teeth of skull"]]
    assert recs["geometric"]["answer_bool"] is True and recs["motion_image"]["answer_bool"] is True


def test_color_prose_ground_truth_is_read_into_one_label_per_side():
    ex = next(e for e in A10_EXAMPLES if e.key == "color")
    row = {k: v for k, v in ex.row.items() if k != "labels"}  # without the explicit canonical labels
    rec = record_from_row(row, "color_open", "c")
    assert [(v["name"], v["labels"]) for v in rec["views"]] == [("color", ["bee"]), ("gray", ["grand canyon"])]


def test_partial_answers_are_wrong_per_position():
    hybrid = a10_record(next(e for e in A10_EXAMPLES if e.key == "hybrid"))
    item = score_item(hybrid, "shark, mushroom")
    assert item["views"] == {"near": True, "far": False} and item["correct"] is False
    multiview = a10_record(next(e for e in A10_EXAMPLES if e.key == "multiview"))
    assert score_item(multiview, "Cat, triangle")["views"] == {"upright": True, "rotated": False}
    assert score_item(multiview, "bat, cat")["correct"] is False  # positions matter


def test_multi_choice_exact_set():
    rec = a10_record(next(e for e in A10_EXAMPLES if e.key == "bistable_choice"))
    assert score_item(rec, "B, A")["correct"] is True
    for wrong in ("A, C", "A", "A, B, C", "A, B, E", "E", "None"):
        assert score_item(rec, wrong)["correct"] is False, wrong
    none_gold = {**rec, "answer_indices": []}
    assert score_item(none_gold, "E")["correct"] is True
    assert score_item(none_gold, "A, E")["correct"] is False  # "E" with other letters is wrong


def test_localization_prompt_of_a10_with_the_template_bug_fixed(tmp_path):
    from PIL import Image

    w, h = A10_LOCALIZATION["width"], A10_LOCALIZATION["height"]
    Image.new("RGB", (w, h)).save(tmp_path / "a10.png")
    rec = {"id": "x", "image": str(tmp_path / "a10.png"), "prompt_vars": {"object": A10_LOCALIZATION["object"]}}
    text = build_prompt(rec, {"prompt": PROMPT_MULTISCENE_LOCALIZATION})
    assert "all the possible skull in the image" in text and "coordinates of all the skull," in text
    assert "if no skull exist in the image, return 'None'." in text
    assert "the image size is Width: 802, Height: 470." in text
    assert "elephant" not in text and "possible objects" not in text


def test_fixture_ids_match_the_table():
    ids = outputs_by_id()
    assert len(ids) == len(CASES)
    assert ids[example_id(A10_EXAMPLES[0], 1)] == ("Leaf", False)
    assert all(TASKS_BY_DATA[task_of(e.row["category"], e.row["question_type"])] for e in A10_EXAMPLES)


def test_localization_none_and_unparseable_answers():
    from ambi_plugin.core.scoring import aggregate

    rec = record_from_row(
        {"category": "Multi-scene", "question_type": "Localization", "object": "skull",
         "boxes": [{"label": "skull", "bbox": [300, 120, 500, 330], "type": "single"}]},
        "multiscene_localization", "loc",
    )  # fmt: skip
    none = score_item(rec, "None")  # the prompt's answer when nothing is found: an empty prediction
    assert none["parsed"] is True and none["pred_boxes"] == [] and none["hit"] is False
    garbage = score_item(rec, "I think the skull is in the middle.")  # no box: unparsed, counts as empty
    assert garbage["parsed"] is False and garbage["pred_boxes"] == [] and garbage["correct"] is False
    hit = score_item(rec, "[(305, 118, 498, 335)]")
    items = [hit, none, garbage]
    assert aggregate("hit_rate", items) == pytest.approx(1 / 3)
    assert aggregate("ap50", items) == pytest.approx(34 / 101)  # recall 1/3 at precision 1, COCO 101 points
    assert aggregate("unparsed_rate", items) == pytest.approx(1 / 3)
