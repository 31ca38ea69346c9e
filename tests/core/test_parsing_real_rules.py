"""One test per rule added for what real models write (tests/core/corpus_real/: replies released by other
benchmarks' authors). Each reply is shaped after a real one; the other reading is the one the parser gave before
the rule (a wrong answer, or an answer read into a reply that gives none)."""

from __future__ import annotations

import signal
import time

import pytest

from ambi_plugin.core.parsing import (
    MAX_CHARS,
    Parsed,
    parse_answer,
    parse_bool,
    parse_choice,
    parse_letter_set,
    parse_object,
)

OPTS = ["is tripled", "is doubled", "remains the same", "is halved", "decreased by a third"]

# ----------------------------------------------------------------------------- single choice


def test_letters_joined_by_an_ampersand_are_a_word_not_a_label():
    """ "R&D" is not option D (a refusal that mentions R&D spend was read as D)."""
    reply = "It's not possible for me to know the actual R&D spend for 2010 as it was not specified in the image."
    assert not parse_choice(reply, 5).ok


def test_a_repeated_option_list_is_no_answer():
    """The options read back, each label with its own text, choose nothing (read as A before)."""
    reply = "(A) is tripled (B) is doubled (C) remains the same (D) is halved (E) decreased by a third"
    got = parse_choice(reply, 5, options=OPTS)
    assert (got.ok, got.reason) == (False, "echo")


def test_the_answer_after_a_repeated_option_list_is_read():
    reply = "(A) is tripled (B) is doubled (C) remains the same (D) is halved\nAnswer: C"
    assert parse_choice(reply, 5, options=OPTS).value == 2


def test_one_option_with_its_text_is_an_answer_not_an_echo():
    assert parse_choice("The correct answer is (a) 4.\n\n(a) 4", 5, options=["4", "2", "1", "0.5", "0.25"]).value == 0


def test_an_echoed_instruction_lists_labels_without_choosing():
    """ "select from a, b, c, and d." echoed by a captioning model is no answer ("d." was read as D)."""
    reply = "based on the image, which figure fits? select from a, b, c, and d. answer : )"
    assert not parse_choice(reply, 4).ok


def test_a_label_and_a_text_naming_different_options_is_ambiguous():
    """ "(E) C": option E's label with option C's text (read as E before)."""
    opts = ["A", "B", "C", "All would be equally stable", "Impossible to tell"]
    assert parse_choice("(E) C", 5, options=opts).reason == "ambiguous"
    assert parse_choice("(C) C", 5, options=opts).value == 2


def test_an_option_text_made_of_letters_beats_the_letters():
    """ "C and E" is the text of option A (read as C before)."""
    assert parse_choice("C and E", 4, options=["C and E", "A, B, D, F", "ALL", "F and D"]).value == 0


def test_a_label_alone_on_the_last_line_is_the_answer():
    reply = (
        "It's definitely not as small as options (a), (c) or (d) suggest.\n\n"
        "Given these observations, the most reasonable estimate for angle DCB is:\n\nb"
    )
    assert parse_choice(reply, 5).value == 1
    assert not parse_choice("Let me list them:\nA\nB\nC\nD", 4).ok  # a list of labels is no answer


def test_a_value_written_without_its_thousands_separator_matches_the_option():
    opts = ["2,235,000", "2,613,000", "2,503,000", "2,483,000", "2,305,000"]
    assert parse_choice("tasla's rd spend for 2008 is 2483,000", 5, options=opts).value == 3


def test_a_bare_number_inside_one_options_statement_is_no_answer():
    opts = ["Employees owned 40% of the shares", "The largest dealing was 1,440 shares", "Directors held 4,870 shares"]
    assert not parse_choice("4870", 3, options=opts).ok


def test_answer_choice_is_an_answer_marker():
    reply = "---BEGIN FORMAT TEMPLATE---\nAnswer Choice: [house]\nConfidence Score: [0.9]\nReasoning: [A drawing.]"
    assert parse_object(reply).value == "house"
    assert parse_answer("Answer Choice: B\nReasoning: the left one is a dog.", "letter", n_options=4).value == 1


# ----------------------------------------------------------------------------- letter sets


