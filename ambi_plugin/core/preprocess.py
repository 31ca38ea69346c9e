"""Image preprocessing a benchmark prescribes, applied when images are handed to a model.

A *preprocess spec* is a small mapping, kept in the record (``preprocess`` field, the data's default)
or in a task YAML (``lmms_eval_specific_kwargs: {default: {preprocess: {...}}}``, which wins)::

    {"max_side": 512, "grayscale": true}

* ``max_side`` (int): downscale so the longest side is at most this many pixels, aspect ratio kept,
  LANCZOS resampling; images already small enough are left alone (never upscaled). The new short
  side is truncated to an int, as IllusionVQA's released inference code does.
* ``grayscale`` (bool): convert to one luminance channel (PIL ``L``), returned as RGB so every
  model backend accepts it (IllusionVQA soft-localization).

Unknown keys or wrong types raise ``ValueError`` naming the key, before any model call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEYS = ("max_side", "grayscale")


def check_spec(spec: Any, *, where: str = "preprocess") -> dict[str, Any]:
    """Validate a preprocess spec; return it as a plain dict ({} for None)."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where}: expected a mapping like {{max_side: 512, grayscale: true}}, got {spec!r}")
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; expected some of {KEYS}")
    out = dict(spec)
    side = out.get("max_side")
    if side is not None and not (isinstance(side, int) and not isinstance(side, bool) and side > 0):
        raise ValueError(f"{where}: 'max_side' must be a positive int, got {side!r}")
    gray = out.get("grayscale")
    if gray is not None and not isinstance(gray, bool):
        raise ValueError(f"{where}: 'grayscale' must be true or false, got {gray!r}")
    return out


def downscaled_size(width: int, height: int, max_side: int) -> tuple[int, int]:
    """(w, h) after a downscale-only resize to ``max_side`` on the longest side."""
    if width <= max_side and height <= max_side:
        return width, height
    if width >= height:
        return max_side, max(1, int(height * (max_side / width)))
    return max(1, int(width * (max_side / height))), max_side


def preprocess_image(image, spec: Mapping[str, Any] | None):
    """Apply a preprocess spec to a PIL image; returns a new RGB image (or the input when nothing applies)."""
    from PIL import Image

    spec = check_spec(spec)
    out = image
    side = spec.get("max_side")
    if side:
        size = downscaled_size(out.width, out.height, side)
        if size != (out.width, out.height):
            out = out.resize(size, Image.Resampling.LANCZOS)
    if spec.get("grayscale"):
        out = out.convert("L").convert("RGB")
    elif out.mode != "RGB":
        out = out.convert("RGB")
    return out
