"""True/false replies read against their statement (``core/statements.py``) at the edges of its rules: where a
chain of thought's headings, sentences and clauses end, which figure a clause is about, which words stand for the
statement's. Each case was written to fail on a plausible slip in those rules (``bench/mutation.py`` measures it);
the near misses beside each verdict are replies a careful reader leaves unread."""

from __future__ import annotations

import pytest

from ambi_plugin.core.parsing import parse_bool
from ambi_plugin.core.statements import statement_verdict


def tf(reply: str, statement: str):
    got = parse_bool(reply, kind="true_false", question=statement)
    return got.value if got.ok else None


LINES = "In the figure, the two lines do not intersect between X values 0 and 200. True or False?"
LINES_SETUP = (
    "To determine whether the two lines intersect, we need to examine the figure.\n\nThe blue line starts lower "
    "than the red line at X=0.\n\n"
)
NO_CROSSING = "There is no point within this range where the blue line crosses or intersects the red line.\n\n"
ESTONIA = "In the figure, the lines for Estonia and Lebanon do not intersect between 2008 and 2010. True or False?"
ESTONIA_DATA = "* Estonia starts at $30,000.\n* Lebanon starts at $40,000.\n* Both rise.\n\n"
DIAMETER = "In the figure, the line AB is a diameter of a circle. True or False?"
CHORDS = "We look at the circle.\n\nThe line AB connects two points on the circle. The line CD passes through the center O.\n\n"


# ----------------------------------------------------------------------------- headings


@pytest.mark.parametrize(
    "heading",
    [
        "**Step 4: Conclusion.**",  # parse_bool drops the bold: "Step 4" tells the heading
        "### Step 4: Conclusion",
        "**Step 3: Checking the result**",
        "Putting it all together, we have:",
        "Checking the result",  # three words without a full stop
        "Lines Intersection Summary",
        "Intersection near X",
        "Estonia and Lebanon Lines Intersecting",  # a title naming the statement's words is no verdict either
    ],
)
def test_a_heading_after_the_verdict_is_skipped(heading):
    assert tf(LINES_SETUP + NO_CROSSING + heading + "\n\nTherefore, based on", LINES) is True


@pytest.mark.parametrize(
    "title", ["Estonia and Lebanon Lines Intersecting", "**Estonia and Lebanon: Intersecting Lines**"]
)
def test_a_title_naming_every_word_of_the_statement_is_no_verdict(title):
    assert tf("We look at the chart.\n\n" + ESTONIA_DATA + title + "\n\nThe line for", ESTONIA) is None
    assert tf(title + "\n\n" + ESTONIA_DATA.rstrip(), ESTONIA) is None  # opening the reply
    # near miss: the same words in a sentence opening the reply state the verdict
    opening = "The lines for Estonia and Lebanon do not intersect between 2008 and 2010.\n\n"
    assert tf(opening + ESTONIA_DATA.rstrip(), ESTONIA) is True


@pytest.mark.parametrize(
    ("line", "verdict"),
    [
        ("* The blue line never crosses the red line in this range", True),  # a bullet without its full stop
        ("The lines never intersect", True),  # four words, no title
        ("Lines never intersect.", True),  # three words and a full stop
        ("**The two lines never intersect there.**", True),  # a bold sentence of seven words
    ],
)
def test_a_short_last_line_that_states_the_verdict_is_no_heading(line, verdict):
    evidence = LINES_SETUP + "Both lines rise.\n\n"
    assert tf(evidence + line + "\n\nThe", LINES) is verdict


def test_a_step_title_of_six_words_is_a_heading():
    assert tf(LINES_SETUP + NO_CROSSING + "**Step 4: Comparing the two plotted lines**\n\nThe", LINES) is True


# ----------------------------------------------------------------------------- sentences and clauses


