"""Property-based fuzzing of core/answers.py (reference answers read back through the parsers and
``score_item``) and core/coords.py (box coordinate systems): at least 10,000 distinct generated inputs each,
counted after each call returned and passed its checks."""

from __future__ import annotations

import math
import random

import pytest
from fuzzing import FUZZ, run_until, seen
from hypothesis import given
from hypothesis import strategies as st

from ambi_plugin.core import coords as C
from ambi_plugin.core.answers import GARBAGE, gold_response, reference_response, wrong_response
from ambi_plugin.core.schema import validate_record
from ambi_plugin.core.scoring import score_item

seeds = st.integers(0, 2**32 - 1)
WORDS = ["cat", "dog", "A", "b", "None", "True", "ii", "the left one", "Answer: C", "x", "7", "(10, 20, 30, 40)"]


def make_record(rng: random.Random, k: int) -> dict:
    """A valid record of a task type scored without a judge."""
    ttype = rng.choice(["choice", "multi_choice", "true_false", "yes_no", "localization", "perception"])
    rec: dict = {"id": f"f{k}", "benchmark": "fuzz", "category": "fuzz", "task_type": ttype}
    n = rng.randint(2, 8)
    options = [f"{rng.choice(WORDS)} {i}" for i in range(n)]
    if ttype in ("choice", "perception"):
        rec.update(options=options, answer_index=rng.randrange(n), option_style=rng.choice(["letter", "roman"]))
        if ttype == "perception":
            rec.update(pixel_answer_index=rng.randrange(n), human_answer_index=rng.randrange(n),
                       is_illusion=rng.random() < 0.5, prompt_kind=rng.choice(["pixel", "human", "neutral"]))  # fmt: skip
    elif ttype == "multi_choice":
        none_index = n - 1
        gold = sorted(rng.sample(range(n - 1), rng.randint(0, n - 1)))
        rec.update(options=options, answer_indices=gold, none_index=none_index)
    elif ttype in ("true_false", "yes_no"):
        rec["answer_bool"] = rng.random() < 0.5
    else:
        boxes = []
        for _ in range(rng.randint(1, 3)):
            x, y = rng.randint(0, 400), rng.randint(0, 400)
            boxes.append({"label": "o", "box": [x, y, x + rng.randint(5, 200), y + rng.randint(5, 200)]})
        rec["boxes"] = boxes
    return validate_record(rec)


def test_fuzz_reference_answers_score_as_meant():
    """gold scores correct, garbage is unparsed, wrong is not correct (except where the record leaves no
    wrong option: a perception item whose three answers cover every option)."""

    @FUZZ
    @given(seeds)
    def prop(seed):
        rng = random.Random(seed)
        for k in range(70):
            rec = make_record(rng, k)
            key = {f: v for f, v in rec.items() if f != "id"}  # the same record under another id is no new input
            gold = score_item(rec, gold_response(rec))
            assert gold["parsed"] and gold["correct"], (rec, gold_response(rec), gold)
            seen("gold_response", key)
            wrong = score_item(rec, wrong_response(rec))
            assert wrong["parsed"] and not wrong["correct"], (rec, wrong_response(rec), wrong)
            seen("wrong_response", key)
            garbage = score_item(rec, reference_response(rec, "garbage"))
            assert reference_response(rec, "garbage") == GARBAGE and not garbage["parsed"]
            seen("reference_response", key)

    counts = run_until(("gold_response", "wrong_response", "reference_response"), prop)
    assert min(counts.values()) >= 10_000, counts


def test_reference_response_rejects_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        reference_response(make_record(random.Random(0), 0), "best")  # type: ignore[arg-type]


def test_fuzz_coordinate_systems():
    """smart_resize, scale_factors, to/from_original_pixels, with_model_settings, box_format_of."""

    @FUZZ
    @given(seeds)
    def prop(seed):
        rng = random.Random(seed)
        for _ in range(50):
            h, w = rng.choice([rng.randint(-5, 0), rng.randint(1, 60), rng.randint(1, 8000)]), rng.randint(1, 8000)
            lo = rng.choice([C.QWEN_MIN_PIXELS, rng.randint(1, 10**6)])
            hi = rng.choice([C.QWEN_MAX_PIXELS, rng.randint(1, 10**7)])
            try:
                rh, rw = C.smart_resize(h, w, min_pixels=lo, max_pixels=hi)
            except C.BoxFormatError:  # its documented answer to a bad size: counts as a handled input
                assert h <= 0 or lo > hi
            else:
                assert rh % C.QWEN_FACTOR == 0 and rw % C.QWEN_FACTOR == 0 and rh > 0 and rw > 0
            seen("smart_resize", h, w, lo, hi)
            fmt = rng.choice([*C.BOX_FORMATS, "pixels", None])
            kwargs = {
                "box_format": fmt,
                "min_pixels": rng.choice([None, 3136]),
                "max_pixels": rng.choice([None, 10**6]),
            }
            rec = {"id": "c", "image_size": [rng.randint(1, 4000), rng.randint(1, 4000)]}
            try:
                scored = C.with_model_settings(rec, kwargs)
            except C.BoxFormatError:  # its documented answer to an unknown format: a handled input
                assert fmt not in C.BOX_FORMATS
                seen("with_model_settings", rec, kwargs)
                continue  # nothing below runs, and nothing below is counted
            seen("with_model_settings", rec, kwargs)
            assert C.box_format_of(scored) == (fmt or "absolute")
            seen("box_format_of", scored)
            sx, sy = C.scale_factors(scored)
            assert sx > 0 and sy > 0 and math.isfinite(sx) and math.isfinite(sy)
            seen("scale_factors", scored)
            boxes = [[rng.uniform(0, 1000) for _ in range(4)] for _ in range(rng.randint(0, 3))]
            out = C.to_original_pixels(boxes, scored)
            assert len(out) == len(boxes)
            seen("to_original_pixels", boxes, scored)
            for orig, back in zip(boxes, out):
                again = C.from_original_pixels(back, scored)
                assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(orig, again))
                seen("from_original_pixels", back, scored)

    names = ("smart_resize", "with_model_settings", "box_format_of", "scale_factors", "to_original_pixels",
             "from_original_pixels")  # fmt: skip
    counts = run_until(names, prop)
    assert min(counts.values()) >= 10_000, counts
