"""One test per rule the parsers state (core/parsing/'s module and function docstrings, core/restate.py).

Each test holds a rule that a mutation of the parser would break: the reply is built so that the other reading
(first marker instead of last, a label that a wrong rule would take, ...) gives a different value.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ambi_plugin.core.parsing import (
    MAX_CHARS,
    Parsed,
    parse_bool,
    parse_boxes,
    parse_choice,
    parse_layers,
    parse_letter_set,
    parse_list,
    parse_object,
)

# ----------------------------------------------------------------------------- answer markers


def test_last_marker_wins_for_letters():
    assert parse_choice("Answer: A. Hmm, wait. Answer: C", 4).value == 2


def test_last_object_marker_wins():
    """Two "Object:" markers: the last one is the answer, as for letters (the first one is a corrected guess)."""
    assert parse_object("Object: 'cat'\nObject: 'lynx'").value == "lynx"
    assert parse_object("Object: fish. No, looking again:\nObject: flounder").value == "flounder"


def test_last_marker_wins_for_booleans_and_lists():
    assert parse_bool("Answer: True. On reflection, Answer: False", kind="true_false").value is False
    assert parse_list("Answer: cat, dog\nAnswer: fox, hen").value == ["fox", "hen"]


def test_markers_in_tags_tables_json_and_chinese():
    assert parse_choice("<think>A</think><answer>C</answer>", 4).value == 2
    assert parse_choice("It is \\boxed{B}.", 4).value == 1
    assert parse_choice("| Answer | D |", 4).value == 3
    assert parse_choice('{"reason": "A is wrong", "answer": "B"}', 4).value == 1
    assert parse_choice("答案：C", 4).value == 2


# ----------------------------------------------------------------------------- choice labels


def test_out_of_range_label_in_strong_position_is_parsed_and_wrong():
    assert parse_choice("F.", 4) == Parsed(-1, True, "out_of_range")
    assert parse_choice("Answer: F", 4) == Parsed(-1, True, "out_of_range")


def test_two_labels_without_marker_are_ambiguous():
    assert parse_choice("A or B", 4) == Parsed(None, False, "ambiguous")


def test_article_and_pronoun_are_not_labels():
    assert parse_choice("I think it is B", 4).value == 1  # "I" of "I think" is not option I (9th)
    assert parse_choice("a cat, so C", 4).value == 2  # "a cat": the article


def test_roman_style_reads_numerals_only_and_letter_style_no_numerals():
    assert parse_choice("ii", 4, style="roman").value == 1
    assert parse_choice("B", 4, style="roman").ok is False  # a letter in roman style
    assert parse_choice("iv", 26, style="letter").ok is False  # a numeral in letter style: not "i" nor "v"


def test_opening_label_beats_option_text():
    """Order: a label opening the reply > an option's exact text."""
    assert parse_choice("A", 2, options=["B", "A"]).value == 0


def test_option_exact_text_beats_out_of_range_opening_label():
    assert parse_choice("E. coli", 4, options=["E. coli", "yeast", "virus", "mold"]).value == 0


def test_option_text_inside_the_reply():
    assert parse_choice("I'd say the red square", 3, options=["red square", "blue circle", "green star"]).value == 0


def test_negated_label_is_skipped():
    assert parse_choice("(B), not A.", 4).value == 1


# ----------------------------------------------------------------------------- letter sets


def test_letter_set_none_option_and_none_word():
    assert parse_letter_set("E", 5, none_index=4).value == frozenset({4})
    assert parse_letter_set("None", 5, none_index=4).value == frozenset({4})
    assert parse_letter_set("None", 4).value == frozenset()  # no None option: the empty set


def test_letter_set_none_with_letters_is_kept():
    assert parse_letter_set("A, E", 5, none_index=4).value == frozenset({0, 4})


def test_letter_set_out_of_range_in_bare_list_is_kept_in_prose_ignored():
    assert parse_letter_set("A, F", 4) == Parsed(frozenset({0, 5}), True, "out_of_range")
    assert parse_letter_set("I see A and the Z-shaped beak", 4).value == frozenset({0})


# ----------------------------------------------------------------------------- booleans


def test_bool_first_verdict_after_last_marker():
    assert parse_bool("No idea at first. Answer: true, not false", kind="true_false").value is True


def test_bool_opening_verdict_beats_later_words():
    assert parse_bool("No, it is not; yes-men would say otherwise", kind="yes_no").value is False


def test_bool_agreeing_verdicts_and_disagreeing():
    assert parse_bool("It looks false, and it is false", kind="true_false").value is False
    assert parse_bool("It looks true but it is false", kind="true_false").reason == "ambiguous"


def test_bool_not_true_is_false():
    assert parse_bool("That is not true.", kind="true_false").value is False
    assert parse_bool("not correct", kind="true_false").value is False


