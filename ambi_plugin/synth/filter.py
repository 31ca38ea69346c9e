"""RCID-style filter illusions (RCID section 3.2): objects of known color seen through a contrasting color filter.

A scene of flat objects (one, or several for the "multiple objects" condition of RCID Fig. 11) is drawn on a
light, low-saturation background. The target object has a known true color (red, yellow, green or blue). A
filter of the contrasting hue is then applied to the **whole image in HSV**: every hue is pulled toward the
filter's hue, saturation and value are blended toward the filter's; a last pass moves any pixel still inside
the true color's HSV range (:data:`COLOR_RANGES`) onto the filter hue, so that **no pixel of a filtered image
lies in the object's original color range** (checked after the RGB round trip; tests assert it).

Illusion items are filtered (pixel answer: the color names the filtered object's pixels actually have;
human answer: the true color, RCID's theoretical label, since people discount the filter, section 5.2);
controls are the same scenes unfiltered (pixel answer = human answer = the true color).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from .common import BuildContext, base_record, cycle_plan
from .shapes import shape_mask

FILTER_TASKS = ("ambi_synth_filter_pixel", "ambi_synth_filter_human")
PROMPT_PREFIX = {"pixel": "Based on pixel values, ", "human": "Based on human perception, "}

WIDTH, HEIGHT = 384, 288

# Hue ranges in degrees [lo, hi) (red wraps around 0) with the saturation and value a pixel needs to count
# as that color; below them a pixel is achromatic (gray, black or white). Our choice, see docs/rcid.md.
MIN_SATURATION = 0.2
MIN_VALUE = 0.15
HUE_RANGES: dict[str, tuple[float, float]] = {
    "red": (340.0, 20.0),
    "orange": (20.0, 45.0),
    "yellow": (45.0, 70.0),
    "green": (70.0, 165.0),
    "cyan": (165.0, 195.0),
    "blue": (195.0, 260.0),
    "purple": (260.0, 290.0),
    "pink": (290.0, 340.0),
}
COLOR_RANGES = HUE_RANGES  # the "original color's HSV range" of section 3.2
TRUE_COLORS = ("red", "yellow", "green", "blue")
TRUE_HUES = {"red": 0.0, "yellow": 57.0, "green": 120.0, "blue": 225.0}
# The contrasting filter: roughly the complementary hue (RCID: red -> green/cyan, blue -> orange, yellow -> blue).
FILTER_HUES = {"red": 180.0, "yellow": 230.0, "green": 310.0, "blue": 35.0}
OBJECTS = ("ball", "box", "star", "kite")
_SHAPE_OF = {"ball": "circle", "box": "square", "star": "star", "kite": "diamond"}
SCENES = ("single", "multiple")


# ------------------------------------------------------------------------------------------ HSV


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """uint8 RGB (..., 3) -> float HSV with H in degrees [0, 360), S and V in [0, 1]."""
    x = np.asarray(rgb, dtype=np.float64) / 255.0
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    mx, mn = x.max(axis=-1), x.min(axis=-1)
    d = mx - mn
    safe = np.where(d == 0, 1.0, d)
    h = np.where(mx == r, ((g - b) / safe) % 6.0, np.where(mx == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0))
    h = np.where(d == 0, 0.0, h * 60.0) % 360.0
    s = np.where(mx == 0, 0.0, d / np.where(mx == 0, 1.0, mx))
    return np.stack([h, s, mx], axis=-1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """float HSV (H degrees, S and V in [0, 1]) -> uint8 RGB."""
    h, s, v = (np.asarray(hsv[..., i], dtype=np.float64) for i in range(3))
    c = v * s
    hp = (h % 360.0) / 60.0
    x = c * (1 - np.abs(hp % 2 - 1))
    z = np.zeros_like(h)
    k = np.floor(hp).astype(int) % 6
    r = np.choose(k, [c, x, z, z, x, c])
    g = np.choose(k, [x, c, c, x, z, z])
    b = np.choose(k, [z, z, x, c, c, x])
    m = v - c
    out = np.stack([r + m, g + m, b + m], axis=-1)
    return np.clip(np.round(out * 255.0), 0, 255).astype(np.uint8)


def _hue_in(h: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return (h >= lo) & (h < hi) if lo < hi else (h >= lo) | (h < hi)


def in_color_range(rgb: np.ndarray, color: str) -> np.ndarray:
    """Boolean mask of the pixels whose HSV lies in ``color``'s range (hue range, enough S and V)."""
    hsv = rgb_to_hsv(rgb)
    lo, hi = HUE_RANGES[color]
    return _hue_in(hsv[..., 0], lo, hi) & (hsv[..., 1] >= MIN_SATURATION) & (hsv[..., 2] >= MIN_VALUE)