def test_an_eliminating_sentence_removes_its_letters():
    reply = "A and B are incorrect because the beak is missing. The correct answers are C and D."
    assert parse_letter_set(reply, 4).value == frozenset({2, 3})
    reply = "Therefore, the options that follow this rule are A and B. Grids C and D do not follow this rule."
    assert parse_letter_set(reply, 4).value == frozenset({0, 1})


def test_the_last_conclusion_wins_over_a_walk_through_the_options():
    reply = (
        "- Figure (a) has two peaks.\n- Figure (b) has one peak.\n- Figure (c) has two peaks.\n"
        "- Figure (d) has one peak.\n\nTherefore, the figures that satisfy the conditions are (a) and (c). "
        "These are the only two figures that have two peaks in them."
    )
    assert parse_letter_set(reply, 4).value == frozenset({0, 2})


def test_none_of_the_figures_is_the_none_answer():
    reply = "Figure (a) has one ring.\n\nFinal answer: None of the figures (a, b, c, d) satisfy the conditions."
    assert parse_letter_set(reply, 4) == Parsed(frozenset(), True, "none")
    reply = "(a) is a ketone.\n(b) is a ketone.\n\nAll figures (a), (b), (c), and (d) do not satisfy the conditions."
    assert parse_letter_set(reply, 4) == Parsed(frozenset(), True, "none")


def test_a_verdict_for_every_option_makes_the_set():
    reply = "(a) does not meet the condition.\n(b) meets the condition.\n(c) meets the condition.\n(d) is incorrect."
    assert parse_letter_set(reply, 4).value == frozenset({1, 2})


def test_a_walk_through_the_options_cut_off_is_no_answer():
    reply = (
        "Figure (a) does not meet the condition as the triangles are adjacent.\n\n"
        "Figure (b) also does not meet the condition.\n\nFigure (c) meets the condition as it has a black triangle"
    )
    assert not parse_letter_set(reply, 4).ok


def test_a_line_opening_with_a_label_counts_only_labels_written_as_labels():
    """ "(a) A and B": A and B name the figure's sides, not options (read as all four before)."""
    reply = "Therefore, the figures that satisfy the condition are:\n\n(a) A and B\n(c) A and B"
    assert parse_letter_set(reply, 4).value == frozenset({0, 2})


def test_letters_joined_by_or_and_echoed_questions_choose_nothing():
    assert parse_letter_set("(A, B, C, or D)", 4).reason == "alternatives"
    reply = "based on the image, what options ( a, b, c, or d ) follow this same rule?. answer : 2"
    assert not parse_letter_set(reply, 4).ok


def test_a_sentence_setting_out_the_task_is_no_conclusion():
    reply = (
        "To determine which figures satisfy the condition, we need to examine each figure.\n\n"
        "Figure a shows one CH3 group. Figure b shows two CH3 groups on a vertical line.\n\nBased on the"
    )
    assert not parse_letter_set(reply, 4).ok


def test_an_echoed_chat_prompt_is_read_after_the_assistant_turn():
    reply = "USER: question: Which choices (A-D)? answer: C\nquestion: Which (A-D) belong? answer:  ASSISTANT: A, D"
    assert parse_letter_set(reply, 4).value == frozenset({0, 3})


# ----------------------------------------------------------------------------- yes / no and true / false

STATEMENT = "This chemical structure has reflectional symmetry along a horizontal axis. True or False? Answer visually."


def test_a_true_or_false_statement_is_read_from_before_its_question_mark():
    """The statement, not "True or False?", is what a reply restates (unread before)."""
    reply = "The structure does not have reflectional symmetry along a horizontal axis."
    assert parse_bool(reply, kind="true_false", question=STATEMENT) == Parsed(False, True, "restated")


def test_a_reply_that_cannot_tell_is_no_answer():
    """Read as True before (the restatement of "setting")."""
    reply = "I cannot tell. The sun is oscillating up and down in this video. It appears to be setting, but I cannot say for certain."
    assert not parse_bool(reply, kind="yes_no", question="Is the sun rising?").ok
    reply = 'It is not a concrete wall, but a surface is breaking apart. I cannot say "yes" for certain.'
    assert not parse_bool(reply, kind="yes_no", question="Is the concrete wall falling apart?").ok