def test_a_decimal_point_does_not_end_a_sentence():
    statement = "In the figure, the lines for T=0.25 and T=0.40 intersect between X values 30 and 40. True or False?"
    reply = (
        "To determine if the lines intersect, we analyze the graph.\n\n* The brown line (T=0.25) starts higher at "
        "X=30.\n* The pink line (T=0.40) starts lower.\n* The brown line (T=0.25) never crosses the pink line (T=0.40) "
        "in this range."
    )
    assert tf(reply, statement) is False


def test_a_premise_after_its_conclusion_is_a_clause_apart():
    """ "AB is not a diameter, since it does not pass through O": one denial, not two that cancel."""
    reply = "We look at the circle.\n\nPoint O is its center.\n\nThe line AB lies below O.\n\n"
    assert tf(reply + "Therefore, AB is not a diameter, since it does not pass through O.", DIAMETER) is False
    assert tf(reply + "Therefore, AB is not a diameter, because it does not pass through O.", DIAMETER) is False
    assert tf(reply + "Therefore, AB is a diameter, since it passes through O.", DIAMETER) is True
    # after VisOnlyQA's Llama-3.2-90B reply on H-O-H, cut off after "Step 4: Conclusion.": no comma before "because"
    statement = "This chemical structure does not have reflectional symmetry along a horizontal axis. True or False?"
    reply = (
        "**Step 1: Identify the chemical structure.**\n\nThe chemical structure is H-O-H.\n\n**Step 3: Analyze the "
        "structure.**\n\nThe structure H-O-H does not have reflectional symmetry along a horizontal axis because the "
        "hydrogen atoms are not identical on both sides of the oxygen atom.\n\n**Step 4: Conclusion.**\n\nBased"
    )
    assert tf(reply, statement) is True


# ----------------------------------------------------------------------------- another figure


@pytest.mark.parametrize(
    "conclusion",
    [
        "Therefore, it is a diameter of the circle.",  # "it" may be CD
        "Therefore, the line CD is a diameter of the circle.",
        "Therefore, CD is a diameter of the circle.",
    ],
)
def test_a_clause_about_another_figure_says_nothing_of_the_statements(conclusion):
    assert tf(CHORDS + conclusion, DIAMETER) is None


def test_a_clause_naming_the_statements_figure_beside_another_is_read():
    assert tf(CHORDS + "Therefore, unlike CD, the line AB is not a diameter.", DIAMETER) is False
    assert tf(CHORDS + "Therefore, the line CD is a diameter, but AB is not a diameter.", DIAMETER) is False
    assert tf("It is a diameter of the circle.", DIAMETER) is True  # no other figure named: "it" is AB


# ----------------------------------------------------------------------------- statement_verdict itself


def test_a_reply_is_no_chain_of_thought_unless_the_caller_says_so():
    """By default every clause counts, the last restating one deciding: "It is a chord." restates nothing."""
    reply = "The line AB is not a diameter. It is a chord."
    assert statement_verdict(reply, DIAMETER) is False
    # as a chain of thought, neither sentence concludes and the last one states nothing
    assert statement_verdict(reply, DIAMETER, conclusions_only=True) is None


# ----------------------------------------------------------------------------- which figure "it" and "they" stand for

ANC = "There is a triangle ANC in the figure. True or False?"


def test_they_stand_for_a_plural_subject():
    reply = (
        LINES_SETUP + "The blue line starts at 10 and the red line at 40.\n\nBoth rise slowly.\n\n"
        "Therefore, they do not intersect in this range."
    )
    assert tf(reply, LINES) is True


def test_it_stands_for_the_statements_figure_named_by_its_points_or_its_label():
    listed = (
        "We look at the figure.\n\nThe figure shows points A, N, C and others.\n\nThe segments AN, NC and CA are "
        "drawn.\n\nTherefore, the points A, N, and C form a triangle."
    )
    assert tf(listed, ANC) is True
    four_points = (
        "We look at the figure.\n\nThe figure shows four points A, N, C, and D.\n\nThe segments AN, NC and CA are "
        "drawn, and ANC is closed.\n\nTherefore, it meets the criteria for being a triangle."
    )
    assert tf(four_points, ANC) is True  # four points listed are no other triangle
    # near miss: three other points listed beside the statement's label: "it" may be ABC
    other = (
        "We look at the figure.\n\nThe question is about ANC. The figure shows three points labeled A, B, and C, "
        "connected by lines.\n\nSince the figure has three edges and three vertices, it meets the criteria for being "
        "a triangle."
    )
    assert tf(other, ANC) is None


