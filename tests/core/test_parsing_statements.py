"""True/false replies that reach a verdict without the words true/false, read against the statement
(``core/statements.py``). Each reply is shaped after a real one of ``tests/core/corpus_real/``
(VisOnlyQA); before these rules each was left unread, and the guards keep a reply that gives no verdict unread."""

from __future__ import annotations

from ambi_plugin.core.parsing import parse_bool

SYMMETRY = (
    "This chemical structure has reflectional symmetry along a vertical axis. True or False? You must answer this "
    "question using visual information and do not use knowledge of chemistry unless explicitly instructed to do so."
)
CHAIN = (
    "To determine if the chemical structure has reflectional symmetry along a vertical axis, we need to analyze "
    "the given structure.\n\nThe structure is a carbon chain with two methyl groups attached to it. A vertical "
    "axis of reflection would pass through the center of the carbon chain.\n\nIf the structure were reflected "
    "across this axis, it would look identical to the original structure.\n\n"
)


def tf(reply: str, statement: str):
    return parse_bool(reply, kind="true_false", question=statement)


def test_a_concluding_sentence_that_negates_the_statement_is_false():
    """The statement's qualifier ("along a vertical axis") need not be repeated by the conclusion."""
    got = tf(CHAIN + "Therefore, the structure does not have reflectional symmetry.", SYMMETRY)
    assert (got.ok, got.value) == (True, False)


def test_a_conclusion_cut_off_inside_the_statements_word_is_read_with_that_word():
    got = tf(CHAIN + "Therefore, the structure does not have reflection", SYMMETRY)
    assert (got.ok, got.value) == (True, False)


def test_the_framing_of_a_statement_is_not_part_of_its_claim():
    """ "In the left chart in the figure" names where to look; the conclusion restates the claim as it is."""
    statement = (
        "In the left chart in the figure, the two lines do not intersect between K=1024 and 2048. True or False?"
    )
    reply = (
        "We need to examine the line positions at these points.\n\n1. At K=1024, both lines are above the 0.065 "
        "mark.\n2. As K increases towards 2048, both lines continue to rise.\n3. The red line rises more steeply.\n\n"
        "Given this analysis, we can conclude that the two lines do not intersect between K=1024 and 2048. The red "
        "line, which starts higher and rises more steeply, reaches"
    )
    got = tf(reply, statement)
    assert (got.ok, got.value) == (True, True)


def test_a_conclusion_naming_the_predicate_settles_a_statement_with_long_names():
    statement = "In the figure, the lines for Sao Tome and Principe and Dominica intersect between 2004 and 2006. True or False?"
    reply = (
        "We need to examine the figure.\n\nThe lines for both countries are shown, with Sao Tome and Principe in "
        "red and Dominica in black.\n\nIn 2004, the red line is higher. In 2006, the black line is higher. This "
        "indicates that the lines do not intersect between 2004 and 200"
    )
    got = tf(reply, statement)
    assert (got.ok, got.value) == (True, False)


def test_meeting_the_criteria_of_a_figure_states_it_and_an_empty_answer_marker_is_dropped():
    statement = "There is a quadrilateral NAMP in this figure. True or False?"
    reply = (
        "Counting the sides: 4. Counting the vertices: 5.\n\nSince NAMP has 4 sides and 5 vertices, it does not "
        "meet the criteria of a quadrilateral, which must have 4 sides and 4 vertices.\n\nFinal answer:"
    )
    got = tf(reply, statement)
    assert (got.ok, got.value) == (True, False)


def test_a_last_sentence_cut_off_states_nothing():
    statement = "In the figure, the lines for T=0.25 and T=0.40 intersect between X values 30 and 40. True or False?"
    reply = (
        "To determine if the lines intersect, we need to analyze the graph.\n\n* The brown line starts higher.\n"
        "* As X increases, both lines decrease in y-value.\n* The brown line (T=0.25) intersects the pink line (T=0."
    )
    assert not tf(reply, statement).ok


def test_a_heading_or_a_definition_is_no_verdict():
    statement = (
        "In the figure, the lines for Estonia and Lebanon do not intersect between 2008 and 2010. True or False?"
    )
    reply = (
        "**Intersecting Lines Analysis**\n\nTo determine if the lines intersect, we need to examine the graph.\n\n"
        "* Estonia starts at $30,000 and ends at $45,000.\n* Lebanon begins at $40,000 and ends at $50,000.\n\n"
        "**Conclusion**: Based on the graph, it is evident that the lines for Estonia and Lebanon"
    )
    assert not tf(reply, statement).ok  # the heading was read as "they intersect" (False)
    got = tf(reply + " do not", statement)  # the predicate elided after "do not" (core/statements.py): not the heading
    assert (got.ok, got.value) == (True, True)
    statement = "In the figure, the line DC is a diameter of a circle. True or False?"
    reply = (
        "We need to look at the figure.\n\nThe center is O.\n\nPoints C and D lie on the circle.\n\n"
        "A diameter of a circle is a line segment that passes through the center of the circle."
    )
    assert not tf(reply, statement).ok
