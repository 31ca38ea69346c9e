"""What a release zip may unpack: only the files a loader reads, within limits on size and compression ratio.

A zip is unpacked into the cache once (:func:`ambi_plugin.benchmarks.release.unpack_zip`). Before a byte is
written, :func:`members_to_unpack` picks the entries a loader reads (annotations, records, images, videos, an
inner zip of images; macOS ``__MACOSX`` / ``._`` entries and paths with ``..`` or a root are left out) and
refuses the archive, naming it and the limit, when

* the entries would inflate to more than ``AMBI_UNPACK_MAX_GB`` gigabytes (default 64), or
* an entry, or the entries together, inflate more than ``AMBI_UNPACK_MAX_RATIO`` times their compressed size
  (default 200; checked for sizes above 16 MiB, so small text files that compress well never trip it).

A 2 MB zip that inflates to 2 GiB (a ratio of 1000) is refused before anything is written. Sizes are the
ones the zip declares; Python's reader never returns more than an entry declares, so they bound what is written.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path, PurePosixPath

READ_SUFFIXES = frozenset(
    {".json", ".jsonl", ".parquet", ".csv", ".tsv", ".txt", ".md", ".yaml", ".yml", ".zip"}  # annotations
    | {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"}  # images
    | {".mp4", ".webm", ".avi", ".mov", ".mkv", ".m4v"}  # videos
)
DEFAULT_MAX_GB = 64.0
DEFAULT_MAX_RATIO = 200.0
RATIO_FLOOR = 16 << 20  # the ratio is checked for sizes above this (bytes)


class ArchiveRefused(ValueError):
    """The archive is over a limit (names the archive, the limit and the variable that changes it)."""


def _limit(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ArchiveRefused(f"${name}={raw!r} is not a number (default {default:g})") from None
    if value <= 0:
        raise ArchiveRefused(f"${name}={raw!r} must be > 0 (default {default:g})")
    return value


def is_read(name: str) -> bool:
    """A member a loader reads: a known suffix, a safe relative path, no macOS metadata."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts or name.startswith(("/", "\\")) or ".." in parts or Path(name).is_absolute():
        return False
    if "__MACOSX" in parts or parts[-1].startswith("._"):
        return False
    return PurePosixPath(parts[-1]).suffix.lower() in READ_SUFFIXES


def members_to_unpack(zf: zipfile.ZipFile, archive: str | Path) -> list[zipfile.ZipInfo]:
    """The entries to unpack, after the limits are checked (:class:`ArchiveRefused` otherwise)."""
    max_bytes = _limit("AMBI_UNPACK_MAX_GB", DEFAULT_MAX_GB) * 1e9
    max_ratio = _limit("AMBI_UNPACK_MAX_RATIO", DEFAULT_MAX_RATIO)
    chosen = [i for i in zf.infolist() if not i.is_dir() and is_read(i.filename)]
    total = sum(i.file_size for i in chosen)
    packed = sum(i.compress_size for i in chosen)
    if total > max_bytes:
        raise ArchiveRefused(
            f"{archive}: refused: its files would unpack to {total / 1e9:.2f} GB, over the limit of "
            f"{max_bytes / 1e9:g} GB (set AMBI_UNPACK_MAX_GB to allow more); nothing was unpacked"
        )
    for info in chosen:
        if info.file_size > RATIO_FLOOR and info.file_size > max_ratio * max(info.compress_size, 1):
            raise ArchiveRefused(
                f"{archive}: refused: entry {info.filename!r} inflates {info.file_size / max(info.compress_size, 1):.0f}"
                f" times ({info.compress_size} -> {info.file_size} bytes), over the limit of {max_ratio:g} "
                "(set AMBI_UNPACK_MAX_RATIO to allow more); nothing was unpacked"
            )
    if total > RATIO_FLOOR and total > max_ratio * max(packed, 1):
        raise ArchiveRefused(
            f"{archive}: refused: its files inflate {total / max(packed, 1):.0f} times ({packed} -> {total} bytes), "
            f"over the limit of {max_ratio:g} (set AMBI_UNPACK_MAX_RATIO to allow more); nothing was unpacked"
        )
    return chosen


__all__ = ["ArchiveRefused", "READ_SUFFIXES", "is_read", "members_to_unpack"]
