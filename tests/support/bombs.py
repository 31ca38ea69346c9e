"""Hostile files built cheaply: a decompression-bomb PNG (a few KB on disk, 10^8+ pixels decoded)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def png_bomb(path: Path, width: int = 20000, height: int = 20000) -> Path:
    """A valid 1-bit black PNG of ``width`` x ``height`` (20000 x 20000: ~48 KB on disk, 400 million pixels, 1.2 GB
    as RGB), written row by row through zlib so that building it never holds the pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes((width + 7) // 8)  # filter byte + one bit per pixel
    comp = zlib.compressobj(9)
    data = b"".join([comp.compress(row) for _ in range(height)] + [comp.flush()])
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path = Path(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    return path