def test_meeting_all_the_criteria_states_the_statements_term():
    reply = (
        "We look at the figure.\n\nThe figure shows the points A, N and C.\n\nThe segments AN, NC and CA are drawn."
        "\n\nGiven that ANC has three vertices and three edges, it meets all the criteria."
    )
    assert tf(reply, ANC) is True
    radius = "In the figure, the line AO is a radius of a circle. True or False?"
    reply = (
        "A radius connects the center of a circle to a point on it.\n\nPoint O is the center of the circle, and A "
        "lies on the circle.\n\nThe line AO connects them.\n\nTherefore, it meets the criteria for being a radius."
    )
    assert tf(reply, radius) is True


@pytest.mark.parametrize(
    "opening",
    [
        'The statement says "the line AB is a diameter of a circle".',  # quoted: mentioned, not stated
        "Is the line AB a diameter of the circle?",  # the question echoed
    ],
)
def test_a_quoted_or_echoed_statement_leaves_it_standing_for_the_figure(opening):
    reply = (
        opening + "\n\nThe line AB passes through the center O of the circle.\n\nBoth A and B lie on the circle.\n\n"
        "Therefore, it is a diameter."
    )
    assert tf(reply, DIAMETER) is True


@pytest.mark.parametrize(
    ("statement", "reply"),
    [
        ("There is a kite ABCD in the figure. True or False?", "Therefore, it meets all the criteria."),
        ("In the figure, the shape ABCD is a kite. True or False?", "Therefore, it meets all the criteria."),
        ("There is a kite ABCD in the figure. True or False?", "Therefore, it is not"),
    ],
)
def test_a_term_as_short_as_the_label_is_not_taken_for_another_figure(statement, reply):
    """ "a kite" put in the reply's words ("it is a kite") is no figure "KITE" beside ABCD."""
    setup = "We look at the figure.\n\nThe points A, B, C and D are joined.\n\nThe sides AB and AD are equal.\n\n"
    expected = reply.endswith("criteria.")
    assert tf(setup + reply, statement) is expected


def test_a_label_at_the_end_of_the_statement_is_read():
    statement = "There is a triangle ABX. True or False?"
    reply = (
        "We look at the figure.\n\nThe segments AB, BX and XA are drawn.\n\nThe three of them are joined.\n\n"
        "Therefore, the points A, B, and X form a triangle."
    )
    assert tf(reply, statement) is True


# ----------------------------------------------------------------------------- the statement's words, otherwise

SYMMETRY = (
    "This chemical structure has reflectional symmetry along a vertical axis. True or False? You must answer this "
    "question using visual information and do not use knowledge of chemistry unless explicitly instructed to do so."
)
SYMMETRY_SETUP = (
    "To determine if the chemical structure has reflectional symmetry along a vertical axis, we need to analyze its "
    "visual properties.\n\nReflectional symmetry along a vertical axis means that the two halves on either side of a "
    "vertical line would be mirror images of each other.\n\n"
)


def test_this_property_is_the_statements_whole_property():
    reply = (
        SYMMETRY_SETUP + "Upon examining the structure, we can see that it has this property only with respect to the "
        "horizontal axis, not the vertical one."
    )
    assert tf(reply, SYMMETRY) is False
    plural = SYMMETRY.replace("This chemical structure has", "The two chemical structures have")
    reply = SYMMETRY_SETUP.replace("the chemical structure has", "the two chemical structures have")
    assert tf(reply + "Upon examining the two chemical structures, we can see that they have this property.", plural)


