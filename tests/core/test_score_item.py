"""core/scoring.py, field by field: the item score of each task type (what is parsed with which settings, what
goes to the judge, every field the aggregations and the logged samples read), metric names with breakdowns, and
every aggregation by hand. The fixtures are hand-made records; the judge is the real offline one unless a test
needs to see what a judge receives (then a judge object is handed in, as the judge protocol allows)."""

from __future__ import annotations

import math

import pytest

from ambi_plugin.core.scoring import aggregate, breakdown_value, default_matcher, metric_names, score_item, slug
from ambi_plugin.judge.voting import Score, Verdict

# core called directly with no judge: the judge layer's default, installed explicitly (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("default_judge_provider")

BASE = {"id": "r1", "benchmark": "b", "category": "c"}
CHOICE = {**BASE, "task_type": "choice", "options": ["red apple", "green pear", "blue plum"], "answer_index": 1}


class Recorder:
    """A judge that answers from a table and records every judgement it is asked for."""

    backend_name, model = "recorder", "table"

    def __init__(self, verdicts=(), scores=()):
        self.verdicts, self.scores, self.calls = list(verdicts), list(scores), []

    def set_match(self, gold, predicted):
        self.calls.append((list(gold), list(predicted)))
        value = self.verdicts.pop(0)
        return Verdict(None, [None], ["?"], True) if value is None else Verdict(value, [value], [f"v{value}"])

    def description_score(self, response, description, *, key_terms=None, conflict_terms=None):
        self.calls.append((response, description, key_terms, conflict_terms))
        mean = self.scores.pop(0)
        return Score(mean, 0.0, [mean], [f"s{mean}"]) if mean is not None else Score(None, None, [None], ["?"], 1)


# ----------------------------------------------------------------------------- the fields every item has


def test_an_item_carries_its_id_type_parse_result_and_breakdown():
    rec = {**CHOICE, "breakdown": {"difficulty": "hard"}}
    assert score_item(rec, "B") == {
        "id": "r1",
        "task_type": "choice",
        "parsed": True,
        "parse_reason": "",
        "breakdown": {"difficulty": "hard"},
        "pred": 1,
        "correct": True,
    }
    assert score_item(CHOICE, "The answer is B or C") == {
        "id": "r1",
        "task_type": "choice",
        "parsed": False,
        "parse_reason": "ambiguous",
        "breakdown": {},
        "pred": None,
        "correct": False,
    }
    assert score_item({**CHOICE, "breakdown": None}, "A")["breakdown"] == {}


# ----------------------------------------------------------------------------- what is parsed, and how


def test_choice_is_parsed_with_the_records_options_and_style():
    assert score_item(CHOICE, "E")["pred"] == -1  # three options: "E" is out of range, parsed and wrong
    assert score_item(CHOICE, "E")["parse_reason"] == "out_of_range"
    assert score_item(CHOICE, "E")["correct"] is False and score_item(CHOICE, "A")["correct"] is False
    assert score_item(CHOICE, "green pear")["correct"] is True  # the option's text
    assert score_item(CHOICE, "ii")["parsed"] is False  # letters
    assert score_item({**CHOICE, "option_style": "roman"}, "ii")["pred"] == 1
    assert score_item({**CHOICE, "answer_format": "roman"}, "ii")["pred"] == 1
    assert score_item({**CHOICE, "answer_format": "roman"}, "B")["parsed"] is False


def test_multi_choice_is_parsed_with_the_number_of_options_and_the_none_option():
    rec = {**BASE, "task_type": "multi_choice", "options": ["a", "b", "c", "none of these"], "answer_indices": [0, 2]}
    assert score_item(rec, "C, A") | {"breakdown": {}} == {**score_item(rec, "C, A"), "pred": [0, 2], "correct": True}
    assert score_item(rec, "A, E")["parse_reason"] == "out_of_range"  # four options
    assert score_item(rec, "I see the shapes A and D in it.")["pred"] == [0, 3]  # in a sentence: only those offered
    assert score_item(rec, "A")["correct"] is False
    none = {**rec, "answer_indices": [], "none_index": 3}
    assert score_item(none, "None of the above") | {} == {**score_item(none, "D"), "parse_reason": "none"}
    assert score_item(none, "None of the above")["pred"] == [3] and score_item(none, "D")["correct"] is True
    assert score_item(none, "A")["correct"] is False
    assert score_item(rec, "nothing readable")["pred"] is None


