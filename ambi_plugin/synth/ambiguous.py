"""Object-level ambiguous images with open answers: hybrid images, multi-view glyphs and Navon figures.

* hybrid: ``lowpass(B) + highpass(A)`` (AmbiBench's ``x = (x - G_sigma(x)) + G_sigma(x)`` split) of two
  shape images; near (fine detail) = A, far = B;
* multi-view: a glyph whose reading changes under rotation (6/9, M/W, N/Z, u/n, b/q, d/p, arrows,
  triangles); the image shows the upright glyph;
* Navon: a large block letter (layer 1) made of many small copies of another letter (layer 2).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .common import BuildContext, base_record
from .glyphs import letter_label, navon_mask, pick_navon_pair, text_mask
from .imaging import blank, gaussian_blur, paint, to_uint8
from .shapes import CONFUSABLE, SHAPES, shape_label, shape_mask

HYBRID_SIZE = 256
HYBRID_SHAPE_FRACTION = 0.7


# --------------------------------------------------------------------------------------------------
# Hybrid
# --------------------------------------------------------------------------------------------------


def hybrid_source(name: str, size: int = HYBRID_SIZE) -> np.ndarray:
    """A canonical float image in [0, 1] of shape ``name``: 0 (dark) shape, centred on a 1 (light) ground."""
    mask = shape_mask(name, int(size * HYBRID_SHAPE_FRACTION))
    img = np.ones((size, size), dtype=np.float64)
    y = (size - mask.shape[0]) // 2
    x = (size - mask.shape[1]) // 2
    img[y : y + mask.shape[0], x : x + mask.shape[1]][mask] = 0.0
    return img


def hybrid_image(near: np.ndarray, far: np.ndarray, sigma_low: float, sigma_high: float) -> np.ndarray:
    """``G_low(far) + (near - G_high(near))``, as a float image (about [0, 1])."""
    low = gaussian_blur(far, sigma_low)
    high = near - gaussian_blur(near, sigma_high)
    return 0.25 + 0.5 * low + 1.3 * high


def _hybrid_pair(rng: np.random.Generator) -> tuple[str, str]:
    while True:
        a, b = (SHAPES[int(j)] for j in rng.choice(len(SHAPES), size=2, replace=False))
        if frozenset((a, b)) not in CONFUSABLE:
            return a, b


def _tint(gray: np.ndarray, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    g = np.clip(gray, 0.0, 1.0)[..., None]
    return to_uint8(dark[None, None, :] * (1.0 - g) + light[None, None, :] * g)


def generate_hybrid(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_hybrid_open"
    for i in ctx.indices():
        rng = ctx.rng("hybrid", i)
        near, far = _hybrid_pair(rng)
        sigma_low = round(float(rng.uniform(6.0, 8.0)), 2)
        sigma_high = round(float(rng.uniform(2.0, 3.0)), 2)
        gray = hybrid_image(hybrid_source(near), hybrid_source(far), sigma_low, sigma_high)
        dark = rng.uniform(0, 60, size=3)
        light = rng.uniform(200, 255, size=3)
        image = ctx.save_image(_tint(gray, dark, light), "hybrid", i)
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="hybrid",
                    task_type="open",
                    answer_format="comma_list",
                    image=image,
                    views=[
                        {"name": "near", "labels": [shape_label(near)]},
                        {"name": "far", "labels": [shape_label(far)]},
                    ],
                    views_positional=True,
                    breakdown={"near": near, "far": far},
                    hybrid_near=near,
                    hybrid_far=far,
                    hybrid_sigma_low=sigma_low,
                    hybrid_sigma_high=sigma_high,
                )
            ),
        )
        ctx.tick()


# --------------------------------------------------------------------------------------------------
# Multi-view
# --------------------------------------------------------------------------------------------------

_UP = "up arrow|arrow pointing up|upward arrow|arrow up|upwards arrow"
_DOWN = "down arrow|arrow pointing down|downward arrow|arrow down|downwards arrow"
_LEFT = "left arrow|arrow pointing left|leftward arrow|arrow left|leftwards arrow"
_RIGHT = "right arrow|arrow pointing right|rightward arrow|arrow right|rightwards arrow"
_TRI_UP = "triangle pointing up|upward triangle|up triangle|upright triangle|upward-pointing triangle"
_TRI_DOWN = "triangle pointing down|downward triangle|down triangle|inverted triangle|upside-down triangle"
_DIGITS = {"6": "6|six|number 6|number six|digit 6", "9": "9|nine|number 9|number nine|digit 9"}


@dataclass(frozen=True)
class MultiViewGlyph:
    """A glyph, how it is drawn, and its readings upright and after ``rotation`` (clockwise)."""

    key: str
    kind: str  # "text" | "shape"
    draw: str  # the text, or the shape name
    quarter_turns: int  # counter-clockwise quarter turns applied to the shape mask (shapes only)
    rotation: str  # "rot90" (90 degrees clockwise) | "rot180"
    upright: str
    rotated: str


def _letter(c: str) -> str:
    return letter_label(c)


MULTIVIEW_GLYPHS: tuple[MultiViewGlyph, ...] = (
    MultiViewGlyph("digit-6", "text", "6", 0, "rot180", _DIGITS["6"], _DIGITS["9"]),
    MultiViewGlyph("digit-9", "text", "9", 0, "rot180", _DIGITS["9"], _DIGITS["6"]),
    MultiViewGlyph("letter-M", "text", "M", 0, "rot180", _letter("m"), _letter("w")),
    MultiViewGlyph("letter-W", "text", "W", 0, "rot180", _letter("w"), _letter("m")),
    MultiViewGlyph("letter-N", "text", "N", 0, "rot90", _letter("n"), _letter("z")),
    MultiViewGlyph("letter-Z", "text", "Z", 0, "rot90", _letter("z"), _letter("n")),
    MultiViewGlyph("letter-u", "text", "u", 0, "rot180", _letter("u"), _letter("n")),
    MultiViewGlyph("letter-n", "text", "n", 0, "rot180", _letter("n"), _letter("u")),
    MultiViewGlyph("letter-b", "text", "b", 0, "rot180", _letter("b"), _letter("q")),
    MultiViewGlyph("letter-d", "text", "d", 0, "rot180", _letter("d"), _letter("p")),
    MultiViewGlyph("arrow-up", "shape", "arrow", 1, "rot180", _UP, _DOWN),
    MultiViewGlyph("arrow-down", "shape", "arrow", 3, "rot180", _DOWN, _UP),
    MultiViewGlyph("arrow-left", "shape", "arrow", 2, "rot90", _LEFT, _UP),
    MultiViewGlyph("arrow-right", "shape", "arrow", 0, "rot90", _RIGHT, _DOWN),
    MultiViewGlyph("triangle-up", "shape", "triangle", 0, "rot180", _TRI_UP, _TRI_DOWN),
    MultiViewGlyph("triangle-down", "shape", "triangle", 2, "rot180", _TRI_DOWN, _TRI_UP),
)
ROTATION_TEXT = {"rot90": "90 degrees clockwise", "rot180": "180 degrees"}


def glyph_mask(glyph: MultiViewGlyph, size: int) -> np.ndarray:
    if glyph.kind == "text":
        return text_mask(glyph.draw, size)
    return shape_mask(glyph.draw, int(size * 0.8), rotate90=glyph.quarter_turns)


def generate_multiview(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_multiview_open"
    keys = ctx.cycled("multiview", [g.key for g in MULTIVIEW_GLYPHS])
    by_key = {g.key: g for g in MULTIVIEW_GLYPHS}
    for i, key in keys:
        glyph = by_key[key]
        rng = ctx.rng("multiview", i)
        canvas = blank(256, 256, [int(v) for v in rng.integers(215, 256, size=3)])
        mask = glyph_mask(glyph, int(rng.integers(150, 190)))
        if mask.shape[0] > 236 or mask.shape[1] > 236:
            raise RuntimeError(f"glyph {key} too large for its canvas: {mask.shape}")
        y = (256 - mask.shape[0]) // 2 + int(rng.integers(-8, 9))
        x = (256 - mask.shape[1]) // 2 + int(rng.integers(-8, 9))
        y, x = int(np.clip(y, 0, 256 - mask.shape[0])), int(np.clip(x, 0, 256 - mask.shape[1]))
        paint(canvas, mask, x, y, [int(v) for v in rng.integers(0, 90, size=3)])
        image = ctx.save_image(canvas, "multiview", i)
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="multiview",
                    task_type="open",
                    answer_format="comma_list",
                    image=image,
                    views=[
                        {"name": "upright", "labels": [glyph.upright]},
                        {"name": "rotated", "labels": [glyph.rotated]},
                    ],
                    views_positional=True,
                    prompt_vars={"rotation": glyph.rotation, "rotation_text": ROTATION_TEXT[glyph.rotation]},
                    breakdown={"rotation": glyph.rotation, "glyph": glyph.key},
                )
            ),
        )
        ctx.tick()


# --------------------------------------------------------------------------------------------------
# Navon
# --------------------------------------------------------------------------------------------------


def navon_views(global_letter: str, local_letter: str) -> list[dict]:
    """Layer 1 = the global (large) letter, layer 2 = the local (small) letter."""
    return [
        {"name": "layer1", "labels": [letter_label(global_letter)]},
        {"name": "layer2", "labels": [letter_label(local_letter)]},
    ]


def generate_navon(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_navon_open"
    for i in ctx.indices():
        rng = ctx.rng("navon", i)
        g, loc = pick_navon_pair(rng)
        mask = navon_mask(g, loc, int(rng.integers(28, 35)))
        canvas = blank(288, 288, [int(v) for v in rng.integers(220, 256, size=3)])
        y = (288 - mask.shape[0]) // 2 + int(rng.integers(-10, 11))
        x = (288 - mask.shape[1]) // 2 + int(rng.integers(-20, 21))
        y, x = int(np.clip(y, 0, 288 - mask.shape[0])), int(np.clip(x, 0, 288 - mask.shape[1]))
        paint(canvas, mask, x, y, [int(v) for v in rng.integers(0, 110, size=3)])
        image = ctx.save_image(canvas, "navon", i)
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="multiscene",
                    task_type="open",
                    answer_format="layers",
                    image=image,
                    views=navon_views(g, loc),
                    views_positional=True,
                    breakdown={"global": g, "local": loc},
                    navon_global=g,
                    navon_local=loc,
                )
            ),
        )
        ctx.tick()