def pixel_color_names(rgb: np.ndarray) -> np.ndarray:
    """Per-pixel basic color name (an array of str): a hue name, or gray / black / white when achromatic."""
    hsv = rgb_to_hsv(rgb)
    names = np.full(hsv.shape[:-1], "gray", dtype=object)
    chroma = (hsv[..., 1] >= MIN_SATURATION) & (hsv[..., 2] >= MIN_VALUE)
    for name, (lo, hi) in HUE_RANGES.items():
        names[chroma & _hue_in(hsv[..., 0], lo, hi)] = name
    names[~chroma & (hsv[..., 2] < MIN_VALUE)] = "black"
    names[~chroma & (hsv[..., 2] > 0.9) & (hsv[..., 1] < 0.1)] = "white"
    return names


def dominant_colors(rgb: np.ndarray, mask: np.ndarray, *, min_share: float = 0.15) -> list[str]:
    """The color names covering at least ``min_share`` of the masked pixels, most frequent first."""
    names = pixel_color_names(rgb)[mask]
    values, counts = np.unique(names.astype(str), return_counts=True)
    order = np.argsort(-counts, kind="stable")
    total = max(int(counts.sum()), 1)
    picked = [str(values[i]) for i in order if counts[i] / total >= min_share]
    return picked or [str(values[order[0]])]


def apply_filter(rgb: np.ndarray, true_color: str, filter_hue: float, *, strength: float = 0.7) -> np.ndarray:
    """The contrasting filter in HSV, then the guarantee that no pixel stays in ``true_color``'s range."""
    hsv = rgb_to_hsv(rgb)
    h = hsv[..., 0]
    delta = ((filter_hue - h + 180.0) % 360.0) - 180.0  # shortest way round the hue circle
    hsv[..., 0] = (h + strength * delta) % 360.0
    hsv[..., 1] = np.clip(hsv[..., 1] * (1 - strength) + 0.55 * strength, 0.0, 1.0)
    hsv[..., 2] = np.clip(hsv[..., 2] * 0.85 + 0.05, 0.0, 1.0)
    out = hsv_to_rgb(hsv)
    for _ in range(4):  # the RGB rounding can move a pixel back: repeat on the uint8 result
        bad = in_color_range(out, true_color)
        if not bad.any():
            return out
        again = rgb_to_hsv(out)
        again[..., 0][bad] = filter_hue
        out = hsv_to_rgb(again)
    bad = in_color_range(out, true_color)
    if bad.any():  # last resort: make the stragglers achromatic
        grey = rgb_to_hsv(out)
        grey[..., 1][bad] = 0.0
        out = hsv_to_rgb(grey)
    return out


# ------------------------------------------------------------------------------------------ scenes


@dataclass
class FilterItem:
    image: np.ndarray
    object_name: str
    true_color: str
    scene: str
    is_illusion: bool
    filter_hue: float | None
    mask: np.ndarray = field(repr=False)
    pixel_colors: list[str] = field(default_factory=list)

    @property
    def human_colors(self) -> list[str]:
        return [self.true_color]


def _object_rgb(rng: np.random.Generator, color: str) -> tuple[float, float, float]:
    """An HSV triple well inside ``color``'s range."""
    return (
        (TRUE_HUES[color] + float(rng.uniform(-6, 6))) % 360.0,
        float(rng.uniform(0.7, 0.95)),
        float(rng.uniform(0.7, 0.95)),
    )


def _paint_hsv(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, hsv: Sequence[float], shade: bool) -> np.ndarray:
    """Paint ``mask`` at (x, y) in an HSV color (with a soft vertical shading of V); return the placed mask."""
    hgt, wid = mask.shape
    placed = np.zeros(canvas.shape[:2], dtype=bool)
    placed[y : y + hgt, x : x + wid] = mask
    grad = np.linspace(1.0, 0.8 if shade else 1.0, hgt)[:, None] * np.ones((1, wid))
    block = np.empty((hgt, wid, 3))
    block[..., 0], block[..., 1], block[..., 2] = hsv[0], hsv[1], np.clip(hsv[2] * grad, 0, 1)
    region = canvas[y : y + hgt, x : x + wid]
    region[mask] = hsv_to_rgb(block)[mask]
    return placed


