"""core/restate.py: a reply that restates the question (or its negation) instead of saying yes or no, and a reply
that opens with a hedge. Each rule of the module docstring, and the negations that decide the verdict."""

from __future__ import annotations

import pytest

from ambi_plugin.core.parsing import Parsed, parse_bool
from ambi_plugin.core.restate import hedge_verdict, restated_verdict

# ----------------------------------------------------------------------------- the question's own negation

NEGATED = "Are the bars not the same length?"


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("The bars are the same length.", False),  # asked "not the same?": they are the same -> no
        ("The bars are not the same length.", True),
        ("The bars are different lengths.", True),  # antonym: "different" = not "same"
        ("The bars have equal length.", False),  # synonym
        ("Hmm. The bars are the same length.", False),
    ],
)
def test_a_negated_question_is_read_with_its_negation(reply, verdict):
    assert restated_verdict(reply, NEGATED) is verdict
    assert parse_bool(reply, kind="yes_no", question=NEGATED) == Parsed(verdict, True, "restated")


def test_a_negated_question_and_a_negated_reply_cancel_out():
    """The question's negation, the reply's and an antonym each flip the verdict; "isn't" negates like "not"."""
    q = "Is the left circle not smaller than the right circle?"
    assert restated_verdict("The left circle is smaller than the right circle.", q) is False
    assert restated_verdict("The left circle isn't smaller than the right circle.", q) is True
    assert restated_verdict("The left circle is larger than the right circle.", q) is True
    assert restated_verdict("The left circle is not larger than the right circle.", q) is False


def test_the_question_read_is_its_asked_sentence():
    """A prompt's instruction ("Respond ONLY with Yes or No.") and the words "yes or no" are not the question."""
    q = "Look at the image. Are the lines parallel? Respond ONLY with Yes or No."
    assert restated_verdict("The lines are parallel.", q) is True
    assert restated_verdict("The lines are not parallel.", q) is False
    # a statement without "?" (a true/false item) is read whole
    s = "The two horizontal lines are of equal length."
    assert restated_verdict("The lines are not equal in length.", s) is False
    assert restated_verdict("They are the same length.", s) is True
    assert restated_verdict("Yes or no: are the bars equal?", "Are the bars equal? Answer yes or no.") is None


# ----------------------------------------------------------------------------- coverage of the question


def test_a_clause_must_cover_half_the_question_words():
    q = "Is the red square larger than the blue circle?"  # red, square, larger, blue, circle
    assert restated_verdict("The red square is larger.", q) is True  # 3 of 5
    assert restated_verdict("The square is larger.", q) is None  # 2 of 5: not a restatement
    assert restated_verdict("The red square is smaller than the blue circle.", q) is False


def test_a_question_of_stop_words_only_gives_no_verdict():
    assert restated_verdict("It is.", "Is it?") is None
    assert restated_verdict("Anything at all.", "") is None


def test_the_last_restating_clause_concludes():
    q = "Are the bars the same length?"
    assert restated_verdict("The bars look different, but they are the same length.", q) is True
    assert restated_verdict("The bars look the same; however, the bars are different lengths.", q) is False
    assert restated_verdict("The bars are the same length. The colors are vivid.", q) is True  # off topic: ignored


def test_an_echoed_question_and_a_doubting_clause_state_nothing():
    q = "Are the bars the same length?"
    assert restated_verdict("Are the bars the same length? Hard to say.", q) is None
    assert restated_verdict("I can't tell whether the bars are the same length.", q) is None
    assert restated_verdict("The bars might be the same length.", q) is None
    assert restated_verdict("The bars might be different, but the bars are the same length.", q) is True


def test_sameness_and_a_comparative_both_in_the_question_are_read_as_they_are():
    """An illusion question that names both: "the same" in the reply answers the "same" it asks about."""
    q = "Do the bars look the same length while the left bar is longer?"
    assert restated_verdict("The bars look the same length.", q) is True
    assert restated_verdict("The bars look different in length.", q) is False


def test_the_same_denies_a_comparative_and_different_says_nothing_about_it():
    q = "Is the left circle larger than the right circle?"
    assert restated_verdict("The left circle and the right circle are the same size.", q) is False
    assert restated_verdict("The left circle and the right circle are not different in size.", q) is False
    # which one is larger is not said: no verdict (was read as "yes")
    assert restated_verdict("The left circle and the right circle are different sizes.", q) is None
    assert restated_verdict("The left circle is not the same size as the right circle.", q) is None
    # the question's own negation applies to the comparative the sameness denies
    negated = "Is the left circle not larger than the right circle?"
    assert restated_verdict("The left circle and the right circle are the same size.", negated) is True
    assert restated_verdict("The left circle and the right circle are not different in size.", negated) is True
    assert restated_verdict("The left circle and the right circle are different sizes.", negated) is None
    # a clause that says they differ is passed over, a later one that says they are the same concludes
    later = "The circles look different in size, but the left circle and the right circle are the same size."
    assert restated_verdict(later, q) is False
    # the negations around the sameness count, however many
    assert restated_verdict("There is no way the left and right circles are not the same size.", q) is False
    assert restated_verdict("No, no, the left and right circles are not different in size.", q) is False
    # a question about sameness itself is read as any other concept
    assert restated_verdict("The circles are different sizes.", "Are the circles the same size?") is False


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Are there circles?", "There is a circle."),
        ("Are there bars?", "There is a bar."),  # four letters
        ("Are there bodies?", "There is a body."),
        ("Are there flies?", "There is a fly."),  # "ies" in five letters
        ("Are there butterflies?", "There is a butterfly."),
        ("Are there ties?", "There is a tie."),  # four letters ending in "ies": "tie", not "ty"
        ("Is there a circle?", "There are circles."),
        ("Is there glass?", "There is glass."),  # not a plural: stemmed alike on both sides
        ("Are there prices?", "There is a price."),  # "ices" and "ice": one stem ("pric")
        ("Are there any vices?", "There is a vice."),  # ... but a word of four letters keeps its "ice"
        ("Are there indices?", "There is an index."),  # a Latin plural
        ("Are there vertices?", "There is a vertex."),
    ],
)
def test_a_plural_and_its_singular_are_one_word(question, reply):
    assert restated_verdict(reply, question) is True
    assert restated_verdict(
        reply.replace("There is", "There is no").replace("There are", "There are no"), question
    ) is (False)


