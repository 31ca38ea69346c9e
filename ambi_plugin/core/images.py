"""Decode an image completely, and notice when its file is cut short, whatever PIL's global policy says.

lmms-eval sets ``PIL.ImageFile.LOAD_TRUNCATED_IMAGES = True`` when ``lmms_eval.api.task`` is imported
(and VLMEvalKit likewise), so inside a harness a truncated file decodes silently into a partly grey
image. We do not change that global (other tasks of the run rely on it); instead the decoder reads through
:class:`_Reader`, which notes a read that asked for bytes and got none: PIL's decoders only do that when
the data ended before the image did (checked for PNG, interlaced PNG, JPEG, progressive JPEG, GIF, BMP
and TIFF; WebP fails to decode on its own). A complete file never ends up there.

An image of more pixels than ``AMBI_MAX_IMAGE_PIXELS`` (default 178,956,970: PIL's own decompression-bomb limit,
twice its ``Image.MAX_IMAGE_PIXELS``) is refused from its header, before a pixel is decoded
(:class:`ImageTooLargeError`), whatever PIL's global limit says: VLMEvalKit raises that global to 10^9 on import.
A 20000 x 20000 PNG is 48 KB on disk and 1.2 GB decoded. A release row with such an image is a bad row, an item
with one at answer time is that item's error.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any


class TruncatedImageError(OSError):
    """The image file ends before its image data does."""


class ImageTooLargeError(ValueError):
    """The image has more pixels than ``AMBI_MAX_IMAGE_PIXELS`` (a decompression bomb, or a limit set too low)."""


MAX_PIXELS_ENV = "AMBI_MAX_IMAGE_PIXELS"
DEFAULT_MAX_PIXELS = 178_956_970  # PIL's decompression-bomb error limit: 2 x Image.MAX_IMAGE_PIXELS's default


class ImageLimitError(RuntimeError):
    """``AMBI_MAX_IMAGE_PIXELS`` is not a positive integer (a setting, never a bad row)."""


def max_pixels() -> int:
    """The most pixels an image may have: ``$AMBI_MAX_IMAGE_PIXELS``, else :data:`DEFAULT_MAX_PIXELS`."""
    import os

    raw = os.environ.get(MAX_PIXELS_ENV, "").strip().replace("_", "")
    if not raw:
        return DEFAULT_MAX_PIXELS
    try:
        value = int(float(raw))
    except ValueError:
        value = 0
    if value <= 0:
        raise ImageLimitError(
            f"${MAX_PIXELS_ENV}={os.environ[MAX_PIXELS_ENV]!r} is not a positive number of pixels "
            f"(default {DEFAULT_MAX_PIXELS})"
        )
    return value


def check_pixels(width: int, height: int, name: str | Path) -> None:
    """Raise :class:`ImageTooLargeError` when ``width x height`` is over :func:`max_pixels`."""
    limit = max_pixels()
    if width * height > limit:
        raise ImageTooLargeError(
            f"image too large: {Path(str(name)).name} is {width} x {height} = {width * height} pixels, over the "
            f"limit of {limit} (a decompression bomb? set {MAX_PIXELS_ENV} to allow more)"
        )


def open_image(source: str | Path | Any, name: str | Path | None = None) -> Any:
    """``PIL.Image.open(source)`` with the size checked from the header (nothing decoded yet); use it in a ``with``.

    Raises :class:`ImageTooLargeError` over the limit (also when PIL's own check refuses it first)."""
    from PIL import Image

    label = name if name is not None else source
    limit = max_pixels()
    if Image.MAX_IMAGE_PIXELS is not None and limit > 2 * Image.MAX_IMAGE_PIXELS:
        Image.MAX_IMAGE_PIXELS = (limit + 1) // 2  # the user allows more than PIL's own default: so does PIL
    try:
        im = Image.open(source)
    except Image.DecompressionBombError as exc:  # PIL's own check came first: its message has both numbers
        numbers = re.findall(r"\d+", str(exc))
        pixels, pil_limit = (numbers + ["?", "?"])[:2]
        raise ImageTooLargeError(
            f"image too large: {Path(str(label)).name} is {pixels} pixels, over the limit of {pil_limit} "
            f"(a decompression bomb? set {MAX_PIXELS_ENV} to allow more)"
        ) from None
    try:
        check_pixels(im.width, im.height, label)
    except ImageTooLargeError:
        im.close()
        raise
    return im


class _Reader(io.BytesIO):
    """An in-memory file that remembers whether a read of n > 0 bytes came back empty."""

    ran_dry = False

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        if size is not None and size > 0 and not data:
            self.ran_dry = True
        return data


def decode(source: str | Path | bytes, *, mode: str | None = "RGB") -> Any:
    """The fully decoded PIL image of a file path or its bytes (converted to ``mode`` unless None).

    Raises :class:`TruncatedImageError` for a file cut short, :class:`ImageTooLargeError` for an image over
    :func:`max_pixels` (before decoding it), and PIL's own errors for anything else it cannot read.
    """
    blob = source if isinstance(source, bytes) else Path(source).read_bytes()
    reader = _Reader(blob)
    with open_image(reader, name="the image" if isinstance(source, bytes) else source) as im:
        im.load()
        if reader.ran_dry:
            raise TruncatedImageError(f"image file is truncated ({len(blob)} bytes end before the image data)")
        return im.convert(mode) if mode else im.copy()


__all__ = [
    "DEFAULT_MAX_PIXELS",
    "ImageLimitError",
    "ImageTooLargeError",
    "TruncatedImageError",
    "check_pixels",
    "decode",
    "max_pixels",
    "open_image",
]
