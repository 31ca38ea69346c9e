"""Small numpy image helpers: Gaussian blur, smooth noise textures, masks painted onto canvases.

Pure numpy (no scipy), so the suite only needs numpy and Pillow at run time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageFilter


def gaussian_kernel(sigma: float) -> np.ndarray:
    """A normalized 1-D Gaussian kernel of radius ``ceil(3 * sigma)``."""
    if sigma <= 0:
        raise ValueError(f"sigma must be positive, got {sigma}")
    radius = int(np.ceil(3.0 * sigma))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    k = np.exp(-(x**2) / (2.0 * sigma * sigma))
    return k / k.sum()


def _blur_axis(img: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    radius = (len(kernel) - 1) // 2
    moved = np.moveaxis(img, axis, 0)
    padded = np.pad(moved, [(radius, radius)] + [(0, 0)] * (moved.ndim - 1), mode="reflect")
    out = np.zeros_like(moved)
    length = moved.shape[0]
    for j, w in enumerate(kernel):
        out += w * padded[j : j + length]
    return np.moveaxis(out, 0, axis)


def gaussian_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Separable Gaussian blur of a 2-D (or H x W x C) float array, reflecting at the borders."""
    arr = np.asarray(img, dtype=np.float64)
    kernel = gaussian_kernel(sigma)
    return _blur_axis(_blur_axis(arr, kernel, 0), kernel, 1)


def smooth_noise(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """Blob noise in [0, 1]: white noise blurred with ``sigma = scale`` pixels, then min-max normalized."""
    field = gaussian_blur(rng.standard_normal((height, width)), scale)
    lo, hi = field.min(), field.max()
    return (field - lo) / (hi - lo + 1e-12)


def two_tone_texture(
    rng: np.random.Generator,
    height: int,
    width: int,
    color_a: Sequence[float],
    color_b: Sequence[float],
    *,
    scale: float,
    grain: float = 0.08,
) -> np.ndarray:
    """An H x W x 3 float texture mixing two colors through blob noise, with a little fine grain."""
    t = smooth_noise(rng, height, width, scale)
    t = np.clip(t + grain * rng.standard_normal((height, width)), 0.0, 1.0)
    a = np.asarray(color_a, dtype=np.float64)
    b = np.asarray(color_b, dtype=np.float64)
    return a[None, None, :] * (1.0 - t[..., None]) + b[None, None, :] * t[..., None]


def to_uint8(img: np.ndarray) -> np.ndarray:
    """Round and clip a float image to uint8."""
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def blank(height: int, width: int, color: Sequence[int]) -> np.ndarray:
    """An H x W x 3 uint8 canvas filled with ``color``."""
    canvas = np.empty((height, width, 3), dtype=np.uint8)
    canvas[...] = np.asarray(color, dtype=np.uint8)
    return canvas


def paint(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, color: Sequence[int]) -> None:
    """Set the pixels of ``mask`` (placed with its top-left corner at ``x, y``) to ``color``, in place."""
    h, w = mask.shape
    region = canvas[y : y + h, x : x + w]
    if region.shape[:2] != mask.shape:
        raise ValueError(
            f"mask of size {w}x{h} at ({x}, {y}) does not fit a {canvas.shape[1]}x{canvas.shape[0]} canvas"
        )
    region[mask] = np.asarray(color, dtype=np.uint8)


def mask_bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The tight inclusive bounding box ``(x1, y1, x2, y2)`` of the True pixels of ``mask``."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        raise ValueError("empty mask has no bounding box")
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def crop_to_content(mask: np.ndarray) -> np.ndarray:
    """``mask`` cropped to its tight bounding box."""
    x1, y1, x2, y2 = mask_bbox(mask)
    return mask[y1 : y2 + 1, x1 : x2 + 1]


def resize_mask(mask: np.ndarray, width: int, height: int) -> np.ndarray:
    """Nearest-neighbour resize of a boolean mask."""
    img = Image.fromarray(mask.astype(np.uint8) * 255, "L").resize((width, height), Image.Resampling.NEAREST)
    return np.asarray(img) > 127


def dilate(mask: np.ndarray, radius: int) -> np.ndarray:
    """Binary dilation by a square of side ``2 * radius + 1``; the result is padded by ``radius`` on every side."""
    img = Image.fromarray(mask.astype(np.uint8) * 255, "L")
    padded = Image.new("L", (img.width + 2 * radius, img.height + 2 * radius), 0)
    padded.paste(img, (radius, radius))
    if radius <= 0:
        return np.asarray(padded) > 127
    return np.asarray(padded.filter(ImageFilter.MaxFilter(2 * radius + 1))) > 127
