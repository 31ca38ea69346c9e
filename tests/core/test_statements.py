"""True/false replies that state their verdict without the words true/false, in other words than the statement's
(``core/statements.py``): a reference back, points listed one by one, a term's definition in its place, a predicate
elided at the cut, the last complete sentence before a cut. Each reply is shaped after a real one of
``tests/core/corpus_real/`` (VisOnlyQA, Llama-3.2 and Molmo chains of thought, many cut off by the output limit);
before these rules each was left unread. Every rule has its near misses beside it: replies that give no verdict,
or only evidence for one, stay unread."""

from __future__ import annotations

import pytest

from ambi_plugin.core.parsing import parse_bool
from ambi_plugin.core.restate import _stem

SYMMETRY = (
    "This chemical structure has reflectional symmetry along a vertical axis. True or False? You must answer this "
    "question using visual information and do not use knowledge of chemistry unless explicitly instructed to do so."
)
SETUP = (
    "To determine if the chemical structure has reflectional symmetry along a vertical axis, we need to analyze its "
    "visual properties.\n\n**Solution:**\n\nReflectional symmetry along a vertical axis means that the two halves on "
    "either side of a vertical line would be mirror images of each other.\n\n"
)


def tf(reply: str, statement: str):
    got = parse_bool(reply, kind="true_false", question=statement)
    return got.value if got.ok else None


# ----------------------------------------------------------------------------- references back


def test_this_property_is_the_statements_property():
    assert (
        tf(SETUP + "Upon examining the structure, we can see that it does not have this property.", SYMMETRY) is False
    )
    assert tf(SETUP + "Upon examining the structure, we can see that it has this property.", SYMMETRY) is True
    # near miss: a plan to check the property states nothing
    assert tf(SETUP + "To check this property, we look at the structure. The left side of it has", SYMMETRY) is None


QUAD = "There is a quadrilateral AECB in this figure. True or False?"
QUAD_SETUP = (
    "To determine if AECB is a quadrilateral, we need to apply the definition of a quadrilateral.\n\nA quadrilateral "
    "is a four-sided polygon with four edges and four corners. The figure contains four distinct points: A, E, C, and "
    "B, connected by lines to form a closed shape.\n\n"
)


def test_it_meets_the_criteria_of_the_term_is_the_statement():
    reply = (
        QUAD_SETUP
        + "Given that the figure has four points connected by four lines, it meets all the criteria of a quadrilateral"
    )
    assert tf(reply, QUAD) is True
    assert tf(QUAD_SETUP + "Therefore it does not meet the criteria of a quadrilateral.", QUAD) is False


def test_a_pronoun_stands_for_the_statements_figure_only_when_the_reply_names_no_other():
    statement = "There is a triangle ANC in the figure. True or False?"
    named = "The figure shows three points labeled A, N, and C, connected by lines.\n\n"
    other = "The figure shows three points labeled A, B, and C, connected by lines.\n\n"
    tail = "Since the figure has three edges and three vertices, it meets the criteria for being a triangle.\n\n**Conclusion."
    assert tf("We look at the figure.\n\n" + named + tail, statement) is True
    assert tf("We look at the figure.\n\n" + other + tail, statement) is None  # "it" is triangle ABC, not ANC


def test_meeting_the_criteria_with_the_term_cut_off_is_the_statements_term():
    statement = "In the figure, the line AO is not a radius of a circle. True or False?"
    reply = (
        "A radius of a circle is a line segment that connects the center of the circle to a point on it.\n\n"
        "Point O is labeled as the center of the circle, and A lies on the circle. Given this information, we can "
        "conclude that AO indeed meets the criteria for being"
    )
    assert tf(reply, statement) is False
    # near miss: cut off before what AO meets
    assert tf(reply.replace("indeed meets the criteria for being", "meets"), statement) is None


def test_a_subject_that_is_not_the_statements_is_not_replaced():
    """ "it is evident that ..." is no reference to the figure."""
    statement = "There is a quadrilateral ABCD in this figure. True or False?"
    reply = (
        "We look at the figure. The figure shows points A, B, C and D. They are joined by lines.\n\nUpon examining "
        "the figure, it is evident that a quadrilateral needs four sides"
    )
    assert tf(reply, statement) is None


# ----------------------------------------------------------------------------- the statement's words, otherwise