def test_a_word_outside_the_table_is_stemmed_before_its_lookup():
    """ "equals" is not in the synonym table, its singular-like stem "equal" is: it means "same"."""
    assert restated_verdict("The left equals the right.", "Are the two sides equal?") is True
    assert restated_verdict("The left never equals the right.", "Are the two sides equal?") is False


def test_a_word_of_the_table_is_looked_up_before_it_is_stemmed():
    """ "motionless" would stem to "motionles": it is found as it is, and means not "moving"."""
    assert restated_verdict("It is motionless.", "Is the image moving?") is False
    assert restated_verdict("It is not motionless.", "Is the image moving?") is True


def test_negations_are_counted_not_just_noticed():
    q = "Are the bars the same length?"
    assert restated_verdict("It is not true that the bars are not the same length.", q) is True  # two: they cancel
    assert restated_verdict("No, no, the bars are not the same length.", q) is False  # three


def test_the_question_is_its_asked_sentences_only():
    """The sentence before the question ("The figure shows two red lines.") is not part of what is asked."""
    q = "The figure shows two red lines. Are the lines parallel?"
    assert restated_verdict("They are parallel.", q) is True
    # two questions are read together; "yes or no" adds no word to cover
    assert restated_verdict("They are straight.", "Are the lines straight? Are they parallel?") is True
    assert restated_verdict("They are parallel.", "Are the lines parallel, yes or no?") is True
    assert restated_verdict("They are parallel.", "Are the lines parallel? True or false?") is True


# ----------------------------------------------------------------------------- hedges


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Not really.", False),
        ("Hardly", False),
        ("Absolutely not!", False),
        ("I don't think so.", False),
        ("Negative", False),
        ("Of course.", True),
        ("Definitely, the bars match.", True),
        ("That's right", True),
        ("I believe so", True),
        ("It is.", True),
        ("They aren't.", False),
        ("It does not.", False),
        ("是的", True),
        ("不是", False),
        ("不确定", None),
        ("Sure, here is my analysis of the image.", None),  # a chat opener, not an answer
        ("Definitely not the case", False),
        ("Definitelyish", None),
        ("", None),
        ("  > Of course.", True),
        ("XNope", None),  # only quotes, markdown and punctuation are stripped from the front
    ],
)
def test_hedges(reply, verdict):
    assert hedge_verdict(reply) is verdict


# ----------------------------------------------------------------------------- edges (found by bench/mutation.py)


def test_a_short_auxiliary_reply_may_open_a_longer_one():
    assert hedge_verdict("It is not. The bars differ in length.") is False
    assert hedge_verdict("They are. Both bars are 5 cm long.") is True


def test_a_two_letter_word_is_a_content_word():
    """Only one-letter words ("x", "t": axis and variable names) are left out."""
    assert restated_verdict("There is no ox in the picture.", "Is there an ox in the picture?") is False
    assert restated_verdict("There is an ox grazing.", "Is there an ox in the picture?") is True


def test_a_question_in_capitals_is_asked():
    assert restated_verdict("The two lines are the same length.", "ARE THE TWO LINES THE SAME LENGTH?") is True


CHAIN = "The dog lies on the sofa. Its eyes are open. "


@pytest.mark.parametrize(
    ("conclusion", "verdict"),
    [
        ("Therefore, the dog is sleeping.", True),
        ("Therefore, the dog is awake.", None),  # "awake" is no word of the question: no answer, not "the dog is"
        ("Therefore, the dog is awake. So the dog is not sleeping.", False),  # the next conclusion decides
    ],
)
def test_in_a_chain_of_thought_a_conclusion_names_two_words_of_the_question(conclusion, verdict):
    assert restated_verdict(CHAIN + conclusion, "Is the dog sleeping?", conclusions_only=True) is verdict
    # its evidence alone concludes nothing
    assert restated_verdict(CHAIN, "Is the dog sleeping?", conclusions_only=True) is None


def test_in_a_chain_of_thought_two_of_three_words_restate():
    q = "Are the two bars the same length?"
    assert restated_verdict("The left bar is 5 cm. Therefore, the bars are the same.", q, conclusions_only=True)


def test_a_conclusion_without_the_questions_predicate_is_passed_over():
    q = "Do the red and blue lines intersect?"
    reply = "Thus, the red line stays above the blue line. So the red and blue lines do not intersect."
    assert restated_verdict(reply, q, conclusions_only=True) is False