def test_a_verdict_opening_a_sentence_answers_despite_a_hedge():
    reply = (
        "It appears that the particles are exploding. However, it is not possible to determine if they are golden."
        "\n\nYes, the particles appear to be exploding."
    )
    assert parse_bool(reply, kind="yes_no", question="Are the golden particles exploding?").value is True


def test_a_short_auxiliary_sentence_opening_a_reply_answers():
    reply = "It is not.  The video shows the ice crystals as stationary.  There is no liquid water."
    assert parse_bool(reply, kind="yes_no", question="Is the ice crystal freezing?").value is False


def test_a_question_and_answer_the_model_invents_after_answering_is_not_the_answer():
    reply = (
        "This is a single flower.\n\nAnswer: Yes\n\nAre the flowers dead already?\n\nAnswer: No, the flower is alive."
    )
    assert parse_bool(reply, kind="yes_no", question="Are the flowers blooming").value is True


def test_in_a_chain_of_thought_only_a_conclusion_restates():
    """Evidence naming the statement's nouns ("the line for train ... higher") is no verdict on "intersect"."""
    statement = "In the graph for fc2, the lines for train and val intersect between epochs 1 and 2.5. True or False?"
    reply = (
        "The graph for fc2 shows two lines. The x-axis is epochs. The y-axis is the error.\n\n"
        "Upon examining the graph, we can see that the line for train starts at a higher value than the line for val "
        "at epoch 0. As the epochs progress, both lines"
    )
    assert not parse_bool(reply, kind="true_false", question=statement).ok
    reply = "China rises. The U.S. rises. The gap grows.\n\nTherefore, the lines do not cross between 2009 and 2011."
    statement = "In the figure, the lines for China and U.S. intersect between 2009 and 2011. True or False?"
    assert parse_bool(reply, kind="true_false", question=statement).value is False


def test_a_determiner_no_is_no_verdict_anywhere_in_the_reply_given_the_question():
    statement = "In the figure, the two lines do not intersect between X values 0 and 200. True or False?"
    reply = (
        "Both lines rise.\n\nThe blue line stays below the red line.\n\nThere is no point where the blue line meets it."
    )
    assert parse_bool(reply, kind="true_false", question=statement).value is not False  # read False before


def test_full_width_brackets_and_chinese_answers():
    assert parse_choice("根据图像，（C）正确。", 4).value == 2
    assert parse_choice("答案是A", 4).value == 0
    assert parse_letter_set("答案是A和C", 4).value == frozenset({0, 2})  # unread before: 和 joined the letters


# ----------------------------------------------------------------------------- hostile lengths

HOSTILE = {
    "concluding sentences": "Therefore, the figures that satisfy the condition are: ",
    "questions": "Is it A?\n",
    "an echoed instruction": "select from a, b, c ",
    "a repeated option list": "(A) is tripled (B) is doubled ",
    "uncertainty": "it is not clear. ",
}


class _Stalled(BaseException):  # not caught by the parsers' last-resort guard
    pass


@pytest.mark.parametrize("shape", HOSTILE)
def test_the_new_readers_stay_linear_on_a_full_length_reply(shape):
    """MAX_CHARS of one shape, read in well under a second of CPU (the restatement's question pattern took 20 s on
    100 kB of concluding sentences before)."""

    def stalled(signum, frame):
        raise _Stalled(f"{shape!r} still being read after 2 s of CPU")

    text = HOSTILE[shape] * (MAX_CHARS // len(HOSTILE[shape]))
    readers = (
        lambda t: parse_bool(t, kind="yes_no", question="Is the bar longer than the line?"),
        lambda t: parse_letter_set(t, 4),
        lambda t: parse_choice(t, 4, options=["is tripled", "is doubled", "c", "d"]),
    )
    old = signal.signal(signal.SIGVTALRM, stalled)
    try:
        for read in readers:
            signal.setitimer(signal.ITIMER_VIRTUAL, 2.0)
            start = time.process_time()
            read(text)
            assert time.process_time() - start < 1.0
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)
