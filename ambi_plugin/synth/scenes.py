"""Scene-level tasks: localization of every instance of a shape, region description inside a green
box, multi-label choice ("which shapes are present?") and a one-object (camouflaged or plain) scene.

Shapes are pasted without anti-aliasing and never overlap, so boxes are the exact tight bounding
boxes of the drawn pixels. Boxes and the region are inclusive pixel coordinates ``[x1, y1, x2, y2]``
(``x2``/``y2`` are the last covered column/row).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from PIL import Image, ImageDraw

from .ambiguous import navon_views
from .common import GREEN_RGB, GREEN_WIDTH, BuildContext, base_record, rgb_list
from .glyphs import navon_mask, pick_navon_pair
from .imaging import blank, dilate, mask_bbox, paint, to_uint8, two_tone_texture
from .shapes import SHAPES, shape_label, shape_mask

# Well separated fill colors (none is the green of the region box).
PALETTE: tuple[tuple[int, int, int], ...] = (
    (220, 40, 40),
    (30, 90, 200),
    (240, 160, 20),
    (130, 50, 170),
    (20, 150, 140),
    (200, 60, 150),
    (110, 70, 30),
    (60, 60, 60),
    (150, 170, 30),
    (40, 170, 230),
)
BACKGROUND = (246, 244, 238)


def _place(
    rng: np.random.Generator,
    sizes: Sequence[tuple[int, int]],
    width: int,
    height: int,
    *,
    gap: int = 8,
    tries: int = 400,
) -> list[tuple[int, int]]:
    """Top-left corners for boxes of ``sizes`` (w, h) inside the canvas, ``gap`` pixels apart."""
    for _ in range(20):
        placed: list[tuple[int, int, int, int]] = []
        for w, h in sizes:
            for _ in range(tries):
                x = int(rng.integers(gap, width - w - gap + 1))
                y = int(rng.integers(gap, height - h - gap + 1))
                if all(
                    x + w + gap <= px or px + pw + gap <= x or y + h + gap <= py or py + ph + gap <= y
                    for px, py, pw, ph in placed
                ):
                    placed.append((x, y, w, h))
                    break
            else:
                break
        if len(placed) == len(sizes):
            return [(x, y) for x, y, _, _ in placed]
    return _shelf_place(sizes, width, height, gap=gap)


def _shelf_place(sizes: Sequence[tuple[int, int]], width: int, height: int, *, gap: int) -> list[tuple[int, int]]:
    """Deterministic fallback of :func:`_place`: rows of boxes, tallest first, ``gap`` pixels apart.

    Random placement can miss on a crowded canvas; rows fit every size range this module draws
    (checked for the largest sizes by the tests), so a build never fails here.
    """
    corners: dict[int, tuple[int, int]] = {}
    x, y, row_h = gap, gap, 0
    for j in sorted(range(len(sizes)), key=lambda k: -sizes[k][1]):
        w, h = sizes[j]
        if x + w + gap > width:  # next row
            x, y, row_h = gap, y + row_h + gap, 0
        if x + w + gap > width or y + h + gap > height:
            raise RuntimeError(f"cannot fit shapes of sizes {list(sizes)} on a {width}x{height} canvas (gap {gap})")
        corners[j] = (x, y)
        x, row_h = x + w + gap, max(row_h, h)
    return [corners[j] for j in range(len(sizes))]


def _distinct_sizes(rng: np.random.Generator, k: int, lo: int, hi: int, step: int) -> list[int]:
    choices = np.arange(lo, hi + 1, step)
    return [int(v) for v in rng.choice(choices, size=k, replace=False)]


# --------------------------------------------------------------------------------------------------
# Localization
# --------------------------------------------------------------------------------------------------

LOC_W, LOC_H = 448, 336


def generate_localization(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_localization"
    for i in ctx.indices():
        rng = ctx.rng("localization", i)
        target = SHAPES[int(rng.integers(0, len(SHAPES)))]
        k = int(rng.choice([1, 1, 2, 3, 4]))
        others = [s for s in SHAPES if s != target]
        distractors = [others[int(j)] for j in rng.choice(len(others), size=int(rng.integers(1, 4)), replace=False)]
        names = [target] * k + distractors
        sizes = _distinct_sizes(rng, len(names), 36, 104, 6)
        masks = [shape_mask(name, s) for name, s in zip(names, sizes, strict=True)]
        colors = [PALETTE[int(j)] for j in rng.choice(len(PALETTE), size=len(names), replace=False)]
        corners = _place(rng, [(m.shape[1], m.shape[0]) for m in masks], LOC_W, LOC_H)
        canvas = blank(LOC_H, LOC_W, BACKGROUND)
        boxes, target_colors = [], []
        for j, (mask, color, (x, y)) in enumerate(zip(masks, colors, corners, strict=True)):
            paint(canvas, mask, x, y, color)
            if j < k:
                x1, y1, x2, y2 = mask_bbox(mask)
                boxes.append({"label": target, "box": [x + x1, y + y1, x + x2, y + y2]})
                target_colors.append(rgb_list(color))
        group = "single" if k == 1 else "combined"
        for b in boxes:
            b["group"] = group
        image = ctx.save_image(canvas, "localization", i)
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="multiscene",
                    task_type="localization",
                    answer_format="boxes",
                    image=image,
                    prompt_vars={"object": target, "width": str(LOC_W), "height": str(LOC_H)},
                    boxes=boxes,
                    breakdown={"group": group, "n_instances": str(k), "object": target},
                    instance_rgb=target_colors,
                    distractors=distractors,
                )
            ),
        )
        ctx.tick()


# --------------------------------------------------------------------------------------------------
# Region (Navon figures side by side, one in a green box)
# --------------------------------------------------------------------------------------------------

REGION_W, REGION_H = 480, 300
REGION_PAD = 8


def generate_region(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_region"
    for i in ctx.indices():
        rng = ctx.rng("region", i)
        count = int(rng.integers(2, 4))
        cell = 20 if count == 3 else 26
        slot = REGION_W // count
        canvas = blank(REGION_H, REGION_W, [int(v) for v in rng.integers(225, 256, size=3)])
        figures = []
        for j in range(count):
            g, loc = pick_navon_pair(rng)
            mask = navon_mask(g, loc, cell)
            x = j * slot + (slot - mask.shape[1]) // 2 + int(rng.integers(-4, 5))
            y = (REGION_H - mask.shape[0]) // 2 + int(rng.integers(-12, 13))
            paint(canvas, mask, x, y, [int(v) for v in rng.integers(0, 110, size=3)])
            x1, y1, x2, y2 = mask_bbox(mask)
            figures.append((g, loc, [x + x1, y + y1, x + x2, y + y2]))
        chosen = int(rng.integers(0, count))
        g, loc, (x1, y1, x2, y2) = figures[chosen]
        region = [x1 - REGION_PAD, y1 - REGION_PAD, x2 + REGION_PAD, y2 + REGION_PAD]
        img = Image.fromarray(canvas, "RGB")
        ImageDraw.Draw(img).rectangle(region, outline=GREEN_RGB, width=GREEN_WIDTH)
        image = ctx.save_image(img, "region", i)
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="multiscene",
                    task_type="region",
                    answer_format="layers",
                    image=image,
                    views=navon_views(g, loc),
                    views_positional=True,
                    region=region,
                    breakdown={"n_figures": str(count), "position": str(chosen)},
                    navon_global=g,
                    navon_local=loc,
                )
            ),
        )
        ctx.tick()


# --------------------------------------------------------------------------------------------------
# Multi-label choice
# --------------------------------------------------------------------------------------------------

MC_W, MC_H = 384, 288
NONE_INDEX = 4


def multichoice_plan(rng: np.random.Generator, n: int) -> list[int]:
    """Number of correct (present) options per item: mostly 2, about a quarter 1, at least one 0."""
    counts = [2] * n
    n_one = n // 4
    for j in range(1, 1 + n_one):
        if j < n:
            counts[j] = 1
    counts[0] = 0
    order = rng.permutation(n)
    return [counts[int(j)] for j in order]


def generate_multichoice(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_multichoice"
    plan = ctx.plan("multichoice", lambda rng, start, size: multichoice_plan(rng, size))
    for i, n_present in plan:
        rng = ctx.rng("multichoice", i)
        picked = [SHAPES[int(j)] for j in rng.choice(len(SHAPES), size=5, replace=False)]
        options, spare = picked[:4], picked[4]
        present_idx = sorted(int(j) for j in rng.choice(4, size=n_present, replace=False))
        drawn = [options[j] for j in present_idx]
        if n_present == 0 or rng.random() < 0.3:
            drawn.append(spare)  # a shape that is not among the options
        sizes = _distinct_sizes(rng, len(drawn), 60, 110, 5)
        masks = [shape_mask(name, s) for name, s in zip(drawn, sizes, strict=True)]
        colors = [PALETTE[int(j)] for j in rng.choice(len(PALETTE), size=len(drawn), replace=False)]
        corners = _place(rng, [(m.shape[1], m.shape[0]) for m in masks], MC_W, MC_H, gap=14)
        canvas = blank(MC_H, MC_W, BACKGROUND)
        for mask, color, (x, y) in zip(masks, colors, corners, strict=True):
            paint(canvas, mask, x, y, color)
        image = ctx.save_image(canvas, "multichoice", i)
        answer = present_idx if present_idx else [NONE_INDEX]
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="bistable",
                    task_type="multi_choice",
                    answer_format="letter_set",
                    image=image,
                    options=options + ["None"],
                    option_style="letter",
                    answer_indices=answer,
                    none_index=NONE_INDEX,
                    breakdown={"n_correct": str(n_present)},
                    shapes_drawn=drawn,
                )
            ),
        )
        ctx.tick()


# --------------------------------------------------------------------------------------------------
# Object (camouflaged / plain)
# --------------------------------------------------------------------------------------------------

OBJ_SIZE = 320
EARTHY = ((96, 110, 60), (150, 140, 90), (70, 90, 110), (160, 120, 80), (110, 130, 120))
# The textured images barely shrink past zlib level 3 (+2% size) and level 6 takes three times longer to write.
_OBJECT_PNG_LEVEL = 3


def _object_image(rng: np.random.Generator, name: str, camo: bool) -> np.ndarray:
    a, b = (np.asarray(EARTHY[int(j)], dtype=float) for j in rng.choice(len(EARTHY), size=2, replace=False))
    scale = float(rng.uniform(5.0, 9.0))
    ground = two_tone_texture(rng, OBJ_SIZE, OBJ_SIZE, a, b, scale=scale)
    mask = shape_mask(name, int(rng.integers(120, 170)))
    h, w = mask.shape
    x = int(rng.integers(30, OBJ_SIZE - w - 30 + 1))
    y = int(rng.integers(30, OBJ_SIZE - h - 30 + 1))
    region = ground[y : y + h, x : x + w]
    if camo:
        # the same two colors, a finer texture and a slight brightness shift: visible only as a texture edge
        fill = two_tone_texture(rng, h, w, a, b, scale=scale * 0.5) * float(rng.choice([0.86, 1.14]))
        region[mask] = fill[mask]
    else:
        outline = dilate(mask, 2)  # padded by 2 pixels on every side
        ground[y - 2 : y + h + 2, x - 2 : x + w + 2][outline] = (30, 30, 30)
        color = np.asarray(PALETTE[int(rng.integers(0, 6))], dtype=float)
        region[mask] = color
    return to_uint8(ground)


def generate_object(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    task = "ambi_synth_object_open"
    variants = ctx.cycled("object", ("camo", "noncamo"))
    for i, variant in variants:
        rng = ctx.rng("object", i)
        name = SHAPES[int(rng.integers(0, len(SHAPES)))]
        image = ctx.save_image(
            _object_image(rng, name, variant == "camo"), "object", i, compress_level=_OBJECT_PNG_LEVEL
        )
        yield (
            task,
            (
                base_record(
                    task,
                    i,
                    category="object",
                    task_type="open",
                    answer_format="object",
                    image=image,
                    views=[{"name": "object", "labels": [shape_label(name)]}],
                    prompt_vars={"variant": variant},
                    breakdown={"variant": variant, "object": name},
                )
            ),
        )
        ctx.tick()