@pytest.mark.parametrize("task_type", ["yes_no", "true_false"])
def test_yes_no_and_true_false_read_a_restatement_against_the_question(task_type):
    rec = {**BASE, "task_type": task_type, "question": "Are the two bars the same length?", "answer_bool": False}
    item = score_item(rec, "The bars are not the same length.")
    assert item["pred_bool"] is False and item["gold_bool"] is False and item["correct"] is True
    assert item["parse_reason"] == "restated"
    assert score_item({**rec, "question": None}, "The bars are not the same length.")["parsed"] is False


def test_a_bool_item_is_correct_only_when_parsed_and_equal():
    rec = {**BASE, "task_type": "yes_no", "answer_bool": True}
    assert score_item(rec, "Yes") | {} == {
        **score_item(rec, "Yes"),
        "pred_bool": True,
        "gold_bool": True,
        "correct": True,
    }
    assert score_item(rec, "No")["correct"] is False
    unread = score_item(rec, "hmm")
    assert unread["pred_bool"] is None and unread["correct"] is False and unread["gold_bool"] is True


# ----------------------------------------------------------------------------- open and region: the judge


OPEN = {**BASE, "task_type": "open", "views": [{"name": "near", "labels": ["cat"]}, {"name": "far", "labels": ["dog"]}]}


def test_positional_views_each_get_their_own_segment():
    judge = Recorder([True, False])
    item = score_item(OPEN, "cat, wolf", judge=judge)
    assert judge.calls == [(["cat"], ["cat"]), (["dog"], ["wolf"])]
    assert item["views"] == {"near": True, "far": False} and item["correct"] is False
    assert item["judge"] == {"backend": "recorder", "model": "table", "rounds": 1, "judgements": 2,
                             "raw": ["vTrue", "vFalse"], "error": False}  # fmt: skip
    both = score_item(OPEN, "cat, dog", judge=Recorder([True, True]))
    assert both["correct"] is True and both["views"] == {"near": True, "far": True}


def test_a_missing_segment_is_judged_empty_and_an_errored_verdict_counts_false():
    judge = Recorder([None, True])
    item = score_item({**OPEN, "views": [{"labels": ["cat"]}, {"labels": ["dog"]}, {"labels": ["owl"]}]}, "cat, dog",
                      judge=Recorder([True, True, False]))  # fmt: skip
    assert item["views"] == {"0": True, "1": True, "2": False}  # unnamed views: their position
    item = score_item(OPEN, "cat", judge=judge)
    assert judge.calls == [(["cat"], ["cat"]), (["dog"], [])]
    assert item["views"] == {"near": False, "far": True} and item["correct"] is False
    assert item["judge"]["error"] is True
    assert aggregate("judge_errors", [item, score_item(OPEN, "cat, dog", judge=Recorder([True, True]))]) == 1.0


def test_unordered_views_are_one_judgement_of_every_label_against_every_term():
    judge = Recorder([True])
    item = score_item({**OPEN, "views_positional": False}, "dog, cat", judge=judge)
    assert judge.calls == [(["cat", "dog"], ["dog", "cat"])]
    assert item["views"] == {"near": True, "far": True} and item["correct"] is True
    assert item["judge"]["judgements"] == 1
    one_view = {**OPEN, "views": [{"name": "only", "labels": ["cat", "dog"]}]}  # one view: every term is its own
    judge = Recorder([True])
    assert score_item(one_view, "cat, dog", judge=judge)["views"] == {"only": True}
    assert judge.calls == [(["cat", "dog"], ["cat", "dog"])]


def test_a_judge_provider_handed_in_decides_and_is_asked_only_when_an_item_needs_a_judge():
    """No judge, a provider handed in: it is asked (with the item's matcher) for the open item's judge, whose
    verdict decides; the provider installed for the process is not asked. A choice item asks no provider."""
    from ambi_plugin.core.judging import set_judge_provider

    asked, installed = [], []
    judge = Recorder([True, False])
    old = set_judge_provider(lambda matcher: installed.append(matcher) or Recorder([False, False]))
    try:
        item = score_item(OPEN, "cat, wolf", judge_provider=lambda matcher: asked.append(matcher) or judge)
        choice = score_item(CHOICE, "B", judge_provider=lambda matcher: asked.append("choice") or judge)
    finally:
        set_judge_provider(old)
    assert len(asked) == 1 and asked[0] != "choice" and installed == []
    assert item["views"] == {"near": True, "far": False} and item["judge"]["backend"] == "recorder"
    assert choice["correct"] is True


