"""RCID-style color illusions (RCID section 3.1): contrast squares and stripes, with exact pixel answers.

Both generators follow the paper's procedural stage, ``p(C, mu) = (r * mu, g * mu, b * mu)`` clipped to
[0, 255], without the ControlNet step. Every pixel a question is about is drawn in exactly one flat color
(no anti-aliasing), so the pixel answer is exact; the human answer is the paper's *theoretical* label
(before human validation):

* contrast: a square on the brighter background half looks darker than the same square on the darker half;
* stripe: with equal stripe colors, the side whose black stripes are thicker looks darker (assimilation).

Illusion items have identical target colors (pixel answer "exactly same", human answer the theoretical
one); controls have clearly different target colors arranged so that perception and pixels agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .colormath import _far_color, _near_color, _random_color, luminance, rgb_distance, scale_color
from .common import BuildContext, base_record, rgb_list

CONTRAST_TASKS = ("ambi_synth_contrast_pixel", "ambi_synth_contrast_human")
STRIPE_TASKS = ("ambi_synth_stripe_pixel", "ambi_synth_stripe_human")

CONTRAST_OPTIONS = ["A is darker", "B is darker", "They are exactly same"]
STRIPE_OPTIONS = ["Left is darker", "Right is darker", "They are exactly same"]
SAME = 2

PROMPT_PREFIX = {"pixel": "Based on pixel values, ", "human": "Based on human perception, "}

WIDTH, HEIGHT = 384, 288
NEAR_DISTANCE = 90.0  # Euclidean RGB distance below which C_b and C_f count as "near"
JITTER = 4  # the edge noise eta of a contrast square, in pixels (the inner core is exact)


def _control_mus(rng: np.random.Generator) -> tuple[float, float]:
    """Two clearly different brightness factors (difference >= 0.35), the darker first."""
    lo = float(rng.uniform(0.55, 0.75))
    return lo, lo + float(rng.uniform(0.35, 0.5))


# --------------------------------------------------------------------------------------------------
# Contrast
# --------------------------------------------------------------------------------------------------


@dataclass
class ContrastItem:
    image: np.ndarray
    layout: str  # "left-right" | "up-down"
    is_illusion: bool
    rgb_a: tuple[int, int, int]
    rgb_b: tuple[int, int, int]
    bg_a: tuple[int, int, int]
    bg_b: tuple[int, int, int]
    core_a: list[int]
    core_b: list[int]
    distance: float

    @property
    def pixel_answer(self) -> int:
        if self.rgb_a == self.rgb_b:
            return SAME
        return 0 if luminance(self.rgb_a) < luminance(self.rgb_b) else 1

    @property
    def human_answer(self) -> int:
        if not self.is_illusion:
            return self.pixel_answer
        # The square on the brighter background looks darker (RCID 3.1, theoretical label).
        return 0 if luminance(self.bg_a) > luminance(self.bg_b) else 1


def _edge_offsets(rng: np.random.Generator, length: int, amplitude: int) -> np.ndarray:
    """A bounded random walk in [-amplitude, amplitude]: the irregular edge of a square."""
    steps = rng.integers(-1, 2, size=length)
    walk = np.cumsum(steps) + int(rng.integers(-amplitude, amplitude + 1))
    return np.clip(walk, -amplitude, amplitude)


def jittered_square_mask(rng: np.random.Generator, size: int, amplitude: int) -> np.ndarray:
    """Mask of a ``size`` square with irregular edges, on a canvas padded by ``amplitude`` on each side.

    Every pixel farther than ``amplitude`` from the nominal edges is inside, so the core
    ``[2a, size)`` x ``[2a, size)`` of the padded mask (``a = amplitude``) is always filled.
    """
    full = size + 2 * amplitude
    idx = np.arange(full)
    top = amplitude + _edge_offsets(rng, full, amplitude)
    bottom = amplitude + size + _edge_offsets(rng, full, amplitude)
    left = amplitude + _edge_offsets(rng, full, amplitude)
    right = amplitude + size + _edge_offsets(rng, full, amplitude)
    ys, xs = idx[:, None], idx[None, :]
    return (ys >= top[None, :]) & (ys < bottom[None, :]) & (xs >= left[:, None]) & (xs < right[:, None])


def _contrast_colors(rng: np.random.Generator, is_illusion: bool) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    base = _random_color(rng, 70, 170)
    near = is_illusion or rng.random() < 0.5
    fore = _near_color(rng, base, 35, 60, 170) if near else _far_color(rng, base, 40, 170, 120.0)
    return base, fore


def make_contrast(rng: np.random.Generator, is_illusion: bool) -> ContrastItem:
    """One contrast image: a two-tone background and two (jittered) squares placed symmetrically."""
    c_b, c_f = _contrast_colors(rng, is_illusion)
    layout = "left-right" if rng.random() < 0.5 else "up-down"
    dark_bg = scale_color(c_b, float(rng.uniform(0.45, 0.7)))
    bright_bg = scale_color(c_b, float(rng.uniform(1.3, 1.5)))
    a_on_bright = bool(rng.random() < 0.5)
    bg_a, bg_b = (bright_bg, dark_bg) if a_on_bright else (dark_bg, bright_bg)

    if is_illusion:
        rgb_a = rgb_b = scale_color(c_f, float(rng.uniform(0.85, 1.15)))
    else:
        lo, hi = _control_mus(rng)
        dark_sq, light_sq = scale_color(c_f, lo), scale_color(c_f, hi)
        # the darker square sits on the brighter background: perception agrees with the pixels
        rgb_a, rgb_b = (dark_sq, light_sq) if a_on_bright else (light_sq, dark_sq)

    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    size = int(rng.integers(56, 85))
    margin = 18
    if layout == "left-right":
        img[:, : WIDTH // 2], img[:, WIDTH // 2 :] = bg_a, bg_b
        xa = int(rng.integers(margin, WIDTH // 2 - size - margin + 1))
        ya = int(rng.integers(margin, HEIGHT - size - margin + 1))
        xb, yb = WIDTH - xa - size, ya
    else:
        img[: HEIGHT // 2], img[HEIGHT // 2 :] = bg_a, bg_b
        xa = int(rng.integers(margin, WIDTH - size - margin + 1))
        ya = int(rng.integers(margin, HEIGHT // 2 - size - margin + 1))
        xb, yb = xa, HEIGHT - ya - size
    cores = []
    for x, y, rgb in ((xa, ya, rgb_a), (xb, yb, rgb_b)):
        mask = jittered_square_mask(rng, size, JITTER)
        ox, oy = x - JITTER, y - JITTER
        img[oy : oy + mask.shape[0], ox : ox + mask.shape[1]][mask] = rgb
        cores.append([x + JITTER, y + JITTER, x + size - JITTER - 1, y + size - JITTER - 1])
    return ContrastItem(
        image=img,
        layout=layout,
        is_illusion=is_illusion,
        rgb_a=rgb_a,
        rgb_b=rgb_b,
        bg_a=bg_a,
        bg_b=bg_b,
        core_a=cores[0],
        core_b=cores[1],
        distance=rgb_distance(c_b, c_f),
    )


def contrast_question(layout: str) -> str:
    where = "A on the left and B on the right" if layout == "left-right" else "A on the top and B on the bottom"
    return f"how do the colors of the two squares, {where}, compare?"


def _perception_record(
    task: str,
    i: int,
    kind: str,
    *,
    image: str,
    question: str,
    category: str,
    pixel: int,
    human: int,
    **extra: Any,
) -> dict:
    """A perception record; ``answer_index`` is the pixel answer for ``kind="pixel"``, else the human one."""
    return base_record(
        task,
        i,
        category=category,
        task_type="perception",
        answer_format="roman",
        image=image,
        question=PROMPT_PREFIX[kind] + question,
        option_style="roman",
        prompt_kind=kind,
        pixel_answer_index=pixel,
        human_answer_index=human,
        answer_index=pixel if kind == "pixel" else human,
        **extra,
    )


def generate_contrast(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    """Records of ``ambi_synth_contrast_pixel`` and ``ambi_synth_contrast_human`` (shared images)."""
    for i, condition in ctx.cycled("contrast", ["illusion", "control"]):
        item = make_contrast(ctx.rng("contrast", i), condition == "illusion")
        image = ctx.save_image(item.image, "contrast", i)
        breakdown = {
            "layout": item.layout,
            "rgb_distance": "near" if item.distance < NEAR_DISTANCE else "far",
            "condition": condition,
        }
        for task, kind in zip(CONTRAST_TASKS, ("pixel", "human"), strict=True):
            yield (
                task,
                (
                    _perception_record(
                        task,
                        i,
                        kind,
                        image=image,
                        question=contrast_question(item.layout),
                        category="contrast",
                        options=list(CONTRAST_OPTIONS),
                        pixel=item.pixel_answer,
                        human=item.human_answer,
                        is_illusion=item.is_illusion,
                        breakdown=breakdown,
                        square_rgb_a=rgb_list(item.rgb_a),
                        square_rgb_b=rgb_list(item.rgb_b),
                        square_box_a=item.core_a,
                        square_box_b=item.core_b,
                        background_rgb_a=rgb_list(item.bg_a),
                        background_rgb_b=rgb_list(item.bg_b),
                    )
                ),
            )
        ctx.tick()


# --------------------------------------------------------------------------------------------------
# Stripes
# --------------------------------------------------------------------------------------------------

DIRECTIONS = ("horizontal", "vertical", "diagonal")
STRIPE_QUESTION = "how do the colors of the striped regions on the left and right compare?"


@dataclass
class StripeItem:
    image: np.ndarray
    direction: str
    n_stripes: int
    noise: str
    is_illusion: bool
    rgb_left: tuple[int, int, int]
    rgb_right: tuple[int, int, int]
    box_left: list[int]
    box_right: list[int]
    black_left: float
    black_right: float

    @property
    def pixel_answer(self) -> int:
        if self.rgb_left == self.rgb_right:
            return SAME
        return 0 if luminance(self.rgb_left) < luminance(self.rgb_right) else 1

    @property
    def human_answer(self) -> int:
        if not self.is_illusion:
            return self.pixel_answer
        # Assimilation: the side with thicker black stripes looks darker (our theoretical label).
        return 0 if self.black_left > self.black_right else 1


@dataclass(frozen=True)
class StripeNoise:
    """The irregularity eta: a sinusoidal bend of the stripes, or segments shifted along the stripes."""

    kind: str  # "curved" | "misaligned"
    amplitude: float
    wavelength: float
    phase: float
    segment: int
    shifts: tuple[float, ...]


def _draw_noise(rng: np.random.Generator, period: float) -> StripeNoise:
    kind = "curved" if rng.random() < 0.5 else "misaligned"
    return StripeNoise(
        kind=kind,
        amplitude=float(rng.uniform(0.15, 0.35) * period),
        wavelength=float(rng.uniform(80.0, 160.0)),
        phase=float(rng.uniform(0.0, 2 * np.pi)),
        segment=int(rng.integers(28, 56)),
        shifts=tuple(float(s) for s in rng.uniform(-0.2, 0.2, size=16) * period),
    )


def stripe_pattern(
    height: int, width: int, direction: str, period: float, black_fraction: float, noise: StripeNoise
) -> np.ndarray:
    """Boolean mask of the black stripes of one region (True = black, False = colored)."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    if direction == "horizontal":
        u, v = ys, xs
    elif direction == "vertical":
        u, v = xs, ys
    elif direction == "diagonal":
        u, v = (xs + ys) / np.sqrt(2.0), (xs - ys) / np.sqrt(2.0)
    else:
        raise ValueError(f"unknown stripe direction {direction!r}; expected one of {DIRECTIONS}")
    if noise.kind == "curved":
        u = u + noise.amplitude * np.sin(2 * np.pi * v / noise.wavelength + noise.phase)
    else:
        seg = np.floor((v - v.min()) / noise.segment).astype(int) % len(noise.shifts)
        u = u + np.asarray(noise.shifts)[seg]
    phase = np.mod(u / period, 1.0)
    return phase < black_fraction