def make_filter(rng: np.random.Generator, is_illusion: bool, scene: str, true_color: str) -> FilterItem:
    """One scene; filtered (illusion) or not (control)."""
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    bg = np.stack(
        np.broadcast_arrays(
            float(rng.uniform(30, 50)), float(rng.uniform(0.05, 0.12)), np.linspace(0.92, 0.78, HEIGHT)[:, None]
        ),
        axis=-1,
    )
    img[...] = hsv_to_rgb(np.broadcast_to(bg, (HEIGHT, WIDTH, 3)))
    img[int(HEIGHT * 0.72) :] = hsv_to_rgb(np.array([25.0, 0.25, 0.55]))  # a table top
    target = OBJECTS[int(rng.integers(0, len(OBJECTS)))]
    size = int(rng.integers(90, 121))
    slots = [(30, 40), (140, 70), (262, 40)] if scene == "multiple" else [(int(rng.integers(100, 170)), 60)]
    target_slot = int(rng.integers(0, len(slots)))
    others = [o for o in OBJECTS if o != target]
    other_colors = [c for c in TRUE_COLORS if c != true_color]
    mask_target = None
    for k, (x, y) in enumerate(slots):
        name = target if k == target_slot else others[k % len(others)]
        color = true_color if k == target_slot else other_colors[int(rng.integers(0, len(other_colors)))]
        mask = shape_mask(_SHAPE_OF[name], size)
        placed = _paint_hsv(img, mask, x, y, _object_rgb(rng, color), shade=True)
        if k == target_slot:
            mask_target = placed
    assert mask_target is not None
    filter_hue = (FILTER_HUES[true_color] + float(rng.uniform(-10, 10))) % 360.0 if is_illusion else None
    if filter_hue is not None:
        img = apply_filter(img, true_color, filter_hue)
    inner = mask_target & ~_edge(mask_target)
    return FilterItem(
        image=img,
        object_name=target,
        true_color=true_color,
        scene=scene,
        is_illusion=is_illusion,
        filter_hue=filter_hue,
        mask=mask_target,
        pixel_colors=dominant_colors(img, inner) if is_illusion else [true_color],
    )


def _edge(mask: np.ndarray) -> np.ndarray:
    inner = mask.copy()
    inner[1:] &= mask[:-1]
    inner[:-1] &= mask[1:]
    inner[:, 1:] &= mask[:, :-1]
    inner[:, :-1] &= mask[:, 1:]
    return mask & ~inner


def filter_question(object_name: str) -> str:
    """Our template for the generated scenes (RCID Fig. 1c asks "what color is the athlete's uniform?")."""
    return f"what color is the {object_name}?"


def _filter_plan(rng: np.random.Generator, start: int, size: int) -> list[tuple[str, str, str]]:
    """Items ``start..start+size-1``: (condition, scene, true colour), each cycled and shuffled in the block."""
    conditions = cycle_plan(rng, ["illusion", "control"], size, start=start)
    scenes = cycle_plan(rng, list(SCENES), size, start=start)
    colors = cycle_plan(rng, list(TRUE_COLORS), size, start=start)
    return list(zip(conditions, scenes, colors, strict=True))


def generate_filter(ctx: BuildContext) -> Iterator[tuple[str, dict]]:
    """Records of ``ambi_synth_filter_pixel`` and ``ambi_synth_filter_human`` (shared images), item by item."""
    for i, (condition, scene, color) in ctx.plan("filter", _filter_plan):
        item = make_filter(ctx.rng("filter", i), condition == "illusion", scene, color)
        image = ctx.save_image(item.image, "filter", i)
        breakdown = {"scene": item.scene, "true_color": item.true_color, "condition": condition}
        for task, kind in zip(FILTER_TASKS, ("pixel", "human"), strict=True):
            yield (
                task,
                base_record(
                    task,
                    i,
                    category="filter",
                    task_type="color_naming",
                    answer_format="color",
                    image=image,
                    breakdown=breakdown,
                    question=PROMPT_PREFIX[kind] + filter_question(item.object_name),
                    prompt_kind=kind,
                    is_illusion=item.is_illusion,
                    pixel_colors=list(item.pixel_colors),
                    human_colors=item.human_colors,
                    true_color=item.true_color,
                    object_name=item.object_name,
                    filter_hue=None if item.filter_hue is None else round(item.filter_hue, 2),
                ),
            )
        ctx.tick()
