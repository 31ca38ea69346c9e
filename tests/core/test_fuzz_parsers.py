"""Property-based fuzzing of every answer parser (core/parsing/, and VIA-Bench's Match regex): at least
10,000 distinct generated inputs each (counted after the call, asserted), no exception, no bug hidden by the
parsers' last-resort guard, and results of the promised type and range."""

from __future__ import annotations

import math
import random

from fuzzing import FRAGMENTS, FUZZ, any_reply, rng_for, run_until, seen
from hypothesis import given
from hypothesis import strategies as st

from ambi_plugin.benchmarks.viabench.match import match_label
from ambi_plugin.core import parsing as P
from ambi_plugin.core.colors import ColorTerm
from ambi_plugin.core.schema import ANSWER_FORMATS


def check(p: P.Parsed) -> None:
    """A parse result, never an exception turned into one by the ``_total`` guard."""
    assert isinstance(p, P.Parsed)
    assert not p.reason.startswith("parser_error"), p.reason
    if not p.ok:
        assert p.value is None and p.reason


big = st.sampled_from(["9" * 400, "1" + "0" * 309, "-" + "9" * 320, "0.0000001"])
coords = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32).map(str), st.integers().map(str), big)
box_text = st.lists(st.tuples(coords, coords, coords, coords), max_size=4).map(
    lambda bs: "[" + ", ".join("(" + ", ".join(b) + ")" for b in bs) + "]"
)
# An example draws a pool of replies and a seed; a random generator with that seed builds the
# example's 60 cases from the pool (replies alone or, mostly, spliced with answer fragments) and fresh option
# settings: every parser sees each case (generation, not parsing, is what costs time).
reply_pool = st.lists(st.one_of(any_reply, box_text), min_size=1, max_size=8)
seeds = st.integers(0, 2**32 - 1)
SEPS = [",", ";", "|", "", " and "]
FORMATS = [*ANSWER_FORMATS, "nonsense", ""]


def make_case(rng: random.Random, pool: list) -> tuple:
    text = rng.choice(pool)
    if not isinstance(text, str) and rng.random() < 0.5:
        text = str(text)  # a non-text reply (None, a number, bytes, a list) also as the text it prints
    if isinstance(text, str) and rng.random() < 0.9:
        bits = [rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 4))] + [text]
        rng.shuffle(bits)
        text = rng.choice([" ", "", "\n"]).join(bits)
    n = rng.choice([rng.randint(1, 8), rng.randint(-3, 40)])
    opts = None if rng.random() < 0.5 else [rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 6))]
    none_index = None if rng.random() < 0.5 else rng.randint(0, 7)
    return (text, n, rng.choice(P.OPTION_STYLES), opts, none_index, rng.choice(["true_false", "yes_no"]),
            rng.choice(SEPS), rng.choice(FORMATS))  # fmt: skip


PARSERS = ("parse_choice", "parse_letter_set", "parse_bool", "parse_list", "parse_layers", "parse_object",
           "parse_free", "parse_boxes", "parse_color", "parse_answer", "extract_answer_marker",
           "match_label")  # fmt: skip


def check_choice(p: P.Parsed, n: int, opts: list | None) -> None:
    check(p)
    if p.ok:
        limit = n if n > 0 else len(opts or [])
        assert p.value == -1 or 0 <= p.value < limit, (n, p)
        assert (p.value == -1) == (p.reason == "out_of_range")


def check_letter_set(p: P.Parsed, n: int) -> None:
    check(p)
    if p.ok:
        assert isinstance(p.value, frozenset) and all(isinstance(i, int) and i >= 0 for i in p.value)
        if p.reason not in ("out_of_range", "none"):
            assert all(i < n for i in p.value)


def check_open(text, sep: str) -> None:
    p = P.parse_list(text, sep=sep)
    check(p)
    if p.ok:
        assert p.value and all(isinstance(x, str) and x for x in p.value)
    seen("parse_list", text, sep)
    p = P.parse_layers(text)
    check(p)
    if p.ok:
        assert any(p.value) and all(isinstance(x, str) and x for layer in p.value for x in layer)
    seen("parse_layers", text)
    p = P.parse_object(text)
    check(p)
    if p.ok:
        assert isinstance(p.value, str) and p.value == p.value.lower()
    seen("parse_object", text)
    p = P.parse_free(text)
    check(p)
    if p.ok:
        assert isinstance(p.value, str) and p.value == p.value.strip() and p.value
    seen("parse_free", text)
    p = P.parse_color(text)
    check(p)
    if p.ok:
        assert isinstance(p.value, ColorTerm) and p.value.modifier != p.value.hue
    seen("parse_color", text)


def check_match(text, n: int, opts: list | None) -> None:
    """VIA-Bench Match: an option in range, -1 for a label beyond the options, or nothing; never an error."""
    options = n if opts is None else opts
    m = match_label(text, options)
    count = n if opts is None else len(opts)
    assert not m.reason.startswith("error"), m
    assert m.index is None or m.index == -1 or 0 <= m.index < count, (m, count)
    if m.index is not None and m.index >= 0:
        assert m.label == chr(ord("A") + m.index)
    seen("match_label", text, options)


def check_boxes(p: P.Parsed) -> None:
    check(p)
    if p.ok:
        for x1, y1, x2, y2 in p.value:
            assert x1 <= x2 and y1 <= y2
            assert not any(math.isnan(v) for v in (x1, y1, x2, y2))


def test_fuzz_every_parser():
    @FUZZ
    @given(reply_pool, seeds)
    def prop(pool, seed):
        rng = rng_for(pool, seed)
        for _ in range(60):
            text, n, style, opts, none_index, kind, sep, fmt = make_case(rng, pool)
            check_choice(P.parse_choice(text, n, style=style, options=opts), n, opts)
            seen("parse_choice", text, n, style, opts)
            check_letter_set(P.parse_letter_set(text, n, none_index=none_index), n)
            seen("parse_letter_set", text, n, none_index)
            p = P.parse_bool(text, kind=kind)
            check(p)
            assert not p.ok or isinstance(p.value, bool)
            seen("parse_bool", text, kind)
            check_open(text, sep)
            check_boxes(P.parse_boxes(text))
            seen("parse_boxes", text)
            p = P.parse_answer(text, fmt, n_options=max(n, 1))
            check(p)
            if fmt not in ANSWER_FORMATS:
                assert not p.ok and p.reason.startswith("unknown_format")
            seen("parse_answer", text, fmt, max(n, 1))
            marker = P.extract_answer_marker(text)
            assert marker is None or isinstance(marker, str)
            seen("extract_answer_marker", text)
            check_match(text, n, opts)

    counts = run_until(PARSERS, prop)
    assert min(counts.values()) >= 10_000, counts