def test_an_unreadable_open_reply_asks_no_judge():
    judge = Recorder()
    item = score_item(OPEN, "", judge=judge)
    assert judge.calls == []
    assert item["correct"] is False and item["views"] == {"near": False, "far": False}
    assert item["judge"] == {"backend": "recorder", "model": "table", "rounds": 0, "judgements": 0, "raw": [],
                             "error": False}  # fmt: skip


def test_region_layers_and_object_and_free_answers_are_split_as_their_format_says():
    region = {
        **BASE,
        "task_type": "region",
        "views": [{"name": "l1", "labels": ["cat"]}, {"name": "l2", "labels": ["dog"]}],
    }
    judge = Recorder([True, True])
    score_item(region, "Layer 1: cat, owl\nLayer 2: dog", judge=judge)
    assert judge.calls == [(["cat"], ["cat", "owl"]), (["dog"], ["dog"])]
    judge = Recorder([True])
    score_item({**OPEN, "views": OPEN["views"][:1], "answer_format": "object"}, "a cat", judge=judge)
    assert len(judge.calls) == 1 and len(judge.calls[0][1]) == 1 and "cat" in judge.calls[0][1][0]
    judge = Recorder([True])
    score_item({**OPEN, "views": OPEN["views"][:1], "answer_format": "free"}, "A cat, I think.", judge=judge)
    assert judge.calls == [(["cat"], ["A cat, I think."])]


def test_the_real_offline_judge_decides_open_items():
    item = score_item(OPEN, "cat, dog")
    assert item["correct"] is True and item["judge"]["backend"] == "offline" and item["judge"]["judgements"] == 2
    assert score_item(OPEN, "dog, cat")["views"] == {"near": False, "far": False}  # positions matter


def test_a_matcher_handed_in_decides_instead_of_the_lexicon():
    class Everything:
        def match_terms(self, gold, predicted):
            return True

    assert score_item(OPEN, "owl, bat")["correct"] is False
    assert score_item(OPEN, "owl, bat", matcher=Everything())["correct"] is True


def test_the_default_matcher_is_built_once():
    from ambi_plugin.core.matching import OfflineMatcher

    assert isinstance(default_matcher(), OfflineMatcher) and default_matcher() is default_matcher()


# ----------------------------------------------------------------------------- description


DESC = {**BASE, "task_type": "description", "description": "a duck and a rabbit", "key_terms": ["duck", "rabbit"]}


def test_a_description_is_rated_with_the_records_terms_and_only_2_is_correct():
    judge = Recorder(scores=[2.0])
    item = score_item({**DESC, "conflict_terms": ["horse"]}, "A duck, or a rabbit.", judge=judge)
    assert judge.calls == [("A duck, or a rabbit.", "a duck and a rabbit", ["duck", "rabbit"], ["horse"])]
    assert item["score"] == 2.0 and item["correct"] is True and item["judge"]["judgements"] == 1
    item = score_item(DESC, "A duck.", judge=(judge := Recorder(scores=[1.5])))
    assert item["score"] == 1.5 and item["correct"] is False
    assert judge.calls == [("A duck.", "a duck and a rabbit", ["duck", "rabbit"], None)]
    score_item({**DESC, "key_terms": [], "description": None}, "A duck.", judge=(judge := Recorder(scores=[0.0])))
    assert judge.calls == [("A duck.", "", None, None)]  # no terms: None, not an empty list


def test_an_unrated_description_scores_0_and_is_a_judge_error():
    item = score_item(DESC, "A duck.", judge=Recorder(scores=[None]))
    assert item["score"] == 0.0 and item["correct"] is False and item["judge"]["error"] is True
    unread = score_item(DESC, "", judge=(judge := Recorder()))
    assert judge.calls == [] and unread["score"] == 0.0 and unread["correct"] is False
    assert unread["judge"]["judgements"] == 0


