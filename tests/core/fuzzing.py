"""Helpers of the property-based (hypothesis) fuzz tests: counted runs and answer-like text.

Each fuzz test runs a hypothesis property until the function under test has seen at least
``MIN_INPUTS`` generated inputs (one example draws a batch of inputs, which keeps hypothesis'
per-example cost low), and asserts the count, so "at least 10,000 inputs" is checked, not assumed.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

MIN_INPUTS = 10_000
COUNTS: collections.Counter[str] = collections.Counter()

# a fixed budget: no example database in the work tree, no deadline on a shared 2-core machine
FUZZ = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def run_counted(name: str, prop: Callable[[], None], minimum: int = MIN_INPUTS) -> int:
    """Run the hypothesis property ``prop`` until ``COUNTS[name]`` reaches ``minimum``; return the count."""
    start = COUNTS[name]
    for _ in range(200):
        prop()
        if COUNTS[name] - start >= minimum:
            return COUNTS[name] - start
    raise AssertionError(f"{name}: only {COUNTS[name] - start} inputs generated, expected {minimum}")


# Pieces models really write around answers, so the fuzzer reaches the parsers' branches, not only
# the "nothing recognisable" exit that random unicode mostly hits.
FRAGMENTS = [
    "Answer:", "answer is", "The correct option is", "**Answer**:", "'Answer':", "<think>", "</think>",
    "A", "B", "c", "(d)", "E.", "F", "I", "ii", "III.", "iv)", "V", "x", "None", "none of them", "a cat", "I think",
    "True", "false", "not true", "Yes", "no", "nope", "incorrect", "correct", "never", "n't",
    "Object: 'dog'", "layer1", ";", ",", "and", "or", "\n", "1.", "2)", "-", "*", "\u2022",
    "[", "]", "(", ")", "[]", "(10, 20, 30, 40)", "[1.5, 2, 3e2, -4]", "1e400", "-0", "nan", "inf", "0x1F",
    "\u2018", "\u201c", "`", "\x00", "\x7f", "\u0301", "\ufb01", "\U0001f600", " ", "  ", "\t",
]  # fmt: skip

answer_text = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=12).map(" ".join),
    st.lists(st.sampled_from(FRAGMENTS), max_size=8).map("".join),
    st.text(max_size=60),
    st.text(alphabet="ABCDEIVXabcdeivx.,;:()[] 0123456789\n", max_size=40),
)
# what a harness may hand a parser instead of a string
any_reply = st.one_of(
    answer_text,
    st.none(),
    st.integers(),
    st.floats(),
    st.binary(max_size=30),
    st.lists(answer_text, max_size=3),
    st.builds(lambda s: s * 50, answer_text),  # long replies
)


def batch(strategy: st.SearchStrategy, size: int = 40) -> st.SearchStrategy:
    return st.lists(strategy, min_size=size, max_size=size)