def test_points_listed_one_by_one_are_the_statements_label():
    statement = "There is no quadrilateral NAMP in this figure. True or False?"
    reply = (
        "The figure depicts a triangle ABC. The points M, N, P lie on its sides. We check NAMP.\n\nUpon examining the figure, we can see "
        "that the points N, A, M, and P do not form a closed shape with four sides. Therefore, we can conclude that there is"
    )
    assert tf(reply, statement) is True
    assert tf(reply.replace("N, A, M, and P", "N, B, M, and P"), statement) is None  # another four points


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        ("the left and right sides of the structure are mirror images", True),
        ("the left and right sides of the structure are not mirror images", False),
        ("the structure is symmetrical about the vertical line", True),
    ],
)
def test_mirror_images_are_reflectional_symmetry(evidence, verdict):
    assert tf(SETUP + "Upon reflection, we observe that " + evidence, SYMMETRY) is verdict


def test_a_line_that_stays_above_the_other_does_not_intersect_it():
    statement = "In the figure, the two lines do not intersect between 1950 and 1960. True or False?"
    setup = "1. In 1950, the orange line is at 32%.\n2. The blue line is at 28% in 1950 and 27% in 1960.\n\n"
    assert (
        tf(
            setup + "We can see that the orange line is consistently above the blue line between 1950 and 1960.",
            statement,
        )
        is True
    )
    # near misses: "generally above", or above until it crosses
    assert (
        tf(setup + "We can see that the orange line is generally above the blue line between 1950 and 1960.", statement)
        is None
    )
    assert (
        tf(setup + "We can see that the orange line remains above the blue line until 1955, then drops.", statement)
        is None
    )


def test_a_latin_plural_and_its_singular_share_a_stem():
    assert _stem("vertices") == _stem("vertex") and _stem("matrices") == _stem("matrix")
    assert _stem("devices") == _stem("device") and _stem("bars") == "bar"
    statement = "H and O are not attached to opposite vertices of the hexagonal structure. True or False?"
    reply = (
        "The hexagonal structure has six carbon atoms.\n\nUpon examining the diagram, it is evident that the oxygen "
        "atom is not attached to a vertex opposite any of the hydrogen atoms. Instead, it is bonded to"
    )
    assert tf(reply, statement) is True


# ----------------------------------------------------------------------------- where in a chain of thought


LINES = "In the figure, the two lines do not intersect between X values 0 and 200. True or False?"


def test_the_last_complete_sentence_before_the_cut_decides():
    reply = (
        "To determine whether the two lines intersect, we need to examine the figure.\n\nThe blue line starts lower "
        "than the red line at X=0.\n\nThere is no point within this range where the blue line crosses or intersects "
        "the red line.\n\nTherefore, based on"
    )
    assert tf(reply, LINES) is True
    # near misses: a last complete sentence that is evidence, or a heading, says nothing
    evidence = reply.replace(
        "There is no point within this range where the blue line crosses or intersects the red line.",
        "Both lines rise.",
    )
    assert tf(evidence, LINES) is None
    assert tf(evidence.replace("Therefore, based on", "**Conclusion**\n\nTherefore, based on"), LINES) is None


def test_a_cut_off_last_sentence_counts_only_when_it_names_every_word():
    statement = "There is a triangle EBD in the figure. True or False?"
    reply = (
        "**Step 3: Determine if the edges are connected.**\n\nThe edges EB, BD, and DE are explicitly connected.\n\n"
        "**Step 4: Conclusion.**\n\nThe triangle EBD meets the definition of a polygon with three edges (EB, BD, and DE)"
    )
    assert tf(reply, statement) is True
    statement = "In the figure, the lines for T=0.25 and T=0.40 intersect between X values 30 and 40. True or False?"
    reply = (
        "To determine if the lines intersect, we analyze the graph.\n\n* The brown line starts higher at X=0.\n"
        "* Both lines decrease in y-value.\n* The brown line (T=0.25) intersects the pink line (T=0."
    )
    assert tf(reply, statement) is None  # where it intersects is cut off


ESTONIA = "In the figure, the lines for Estonia and Lebanon do not intersect between 2008 and 2010. True or False?"
CUT = (
    "* The line for Estonia starts at $30,000.\n* The line for Lebanon starts at $40,000.\n\n"
    "**Conclusion**: Based on the graph, it is evident that "
)