def test_bool_hedges_both_ways():
    assert parse_bool("Not really.", kind="yes_no") == Parsed(False, True, "hedge")
    assert parse_bool("Of course.", kind="yes_no") == Parsed(True, True, "hedge")
    assert parse_bool("Of course not.", kind="yes_no") == Parsed(False, True, "hedge")
    assert parse_bool("否", kind="yes_no").value is False and parse_bool("是的", kind="yes_no").value is True


def test_bool_restatement_needs_the_question():
    q = "Are the two bars the same length?"
    assert parse_bool("The bars are not the same length.", kind="yes_no", question=q) == Parsed(False, True, "restated")
    assert parse_bool("They are equal in length.", kind="yes_no", question=q).value is True
    assert parse_bool("They are equal in length.", kind="yes_no").ok is False  # no question: no guess


def test_bool_restatement_reads_antonyms_and_no_as_negation():
    assert parse_bool("There is no motion.", kind="yes_no", question="Is the image static?").value is True
    assert parse_bool("There is no motion.", kind="yes_no", question="Is the image moving?").value is False
    assert parse_bool("There is no motion.", kind="yes_no").value is False  # without the question: the word "no"


def test_bool_restatement_last_clause_concludes():
    q = "Do you think the scene in the image is static? Respond ONLY with Yes or No."
    text = "The scene looks like it is moving, but it is actually static."
    assert parse_bool(text, kind="yes_no", question=q).value is True


def test_bool_restatement_off_topic_is_unparsed():
    assert parse_bool("The colors are vivid.", kind="yes_no", question="Are the two bars the same length?").ok is False


# ----------------------------------------------------------------------------- boxes


def test_boxes_four_numbers_sorted():
    assert parse_boxes("[(30, 40, 10, 20)]").value == [(10.0, 20.0, 30.0, 40.0)]


def test_boxes_point_pairs_only_without_groups_of_four():
    assert parse_boxes("(1, 2), (3, 4)").value == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes("(1, 2), (3, 4) and [5, 6, 7, 8]").value == [(5.0, 6.0, 7.0, 8.0)]


def test_boxes_none_and_absent():
    assert parse_boxes("None") == Parsed([], True, "none")
    assert parse_boxes("There is no giraffe visible here.") == Parsed([], True, "absent")
    assert parse_boxes("I cannot find it").ok is False  # not a statement that the object is absent


# ----------------------------------------------------------------------------- text clean-up


def test_long_replies_keep_their_end_and_think_blocks_are_dropped():
    assert parse_choice("A " * MAX_CHARS + "Answer: C", 4).value == 2
    assert parse_choice("<think>Answer: A</think>B", 4).value == 1


def test_markdown_and_full_width():
    assert parse_choice("**Answer:** __B__", 4).value == 1
    assert parse_choice("Ｄ", 4).value == 3


# ----------------------------------------------------------------------------- lists, layers, objects


def test_list_splits_on_separator_numbers_bullets_only():
    assert parse_list("shark and panda").value == ["shark and panda"]
    assert parse_list("1. shark 2. panda").value == ["shark", "panda"]
    assert parse_list("- shark\n- panda").value == ["shark", "panda"]
    assert parse_list("shark, unknown").value == ["shark"]  # a refusal is not an item


def test_layers_semicolons_and_trailing_semicolon():
    assert parse_layers("a, b; c").value == [["a", "b"], ["c"]]
    assert parse_layers("a, b;").value == [["a", "b"]]


def test_object_short_first_line_and_sentence():
    assert parse_object("Leopard.\nIt is lying on a branch.").value == "leopard"
    assert parse_object("The hidden animal is a leopard.") == Parsed("leopard", True, "from_sentence")
    assert parse_object("I can see an owl blending into the bark").value == "owl"
    assert parse_object("Object: 'none'").reason == "refusal"


# ----------------------------------------------------------------------------- the question-aware reading is total

_WORDS = ["not", "no", "yes", "the", "bars", "same", "equal", "different", "length", "static", "moving", "Of course",
          "Hardly", "but", ".", ",", "?", "是", "不是", "n't", "It is", "larger", "left", "right", "\n"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=14), st.lists(st.sampled_from(_WORDS), max_size=10), st.text())
def test_bool_with_any_question_never_errors(reply, question, noise):
    for text in (" ".join(reply), " ".join(reply) + noise):
        got = parse_bool(text, kind="yes_no", question=" ".join(question) or noise)
        assert not got.reason.startswith("parser_error"), got
        assert got.value in (True, False) if got.ok else got.value is None


def test_chat_opener_is_not_a_hedge():
    """ "Sure, here is ..." opens a chat reply; it is not a yes (the rest of the reply decides)."""
    assert parse_bool("Sure! Let me look. No, it is not.", kind="yes_no").value is False
    assert parse_bool("Certainly! Let me analyze the image.", kind="yes_no").ok is False
    assert parse_bool("Certainly.", kind="yes_no").value is True