def test_this_property_of_a_figure_is_not_the_figure():
    """ "There is a quadrilateral ABCD" states no property: "it does not have this property" (being closed) is no
    denial of the quadrilateral."""
    statement = "There is a quadrilateral ABCD in this figure. True or False?"
    reply = (
        "A quadrilateral must be a closed shape with four sides.\n\nThe points A, B, C and D are joined by lines AB, "
        "BC and CD.\n\nThe shape ABCD is not closed, so it does not have this property."
    )
    assert tf(reply, statement) is None


def test_a_statement_whose_predicate_names_nothing_is_read_by_its_subject():
    statement = "The red circle is visible in the image. True or False?"
    assert tf("The red circle is clearly visible.", statement) is True
    assert tf("The red circle is not visible in the image.", statement) is False


def test_a_sentence_about_the_term_opening_with_the_is_no_verdict():
    reply = (
        "We look at the circle.\n\nThe line AB connects two points.\n\nThe diameter is a line segment that passes "
        "through the center of the circle and connects two points on it."
    )
    assert tf(reply, DIAMETER) is None


def test_a_short_reply_restating_half_the_statement_is_read():
    statement = "There is a quadrilateral AECB in this figure. True or False?"
    assert tf("It is not a quadrilateral.", statement) is False


# ----------------------------------------------------------------------------- where in a chain of thought


def test_an_earlier_local_observation_is_not_the_verdict():
    reply = (
        LINES_SETUP + "At X=0 the blue line is below the red line and the lines do not intersect there.\n\n"
        "At X=100 the blue line rises above the red line.\n\nThe"
    )
    assert tf(reply, LINES) is None


def test_a_plan_naming_every_word_states_nothing():
    cut = (
        "The figure shows two lines.\n\nThe blue one is at 10.\n\nThe red one is at 40.\n\nWe need to check if the "
        "two lines intersect between X values 0 and"
    )
    assert tf(cut, LINES) is None
    opening = (
        "Let's check if the lines for Estonia and Lebanon intersect between 2008 and 2010.\n\n" + ESTONIA_DATA.rstrip()
    )
    assert tf(opening, ESTONIA) is None


def test_the_statement_mentioned_mid_reply_is_no_verdict():
    reply = (
        "We look at the chart.\n\nThe statement claims that the lines for Estonia and Lebanon do not intersect "
        "between 2008 and 2010.\n\n" + ESTONIA_DATA + "The line for"
    )
    assert tf(reply, ESTONIA) is None


def test_a_separator_opening_the_reply_is_no_first_sentence():
    reply = (
        "---\n\nThe lines for Estonia and Lebanon do not intersect between 2008 and 2010.\n\n* In 2008, Estonia is at "
        "$30,000.\n* In 2010, Lebanon is at $50,000.\n* Both lines rise."
    )
    assert tf(reply, ESTONIA) is True


# ----------------------------------------------------------------------------- cut off by the output limit


def test_the_predicate_elided_after_both_lines_or_it():
    cut = "* The line for Estonia starts at $30,000.\n* The line for Lebanon starts at $40,000.\n\nConclusion: "
    assert tf(cut + "Based on the graph, it is evident that both lines for Estonia and Lebanon do not", ESTONIA) is True
    reply = "We look at the circle.\n\nThe line AB does not pass through the center O.\n\nTherefore, it is not"
    assert tf(reply, DIAMETER) is False


def test_a_name_cut_off_with_its_capital_is_completed():
    statement = ESTONIA.replace("do not intersect", "intersect")
    reply = (
        "We look at the chart.\n\n" + ESTONIA_DATA + "Between 2008 and 2010, the line for Estonia never crosses the "
        "line for Leban"
    )
    assert tf(reply, statement) is False


# ----------------------------------------------------------------------------- more edges


