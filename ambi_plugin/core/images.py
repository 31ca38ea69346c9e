"""Decode an image completely, and notice when its file is cut short, whatever PIL's global policy says.

lmms-eval sets ``PIL.ImageFile.LOAD_TRUNCATED_IMAGES = True`` when ``lmms_eval.api.task`` is imported
(and VLMEvalKit likewise), so inside a harness a truncated file decodes silently into a partly grey
image. We do not change that global (other tasks of the run rely on it); instead the decoder reads through
:class:`_Reader`, which notes a read that asked for bytes and got none: PIL's decoders only do that when
the data ended before the image did (checked for PNG, interlaced PNG, JPEG, progressive JPEG, GIF, BMP
and TIFF; WebP fails to decode on its own). A complete file never ends up there.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any


class TruncatedImageError(OSError):
    """The image file ends before its image data does."""


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

    Raises :class:`TruncatedImageError` for a file cut short, and PIL's own errors for anything else it
    cannot read.
    """
    from PIL import Image

    blob = source if isinstance(source, bytes) else Path(source).read_bytes()
    reader = _Reader(blob)
    with Image.open(reader) as im:
        im.load()
        if reader.ran_dry:
            raise TruncatedImageError(f"image file is truncated ({len(blob)} bytes end before the image data)")
        return im.convert(mode) if mode else im.copy()


__all__ = ["TruncatedImageError", "decode"]