def make_stripe(rng: np.random.Generator, is_illusion: bool) -> StripeItem:
    """One stripe image: two symmetric striped regions on a flat background."""
    c_s = _random_color(rng, 60, 170)
    c_b = _far_color(rng, c_s, 40, 230, 60.0)
    direction = DIRECTIONS[int(rng.integers(0, 3))]
    n_stripes = int(rng.integers(6, 15))
    rw, rh = int(rng.integers(120, 151)), int(rng.integers(170, 231))
    x_left = int(rng.integers(14, WIDTH // 2 - rw - 10 + 1))
    y0 = (HEIGHT - rh) // 2 + int(rng.integers(-10, 11))
    x_right = WIDTH - x_left - rw
    extent = {"horizontal": rh, "vertical": rw, "diagonal": (rw + rh) / np.sqrt(2.0)}[direction]
    period = extent / n_stripes
    noise = _draw_noise(rng, period)

    thick_left = bool(rng.random() < 0.5)
    if is_illusion:
        mu = float(rng.uniform(0.8, 1.2))
        rgb_left = rgb_right = scale_color(c_s, mu)
        thick, thin = float(rng.uniform(0.55, 0.65)), float(rng.uniform(0.25, 0.35))
        black_left, black_right = (thick, thin) if thick_left else (thin, thick)
    else:
        lo, hi = _control_mus(rng)
        dark, light = scale_color(c_s, lo), scale_color(c_s, hi)
        rgb_left, rgb_right = (dark, light) if thick_left else (light, dark)
        black_left = black_right = float(rng.uniform(0.35, 0.5))

    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[...] = c_b
    boxes = []
    for x0, rgb, black in ((x_left, rgb_left, black_left), (x_right, rgb_right, black_right)):
        pattern = stripe_pattern(rh, rw, direction, period, black, noise)
        region = img[y0 : y0 + rh, x0 : x0 + rw]
        region[...] = rgb
        region[pattern] = (0, 0, 0)
        boxes.append([x0, y0, x0 + rw - 1, y0 + rh - 1])
    return StripeItem(
        image=img,
        direction=direction,
        n_stripes=n_stripes,
        noise=noise.kind,
        is_illusion=is_illusion,
        rgb_left=rgb_left,
        rgb_right=rgb_right,
        box_left=boxes[0],
        box_right=boxes[1],
        black_left=round(black_left, 4),
        black_right=round(black_right, 4),
    )


def generate_stripe(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    """Records of ``ambi_synth_stripe_pixel`` and ``ambi_synth_stripe_human`` (shared images)."""
    for i, condition in ctx.cycled("stripe", ["illusion", "control"]):
        item = make_stripe(ctx.rng("stripe", i), condition == "illusion")
        image = ctx.save_image(item.image, "stripe", i)
        breakdown = {
            "direction": item.direction,
            "n_stripes": str(item.n_stripes),
            "noise": item.noise,
            "condition": condition,
        }
        for task, kind in zip(STRIPE_TASKS, ("pixel", "human"), strict=True):
            yield (
                task,
                (
                    _perception_record(
                        task,
                        i,
                        kind,
                        image=image,
                        question=STRIPE_QUESTION,
                        category="stripe",
                        options=list(STRIPE_OPTIONS),
                        pixel=item.pixel_answer,
                        human=item.human_answer,
                        is_illusion=item.is_illusion,
                        breakdown=breakdown,
                        stripe_rgb_left=rgb_list(item.rgb_left),
                        stripe_rgb_right=rgb_list(item.rgb_right),
                        stripe_box_left=item.box_left,
                        stripe_box_right=item.box_right,
                        black_fraction_left=item.black_left,
                        black_fraction_right=item.black_right,
                    )
                ),
            )
        ctx.tick()
