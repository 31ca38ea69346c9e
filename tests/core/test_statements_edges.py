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