def test_the_real_offline_judge_rates_descriptions():
    assert score_item(DESC, "I see a duck and a rabbit.")["score"] == 2.0


# ----------------------------------------------------------------------------- localization


LOC = {**BASE, "task_type": "localization", "image_size": [100, 100],
       "boxes": [{"box": [0, 0, 10, 10]}, {"box": [50, 50, 60, 60], "group": "combined"}]}  # fmt: skip


def test_localization_item_fields():
    item = score_item(LOC, "[0, 0, 10, 10], [50, 50, 60, 60]")
    assert {k: item[k] for k in ("pred_boxes", "gold_boxes", "group", "hit", "correct")} == {
        "pred_boxes": [[0.0, 0.0, 10.0, 10.0], [50.0, 50.0, 60.0, 60.0]],
        "gold_boxes": [[0, 0, 10, 10], [50, 50, 60, 60]],
        "group": "combined",  # the first box that names a group
        "hit": True,
        "correct": True,
    }
    assert score_item({**LOC, "boxes": [{"box": [0, 0, 10, 10]}]}, "[0, 0, 10, 10]")["group"] == "unknown"
    assert score_item(LOC, "[0, 0, 10, 10]")["hit"] is False  # one of two found: no hit
    unread = score_item(LOC, "no idea")
    assert unread["pred_boxes"] == [] and unread["hit"] is False and unread["correct"] is False


def test_localization_boxes_are_converted_to_original_pixels():
    item = score_item({**LOC, "box_format": "norm1000"}, "[0, 0, 100, 100], [500, 500, 600, 600]")
    assert item["pred_boxes"] == [[0.0, 0.0, 10.0, 10.0], [50.0, 50.0, 60.0, 60.0]] and item["hit"] is True


def test_no_boxes_is_a_hit_only_where_nothing_is_to_be_found():
    empty = {**LOC, "boxes": []}
    assert score_item(empty, "None")["hit"] is True
    assert score_item(empty, "[0, 0, 10, 10]")["hit"] is False


# ----------------------------------------------------------------------------- perception and color naming


PERC = {**BASE, "task_type": "perception", "options": ["A is darker", "B is darker", "Same", "Other"],
        "option_style": "roman", "pixel_answer_index": 2, "human_answer_index": 0, "answer_index": 2,
        "is_illusion": True}  # fmt: skip


def test_perception_item_fields():
    assert {k: v for k, v in score_item(PERC, "III").items() if k in ("pred", "is_illusion", "outcome", "correct")} == {
        "pred": 2,
        "is_illusion": True,
        "outcome": "no_illusion",
        "correct": True,
    }
    assert score_item({**PERC, "is_illusion": 0}, "III")["is_illusion"] is False


def test_perception_with_lists_of_answers_and_the_prompt_kind():
    listed = {**PERC, "pixel_answer_indices": [2, 3], "human_answer_indices": [0, 1], "answer_index": 3}
    assert score_item(listed, "IV")["outcome"] == "no_illusion" and score_item(listed, "IV")["correct"] is True
    assert score_item(listed, "II")["outcome"] == "human_like" and score_item(listed, "II")["correct"] is False
    human = {**listed, "prompt_kind": "human"}
    assert score_item(human, "II")["correct"] is True and score_item(human, "III")["correct"] is False
    # only one side listed: the other is its single index
    only_pixel = {**PERC, "pixel_answer_indices": [2, 3]}
    assert score_item(only_pixel, "IV")["correct"] is True and score_item(only_pixel, "I")["outcome"] == "human_like"
    assert score_item({**only_pixel, "prompt_kind": "human"}, "I")["correct"] is True
    only_human = {**PERC, "human_answer_indices": [0, 1], "prompt_kind": "human"}
    assert score_item(only_human, "II")["correct"] is True and score_item(only_human, "II")["outcome"] == "human_like"
    assert (
        score_item(only_human, "III")["outcome"] == "no_illusion" and score_item(only_human, "III")["correct"] is False
    )
    # nothing listed: the record's answer_index decides, whatever the prompt kind
    assert score_item({**PERC, "prompt_kind": "human"}, "III")["correct"] is True


