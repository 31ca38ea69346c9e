"""The shape vocabulary of the suite and its aliased (anti-aliasing free) masks.

Masks are drawn with Pillow without anti-aliasing, so every pixel of a shape has exactly its fill
color and bounding boxes computed from the mask are exact. Labels name each shape the way the offline
matcher expects, with alternatives separated by ``|``.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw

SHAPE_LABELS: dict[str, str] = {
    "circle": "circle|disc|disk",
    "square": "square|box",
    "triangle": "triangle",
    "star": "star",
    "cross": "cross|plus",
    "hexagon": "hexagon",
    "diamond": "diamond|rhombus",
    "heart": "heart",
    "arrow": "arrow",
    "crescent": "crescent|moon",
    "pentagon": "pentagon",
    "ring": "ring|donut|annulus",
}
SHAPES = tuple(SHAPE_LABELS)

# Pairs too alike to be told apart reliably when one of them is blurred or camouflaged.
CONFUSABLE = frozenset(
    frozenset(p)
    for p in (
        ("circle", "ring"),
        ("circle", "hexagon"),
        ("pentagon", "hexagon"),
        ("circle", "pentagon"),
        ("circle", "crescent"),
    )
)


def shape_label(name: str) -> str:
    """The matcher label of a shape, e.g. ``"square|box"``."""
    try:
        return SHAPE_LABELS[name]
    except KeyError:
        raise ValueError(f"unknown shape {name!r}; expected one of {', '.join(SHAPES)}") from None


def _regular_polygon(n: int, cx: float, cy: float, r: float, start_deg: float = -90.0) -> list[tuple[float, float]]:
    return [
        (
            cx + r * math.cos(math.radians(start_deg + 360.0 * k / n)),
            cy + r * math.sin(math.radians(start_deg + 360.0 * k / n)),
        )
        for k in range(n)
    ]


def _star(cx: float, cy: float, r_out: float, r_in: float) -> list[tuple[float, float]]:
    pts = []
    for k in range(10):
        r = r_out if k % 2 == 0 else r_in
        a = math.radians(-90.0 + 36.0 * k)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def _draw(draw: ImageDraw.ImageDraw, name: str, s: float) -> None:
    """Draw shape ``name`` filling (about) the box [0, s) x [0, s) with 255 on a 0 canvas."""
    e = s - 1.0
    c = e / 2.0
    if name == "circle":
        draw.ellipse([0, 0, e, e], fill=255)
    elif name == "square":
        draw.rectangle([0, 0, e, e], fill=255)
    elif name == "triangle":
        draw.polygon([(c, 0), (e, e), (0, e)], fill=255)
    elif name == "star":
        draw.polygon(_star(c, c * 1.05, c, c * 0.4), fill=255)
    elif name == "cross":
        t = s / 3.0
        draw.rectangle([t, 0, e - t, e], fill=255)
        draw.rectangle([0, t, e, e - t], fill=255)
    elif name == "hexagon":
        draw.polygon(_regular_polygon(6, c, c, c, start_deg=0.0), fill=255)
    elif name == "diamond":
        draw.polygon([(c, 0), (e * 0.82, c), (c, e), (e * 0.18, c)], fill=255)
    elif name == "heart":
        r = s * 0.27
        draw.ellipse([0, s * 0.05, 2 * r, s * 0.05 + 2 * r], fill=255)
        draw.ellipse([e - 2 * r, s * 0.05, e, s * 0.05 + 2 * r], fill=255)
        draw.polygon([(s * 0.03, s * 0.4), (e - s * 0.03, s * 0.4), (c, e)], fill=255)
    elif name == "arrow":
        draw.rectangle([0, s * 0.36, s * 0.55, e - s * 0.36], fill=255)
        draw.polygon([(s * 0.5, s * 0.12), (e, c), (s * 0.5, e - s * 0.12)], fill=255)
    elif name == "crescent":
        draw.ellipse([0, 0, e, e], fill=255)
        draw.ellipse([s * 0.3, -s * 0.05, e + s * 0.25, e - s * 0.1], fill=0)
    elif name == "pentagon":
        draw.polygon(_regular_polygon(5, c, c * 1.08, c), fill=255)
    elif name == "ring":
        draw.ellipse([0, 0, e, e], fill=255)
        draw.ellipse([s * 0.25, s * 0.25, e - s * 0.25, e - s * 0.25], fill=0)
    else:
        raise ValueError(f"unknown shape {name!r}; expected one of {', '.join(SHAPES)}")


def shape_mask(name: str, size: int, *, rotate90: int = 0) -> np.ndarray:
    """Boolean mask of shape ``name`` in a ``size`` x ``size`` box, cropped to its tight bounding box.

    ``rotate90`` turns the shape by that many quarter turns counter-clockwise (exact, no resampling).
    """
    if size < 4:
        raise ValueError(f"shape size must be at least 4 pixels, got {size}")
    img = Image.new("L", (size, size), 0)
    _draw(ImageDraw.Draw(img), name, float(size))
    mask = np.asarray(img) > 127
    if rotate90:
        mask = np.rot90(mask, rotate90)
    ys, xs = np.nonzero(mask)
    return np.ascontiguousarray(mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
