"""Property-based fuzzing of the color-term reader (core/colors.py), the judge-verdict readers
(judge/verdicts.py) and Cohen's kappa (judge/agreement.py): at least 10,000 distinct generated inputs each
(counted after the call returned and passed its checks, asserted), no exception, results within range."""

from __future__ import annotations

import math

from fuzzing import FRAGMENTS, FUZZ, any_reply, rng_for, run_until, seen
from hypothesis import given
from hypothesis import strategies as st

from ambi_plugin.core.colors import BASIC_COLORS, ColorTerm, color_matches, parse_color_term
from ambi_plugin.judge.agreement import cohen_kappa
from ambi_plugin.judge.verdicts import clean_reply, read_binary_digit, read_option, read_rating, read_true_false

seeds = st.integers(0, 2**32 - 1)
reply_pool = st.lists(any_reply, min_size=1, max_size=8)
COLOR_WORDS = [*BASIC_COLORS, "grey", "crimson", "greenish", "yellowish", "bluish", "reddish", "light", "dark",
               "pale", "not", "no", "-", " ", "and", "or", "isn't", "Yellowish-green", "GREEN", "navy"]  # fmt: skip
VERDICT_WORDS = ["True", "false", "Yes", "no", "0", "1", "2", "3", "10", "0.5", "correct", "incorrect", "not true",
                 "A", "(b)", "C.", "Answer: D", "None", "n/a", "option E", "<think>", "</think>", "**", "`"]  # fmt: skip


def _splice(rng, pool: list, words: list[str]) -> object:
    """A reply from the pool, alone or (mostly) with a few words put around it."""
    reply = rng.choice(pool)
    if not isinstance(reply, str) and rng.random() < 0.5:
        return reply  # None, a number, bytes, a list: as a harness may hand it over
    bits = [rng.choice(words) for _ in range(rng.randint(1, 4))] + [str(reply)]
    rng.shuffle(bits)
    return rng.choice([" ", "", "\n"]).join(bits)


def test_fuzz_parse_color_term():
    """None, or a basic hue with an optional different modifier; its own name reads back as itself and matches
    itself and its plain hue; the same name negated ("not ...") reads as no color."""

    @FUZZ
    @given(reply_pool, seeds)
    def prop(pool, seed):
        rng = rng_for(pool, seed)
        for _ in range(60):
            text = _splice(rng, pool, COLOR_WORDS)
            term = parse_color_term(text)
            assert term is None or isinstance(term, ColorTerm)
            if term is not None:
                assert term.hue in BASIC_COLORS and term.modifier in (None, *BASIC_COLORS) and term.modifier != term.hue
                assert parse_color_term(str(term)) == term, (text, term)
                assert color_matches(term, [str(term)]) and color_matches(term, [term.hue])
                assert parse_color_term(f"not {term}") is None
            seen("parse_color_term", text)

    assert run_until(("parse_color_term",), prop)["parse_color_term"] >= 10_000


def test_fuzz_judge_verdict_readers():
    """read_true_false / read_binary_digit: a bool or None; read_rating: 0, 1, 2 or None; read_option: an index
    in range, -1 (no option) or None; a think block before the reply never changes a verdict."""

    @FUZZ
    @given(reply_pool, seeds)
    def prop(pool, seed):
        rng = rng_for(pool, seed)
        for _ in range(60):
            reply = _splice(rng, pool, VERDICT_WORDS)
            n = rng.choice([rng.randint(1, 8), rng.randint(-2, 30)])
            thought = "<think>" + " ".join(rng.choice(VERDICT_WORDS) for _ in range(rng.randint(0, 5))) + "</think>"
            if "</think>" in thought[7:-8].lower():
                thought = ""
            text = clean_reply(reply)
            assert isinstance(text, str) and len(text) <= 4000
            for name, read, allowed in (
                ("read_true_false", read_true_false, (True, False, None)),
                ("read_binary_digit", read_binary_digit, (True, False, None)),
                ("read_rating", read_rating, (0.0, 1.0, 2.0, None)),
            ):
                got = read(reply)
                assert got in allowed and (got is None or type(got) is type(allowed[0])), (name, reply, got)
                if isinstance(reply, str):
                    assert read(thought + reply) == got, (name, thought, reply)
                seen(name, reply)
            got = read_option(reply, n)
            assert got is None or got == -1 or 0 <= got < n, (reply, n, got)
            if isinstance(reply, str):
                assert read_option(thought + reply, n) == got
            seen("read_option", reply, n)

    names = ("read_true_false", "read_binary_digit", "read_rating", "read_option")
    counts = run_until(names, prop)
    assert min(counts.values()) >= 10_000, counts


def test_fuzz_cohen_kappa():
    """NaN, or in [-1, 1]; symmetric; 1 for a labelling with itself (unless one label only: NaN); a ValueError,
    nothing else, for unpaired sequences."""

    @FUZZ
    @given(st.lists(st.sampled_from([0, 1, 2, "a", "b", None, True, 2.5]), min_size=1, max_size=6), seeds)
    def prop(labels, seed):
        rng = rng_for(labels, seed)
        for _ in range(60):
            n = rng.randint(0, 40)
            a = [rng.choice(labels) for _ in range(n)]
            b = [rng.choice(labels) if rng.random() < 0.5 else x for x in a]
            k = cohen_kappa(a, b)
            assert math.isnan(k) or -1.0 - 1e-12 <= k <= 1.0 + 1e-12, (a, b, k)
            assert k == cohen_kappa(b, a) or (math.isnan(k) and math.isnan(cohen_kappa(b, a)))
            self_k = cohen_kappa(a, a)
            assert (math.isnan(self_k) and len(set(a)) <= 1) or self_k == 1.0, (a, self_k)
            seen("cohen_kappa", a, b)
            if n:
                try:
                    cohen_kappa(a, b[:-1])
                except ValueError as exc:
                    assert "paired labels" in str(exc)
                else:
                    raise AssertionError("unpaired labels accepted")

    assert run_until(("cohen_kappa",), prop)["cohen_kappa"] >= 10_000


def test_fragments_reach_the_color_and_verdict_words():
    """The shared answer fragments hold color and verdict words, so the parser fuzzing reaches those branches."""
    assert {"red", "Greenish-yellow", "not red", "0", "1", "2", "Not Sure"} <= set(FRAGMENTS)