COLOR = {**BASE, "task_type": "color_naming", "is_illusion": True, "pixel_colors": ["gray"],
         "human_colors": ["green"]}  # fmt: skip


@pytest.mark.parametrize(
    ("record", "reply", "outcome", "correct"),
    [
        (COLOR, "green", "human_like", False),
        ({**COLOR, "prompt_kind": "human"}, "green", "human_like", True),
        (COLOR, "gray", "no_illusion", True),
        ({**COLOR, "prompt_kind": "human"}, "gray", "no_illusion", False),
        (COLOR, "red", "na", False),
        (COLOR, "no color here", "unparsed", False),
        ({**COLOR, "is_illusion": False, "human_colors": ["gray"]}, "gray", "accurate", True),
        ({**COLOR, "is_illusion": False, "human_colors": ["gray"]}, "red", "inaccurate", False),
        ({**COLOR, "is_illusion": False}, "nothing", "unparsed", False),
    ],
)
def test_color_naming_outcomes(record, reply, outcome, correct):
    item = score_item(record, reply)
    assert (item["outcome"], item["correct"], item["is_illusion"]) == (outcome, correct, bool(record["is_illusion"]))
    assert item["pred"] == (None if outcome == "unparsed" else reply)


def test_color_naming_pred_is_the_term_as_text():
    assert score_item(COLOR, "It looks greenish yellow to me")["pred"] == "greenish-yellow"


# ----------------------------------------------------------------------------- metric names


def test_region_views_and_a_single_view_in_metric_names():
    region = {**BASE, "task_type": "region", "views": [{"name": "l1", "labels": ["a"]}, {"labels": ["b"]}]}
    assert metric_names(region) == ["acc", "acc_l1", "acc_1", "unparsed_rate", "unparsed", "judge_errors"]
    single = {**region, "views": [{"name": "l1", "labels": ["a"]}]}
    assert metric_names(single) == ["acc", "unparsed_rate", "unparsed", "judge_errors"]


def test_breakdown_metric_names_from_the_datasets_values_or_the_records_own():
    rec = {**CHOICE, "breakdown": {"difficulty": "Hard"}, "breakdown_values": {"difficulty": ["easy", "hard"]}}
    assert metric_names(rec, by=["difficulty"]) == ["acc", "unparsed_rate", "unparsed", "acc_easy", "acc_hard"]
    own = {**CHOICE, "breakdown": {"difficulty": "Real Scene"}}
    assert metric_names(own, by=["difficulty"]) == ["acc", "unparsed_rate", "unparsed", "acc_real_scene"]
    assert metric_names(CHOICE, by=["difficulty"]) == ["acc", "unparsed_rate", "unparsed"]  # no value: no name
    tf = {**BASE, "task_type": "true_false", "answer_bool": True, "category_kind": "classic"}
    assert metric_names(tf, by=["category_kind"])[-2:] == ["acc_classic", "fp_ratio_classic"]


def test_breakdown_values_and_slugs():
    assert breakdown_value({"breakdown": {"level": "Very Hard"}, "level": "x"}, "level") == "very_hard"
    assert breakdown_value({"level": "Easy"}, "level") == "easy"  # a top-level field
    assert breakdown_value({"breakdown": {"level": ""}}, "level") is None
    assert breakdown_value({"breakdown": None}, "level") is None
    assert slug("  Real -- Scene!  ") == "real_scene" and slug("") == "none" and slug(3) == "3"


# ----------------------------------------------------------------------------- aggregation


def _item(**kw):
    return {"parsed": True, "breakdown": {}, **kw}


def test_plain_aggregations_by_hand():
    items = [_item(correct=True), _item(correct=False), _item(parsed=False, correct=False), _item(correct=True)]
    assert aggregate("acc", items) == 0.5 and aggregate("exact_match", items) == 0.5
    assert aggregate("unparsed_rate", items) == 0.25 and aggregate("unparsed", items) == 1.0
    # an item whose image could not be read is an item error only: not in the unparsed count nor its rate
    errored = [*items, _item(parsed=False, correct=False, item_error="image unreadable")]
    assert aggregate("unparsed_rate", errored) == 0.25 and aggregate("unparsed", errored) == 1.0
    for metric in ("acc", "unparsed_rate", "hit_rate", "desc_score", "control_acc", "na_rate", "ap50"):
        assert math.isnan(aggregate(metric, [])), metric
    assert aggregate("hit_rate", [_item(hit=True), _item(hit=False), _item(hit=True)]) == pytest.approx(2 / 3)
    assert aggregate("desc_score", [_item(score=2.0), _item(score=1.0), _item(score=0.0)]) == 1.0