@pytest.mark.parametrize(
    ("tail", "verdict"),
    [
        ("the lines for Estonia and Lebanon do not", True),  # "do not [intersect between 2008 and 2010]"
        ("they don't", True),
        ("the lines for Estonia and Lebanon do", None),  # a bare "do" may go on "do not": no verdict
        ("the lines for Estonia and Lebanon do not appear", None),  # cut off after another verb
        ("the line for Estonia does not", None),  # not the statement's subject
    ],
)
def test_a_predicate_elided_at_the_cut_is_the_statements(tail, verdict):
    assert tf(CUT + tail, ESTONIA) is verdict
    if verdict is not None:
        negated = ESTONIA.replace("do not intersect", "intersect")
        assert tf(CUT + tail, negated) is (not verdict)


# ----------------------------------------------------------------------------- what states nothing


def test_evidence_for_a_term_is_not_the_term():
    """The reply gives a diameter's defining property, never the verdict: it stays unread."""
    statement = "In the figure, the line BC is not a diameter of a circle. True or False?"
    reply = (
        "**Analysis:**\n\n* A diameter of a circle is a line segment that passes through the center of the circle.\n"
        "* In this figure, line BC does not pass through the center of the circle.\n\n* Therefore, we look at point"
    )
    assert tf(reply, statement) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "If the molecule looks the same when reflected across this axis, it has reflectional symmetry along that axis.",
        "We need to check if there is a vertical axis that divides the structure into two identical halves.",
        "**Definition of Symmetry:** A structure has reflectional symmetry when its halves are mirror images.",
        "The definition of reflectional symmetry requires that the structure has two identical halves.",
    ],
)
def test_a_conditional_a_plan_or_a_definition_states_nothing(sentence):
    assert (
        tf(
            "We look at the structure.\n\n"
            + sentence
            + "\n\nLooking at the structure, one side has a methyl group while the",
            SYMMETRY,
        )
        is None
    )


def test_a_reply_cut_off_before_its_verdict_stays_unread():
    statement = "There is no triangle CAB in the figure. True or False?"
    reply = (
        "A triangle is a polygon with three edges and three vertices.\n\n**Step 1: Identify the Vertices**\nThe figure "
        "shows points A, B, and C.\n\n**Step 2: Check the Edges**\nAll three edges (AB, BC, and CA) are explicitly "
        "connected in the figure.\n\n**Conclusion"
    )
    assert tf(reply, statement) is None


# ----------------------------------------------------------------------------- found on VisOnlyQA's other replies
# (the rules above, run on all 5,000 released true/false chains of thought, read these wrong at first)

DIAMETER = "In the figure, the line AB is a diameter of a circle. True or False?"
STEPS = (
    "**Step 1: Understand the Question**\nThe question asks whether line AB is a diameter.\n\n**Step 2: Analyze the "
    "Figure**\nLine AB connects points A and B on the circle's circumference.\n\n**Step 3: Conclusion**\n"
)


def test_a_premise_and_its_conclusion_are_read_apart():
    """Two negations in two clauses do not cancel: "Since AB does not pass ..., it cannot be a diameter" is False."""
    reply = STEPS + "Since line AB does not pass through the center of the circle, it cannot be considered a diameter"
    assert tf(reply, DIAMETER) is False
    statement = "In the figure, the lines for T=0.25 and T=0.40 intersect between X values 30 and 40. True or False?"
    reply = (
        "* The line for T=0.25 is above the line for T=0.40 at X=30.\n* It is below it at X=40.\n\nGiven that the "
        "lines are not parallel and their positions change, it indicates an intersection point within this range.\n\n"
        "**Conclusion**\n\nThe lines for"
    )
    assert tf(reply, statement) is not False  # the "not" of "not parallel" is no denial of the intersection


@pytest.mark.parametrize(
    "sentence",
    [
        "For a triangle ABC to exist, there must be a direct connection between A and C, along with edges",
        "In a circle, the diameter is a line segment that passes through the center of the circle.",
        "The center is not marked, but for AB to be a diameter, it must pass through the center.",
    ],
)
def test_a_requirement_or_the_terms_definition_says_nothing_of_the_figure(sentence):
    statement = DIAMETER if "diameter" in sentence else "There is no triangle ABC in the figure. True or False?"
    assert (
        tf(STEPS.replace("**Step 3: Conclusion**\n", "") + sentence + "\n\n* The diameter is also", statement) is None
    )


def test_having_no_mirror_images_is_no_symmetry():
    statement = SYMMETRY.replace("has reflectional", "does not have reflectional")
    reply = SETUP + "Upon examining the structure, we can see that it does not have any reflections or mirror images."
    assert tf(reply, statement) is True
