"""Box coordinate systems: a model's boxes -> pixels of the original image.

Localization prompts state the original image size, but models answer in their own coordinate
systems (PROTOCOL, AmbiBench "Localization"). Scoring converts predicted boxes to pixels of the
original image before matching them against the ground truth. The system is a per-model setting
(``box_format`` in a task YAML's ``lmms_eval_specific_kwargs``), copied into the record that is
scored (:func:`with_model_settings`); a record may also carry it itself.

``box_format``:

* ``absolute`` (default): pixels of the original image, what the prompt asks for.
* ``norm1000``: 0-1000 relative coordinates (InternVL, Qwen3-VL grounding).
* ``norm1``: 0-1 relative coordinates.
* ``qwen_resized``: pixels of the image as Qwen2.5-VL saw it, i.e. after its processor resized the
  original to multiples of ``patch_factor`` (28) with ``min_pixels`` <= area <= ``max_pixels``
  (:func:`smart_resize`). Defaults are lmms-eval 0.7's ``qwen2_5_vl`` defaults; set them to the
  values of your ``--model_args`` when you change those.

The original size comes from the record's ``image_size`` ([width, height]); when a record lacks
it, the first image file is opened.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

BOX_FORMATS: tuple[str, ...] = ("absolute", "norm1000", "norm1", "qwen_resized")

# lmms-eval 0.7 qwen2_5_vl defaults (min_pixels=256*28*28, max_pixels=1605632), factor 28 (14 px patches, 2x2 merge)
QWEN_MIN_PIXELS = 256 * 28 * 28
QWEN_MAX_PIXELS = 1605632
QWEN_FACTOR = 28

# Keys of lmms_eval_specific_kwargs that configure scoring (copied into the scored record).
MODEL_SETTING_KEYS: tuple[str, ...] = ("box_format", "min_pixels", "max_pixels", "patch_factor")


class BoxFormatError(ValueError):
    """A box format that is unknown or cannot be applied to a record."""


def smart_resize(
    height: int,
    width: int,
    *,
    factor: int = QWEN_FACTOR,
    min_pixels: int = QWEN_MIN_PIXELS,
    max_pixels: int = QWEN_MAX_PIXELS,
) -> tuple[int, int]:
    """The (height, width) Qwen2.5-VL's processor resizes an image to.

    Both sides become multiples of ``factor`` (rounded), the area is brought into
    [``min_pixels``, ``max_pixels``] by a common scale (floored when shrinking, ceiled when growing),
    and the aspect ratio is kept as closely as that allows.
    """
    if height <= 0 or width <= 0:
        raise BoxFormatError(f"Expected a positive image size but got height={height}, width={width}")
    if min_pixels > max_pixels:
        raise BoxFormatError(f"Expected min_pixels <= max_pixels but got {min_pixels} > {max_pixels}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def image_size(record: Mapping[str, Any]) -> tuple[int, int]:
    """The original (width, height) of the record's image: ``image_size``, else read from the file."""
    size = record.get("image_size")
    if isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(v, (int, float)) for v in size):
        return int(size[0]), int(size[1])
    img = record.get("image")
    path = img[0] if isinstance(img, list) and img else img
    if not isinstance(path, str):
        raise BoxFormatError(
            f"record id={record.get('id')!r}: field 'image_size' ([width, height]) is needed to convert boxes "
            "and the record has no image file to read it from"
        )
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.width, im.height
    except OSError as exc:
        raise BoxFormatError(
            f"record id={record.get('id')!r}: field 'image_size' is missing and {path!r} cannot be read ({exc})"
        ) from None


def box_format_of(record: Mapping[str, Any]) -> str:
    fmt = record.get("box_format") or "absolute"
    if fmt not in BOX_FORMATS:
        raise BoxFormatError(
            f"record id={record.get('id')!r}: Expected `box_format` to be one of {BOX_FORMATS} but got {fmt!r}"
        )
    return fmt


def scale_factors(record: Mapping[str, Any]) -> tuple[float, float]:
    """(sx, sy) such that original pixels = (x * sx, y * sy) for the record's ``box_format``."""
    fmt = box_format_of(record)
    if fmt == "absolute":
        return 1.0, 1.0
    width, height = image_size(record)
    if fmt == "norm1000":
        return width / 1000.0, height / 1000.0
    if fmt == "norm1":
        return float(width), float(height)
    h_bar, w_bar = smart_resize(
        height,
        width,
        factor=int(record.get("patch_factor") or QWEN_FACTOR),
        min_pixels=int(record.get("min_pixels") or QWEN_MIN_PIXELS),
        max_pixels=int(record.get("max_pixels") or QWEN_MAX_PIXELS),
    )
    return width / w_bar, height / h_bar


def to_original_pixels(boxes: Sequence[Sequence[float]], record: Mapping[str, Any]) -> list[list[float]]:
    """Predicted boxes in the record's ``box_format`` -> [x1, y1, x2, y2] pixels of the original image."""
    boxes = [list(b) for b in boxes]
    if not boxes:
        return boxes
    sx, sy = scale_factors(record)
    if sx == 1.0 and sy == 1.0:
        return boxes
    return [[b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy] for b in boxes]


def from_original_pixels(box: Sequence[float], record: Mapping[str, Any]) -> list[float]:
    """The inverse of :func:`to_original_pixels` for one box (reference answers in a model's system)."""
    sx, sy = scale_factors(record)
    return [box[0] / sx, box[1] / sy, box[2] / sx, box[3] / sy]


def with_model_settings(record: dict, kwargs: Mapping[str, Any] | None) -> dict:
    """The record with the scoring settings of a model's ``lmms_eval_specific_kwargs`` (a copy if any)."""
    if not kwargs:
        return record
    settings = {k: kwargs[k] for k in MODEL_SETTING_KEYS if kwargs.get(k) is not None}
    if not settings:
        return record
    if "box_format" in settings and settings["box_format"] not in BOX_FORMATS:
        raise BoxFormatError(
            f"lmms_eval_specific_kwargs: Expected `box_format` to be one of {BOX_FORMATS} "
            f"but got {settings['box_format']!r}"
        )
    return {**record, **settings}


__all__ = [
    "BOX_FORMATS",
    "BoxFormatError",
    "MODEL_SETTING_KEYS",
    "box_format_of",
    "from_original_pixels",
    "image_size",
    "scale_factors",
    "smart_resize",
    "to_original_pixels",
    "with_model_settings",
]