def test_outcome_rates_count_illusion_items_only_and_na_takes_the_unreadable():
    ill = [_item(is_illusion=True, outcome=o) for o in ("human_like", "human_like", "no_illusion", "na", "unparsed")]
    ctrl = [_item(is_illusion=False, outcome=o) for o in ("accurate", "accurate", "inaccurate")]
    items = ill + ctrl
    assert aggregate("human_like_rate", items) == pytest.approx(2 / 5)
    assert aggregate("no_illusion_rate", items) == pytest.approx(1 / 5)
    assert aggregate("na_rate", items) == pytest.approx(2 / 5)  # "na" and "unparsed"
    assert aggregate("control_acc", items) == pytest.approx(2 / 3)
    assert math.isnan(aggregate("human_like_rate", ctrl)) and math.isnan(aggregate("control_acc", ill))


def test_ap_aggregations_split_by_group():
    g, far = [0, 0, 10, 10], [50, 50, 60, 60]
    single = _item(pred_boxes=[g], gold_boxes=[g], group="single")
    combined = _item(pred_boxes=[far], gold_boxes=[g, far], group="combined")
    assert aggregate("ap50", [single, combined]) == pytest.approx(67 / 101)  # 2 of 3 found, precision 1
    assert aggregate("ap50_single", [single, combined]) == 1.0
    assert aggregate("ap50_combined", [single, combined]) == pytest.approx(51 / 101)  # recall .5 at precision 1
    assert math.isnan(aggregate("ap50_single", [combined]))


def test_per_view_accuracy_and_per_value_subsets():
    items = [
        _item(correct=True, views={"near": True, "far": True}, breakdown={"level": "Easy"}),
        _item(correct=False, views={"near": True, "far": False}, breakdown={"level": "Hard"}),
        _item(correct=False, views={"near": False, "far": False}, breakdown={"level": "Hard"}),
        _item(correct=True, breakdown={"level": "Hard"}),  # no views: not counted in acc_<view>
    ]
    assert aggregate("acc_near", items) == pytest.approx(2 / 3) and aggregate("acc_far", items) == pytest.approx(1 / 3)
    assert aggregate("acc_easy", items) == 1.0 and aggregate("acc_hard", items) == pytest.approx(1 / 3)
    assert aggregate("unparsed_hard", items) == 0.0
    assert math.isnan(aggregate("acc_medium", items))  # a value no item has: NaN, not an error


def test_the_longest_known_base_names_the_subset():
    items = [_item(score=2.0, breakdown={"level": "easy"}), _item(score=0.0, breakdown={"level": "easy"}),
             _item(score=1.0, breakdown={"level": "hard"})]  # fmt: skip
    # desc_score_std_easy: the std over the easy items (not desc_score over a value "std_easy")
    assert aggregate("desc_score_std_easy", items) == pytest.approx(math.sqrt(2))
    assert aggregate("desc_score_easy", items) == 1.0
    fp = [
        _item(pred_bool=True, gold_bool=False, pred_bool_llm=False, breakdown={"kind": "classic"}),  # FP; LLM: TN
        _item(pred_bool=True, gold_bool=True, pred_bool_llm=False, breakdown={"kind": "classic"}),  # TP; LLM: FN
    ]
    assert aggregate("fp_ratio_classic", fp) == 1.0 and aggregate("fp_ratio_llm_classic", fp) == 0.0


def test_an_unknown_task_type_is_named():
    with pytest.raises(ValueError, match="unknown task_type 'bogus'"):
        score_item({**BASE, "task_type": "bogus"}, "A")


def test_an_unknown_metric_is_named_with_the_known_ones():
    with pytest.raises(KeyError) as err:
        aggregate("bleu", [])
    assert "Expected a metric in (acc, acc_llm, ap50," in str(err.value) and "but got 'bleu'" in str(err.value)