@pytest.mark.parametrize(
    ("statement", "reply", "verdict"),
    [
        ("In the figure, the two lines intersect between X values 30 and 40.", "They intersect.", True),
        # the framing ("In the left chart in the figure, ") leads to the claim: no qualifier of it
        ("In the left chart in the figure, the two lines intersect between K=1024 and 2048.", "They intersect.", True),
        ("In the left chart in the figure, the two lines intersect between K=1024 and 2048.", "They do not intersect.", False),
        # near miss: "the left chart" is where to look, not what is claimed
        ("In the left chart in the figure, the two lines intersect between K=1024 and 2048.", "The red line is on the left.", None),
    ],
)  # fmt: skip
def test_a_short_reply_need_not_repeat_the_statements_qualifier(statement, reply, verdict):
    assert tf(reply, statement + " True or False?") is verdict


def test_a_step_line_of_seven_words_is_a_sentence():
    evidence = LINES_SETUP + "Both lines rise.\n\n"
    assert tf(evidence + "Step 3: The two lines never cross here.\n\nThe", LINES) is True


@pytest.mark.parametrize(
    "title", ["Blue and Red Lines Intersecting near X=100", "Where the Blue and Red Lines Would Intersect If They Did"]
)
def test_a_title_with_its_small_words_in_lower_case_or_a_long_one_is_a_heading(title):
    assert tf(LINES_SETUP + NO_CROSSING + title + "\n\nThe", LINES) is True


def test_it_stands_for_a_subject_named_by_its_words():
    statement = "The red circle is visible in the image. True or False?"
    assert tf("Red circle. It is not.", statement) is False


def test_a_figure_that_stays_above_a_line_does_not_intersect_it():
    statement = "In the figure, the triangle ABC does not intersect the line DE. True or False?"
    reply = (
        "We look at the figure.\n\nThe triangle ABC is drawn at the top.\n\nThe line DE is drawn at the bottom.\n\n"
        "Therefore, it lies entirely above the line DE."
    )
    assert tf(reply, statement) is True


def test_a_reply_cut_off_at_a_line_end_after_its_negated_auxiliary():
    reply = (
        "* The line for Estonia starts at $30,000.\n\nBased on the graph, the lines for Estonia and Lebanon do not\n"
    )
    assert statement_verdict(reply, ESTONIA, conclusions_only=True) is True


def test_a_statement_without_an_auxiliary_is_read_by_its_words():
    statement = "All chemical structures in the figure include a hexagonal structure. True or False?"
    assert tf("All of the chemical structures include a hexagonal structure.", statement) is True
    assert tf("Not all of the chemical structures include a hexagonal structure.", statement) is False
    reply = "All of the chemical structures, the ones with OH groups too, include a hexagonal structure."
    assert tf(reply, statement) is True


def test_the_figure_containing_the_term_is_not_the_statements_figure():
    statement = "There is a quadrilateral AECB in this figure. True or False?"
    reply = (
        "We look at the figure.\n\nThe points are marked.\n\nSome of them are joined.\n\n"
        "The figure contains a quadrilateral.\n\nThe"
    )
    assert tf(reply, statement) is None


def test_the_statement_restated_as_given_information_is_no_verdict():
    """After VisOnlyQA's Llama-3.2-90B reply, cut off before its verdict: the statement under "Identify the given
    information" is the question read back, not an answer."""
    statement = "In the figure, the line AB is not a diameter of a circle. True or False?"
    reply = (
        "**Step 1: Identify the given information**\n\n*   The line AB is not a diameter of a circle.\n\n**Step 2: "
        "Analyze the figure**\n\n*   The figure shows a circle with points A, B, and C on its circumference.\n*   The "
        "line AB connects points A and B.\n\n**Step 3: Determine if AB is a diameter**\n\n*   A diameter of a circle "
        "is a line segment that passes through the center of the circle"
    )
    assert tf(reply, statement) is None


def test_half_the_subject_of_a_statement_without_an_auxiliary_is_no_restatement():
    statement = "All six chemical structures in the figure include a black triangle connected to H or X. True or False?"
    assert tf("The chemical structures are drawn in black.", statement) is None
    assert tf("All six chemical structures include a black triangle connected to H or X.", statement) is True
