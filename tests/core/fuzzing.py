"""Helpers of the property-based (hypothesis) fuzz tests: distinct inputs counted, and answer-like text.

Hypothesis draws each example; one example draws a batch of inputs (a pool and a seed that builds 40 cases
from it), which keeps hypothesis' per-example cost low. A test records every input *after* the call on it
returned and its checks passed (:func:`seen`), as the ``repr`` of the arguments, so an input counts once
however often it is drawn, and a call that raised or was skipped never counts. :func:`run_until` runs the
property until every function named has seen ``MIN_INPUTS`` distinct inputs and returns the counts, which
the tests assert: "at least 10,000 distinct inputs per function" is checked, not assumed.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

MIN_INPUTS = 10_000
SEEN: collections.defaultdict[str, set[int]] = collections.defaultdict(set)

# a fixed budget: no example database in the work tree, no deadline on a shared 2-core machine
FUZZ = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def seen(names: str | Sequence[str], *inputs: object) -> None:
    """Count ``inputs`` as one input that the function ``names`` (or each of several) handled; call it after
    the call and its checks."""
    key = hash(repr(inputs))
    for name in [names] if isinstance(names, str) else names:
        SEEN[name].add(key)


def rng_for(*drawn: object) -> random.Random:
    """A generator seeded with everything an example drew (hypothesis repeats single draws across examples)."""
    return random.Random(repr(drawn))


def run_until(names: Sequence[str], prop: Callable[[], None], minimum: int = MIN_INPUTS) -> dict[str, int]:
    """Run the hypothesis property ``prop`` until every function in ``names`` has seen ``minimum`` distinct
    inputs (counted from zero); return the distinct count of each."""
    for name in names:
        SEEN[name].clear()
    counts: dict[str, int] = {}
    for rounds in range(1, 11):
        prop()
        counts = {name: len(SEEN[name]) for name in names}
        if min(counts.values()) >= minimum:
            print(f"{rounds} round(s) of hypothesis examples; distinct inputs: {counts}")  # shown with pytest -s
            return counts
    raise AssertionError(f"fewer than {minimum} distinct inputs after 10 rounds: {counts}")


# Pieces models really write around answers, so the fuzzer reaches the parsers' branches, not only
# the "nothing recognisable" exit that random unicode mostly hits.
FRAGMENTS = [
    "Answer:", "answer is", "The correct option is", "**Answer**:", "'Answer':", "<think>", "</think>",
    "A", "B", "c", "(d)", "E.", "F", "I", "ii", "III.", "iv)", "V", "x", "None", "none of them", "a cat", "I think",
    "True", "false", "not true", "Yes", "no", "nope", "incorrect", "correct", "never", "n't", "0", "1", "2", "3",
    "Object: 'dog'", "layer1", ";", ",", "and", "or", "\n", "1.", "2)", "-", "*", "\u2022", "[B]", "Not Sure",
    "red", "Greenish-yellow", "light blue", "grey", "not red", "pinkish", "yellow-green", "Final answer is",
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
