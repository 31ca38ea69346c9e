"""What a release zip may unpack: only the files a loader reads, within limits on size and compression ratio.

A zip is unpacked into the cache once (:func:`ambi_plugin.benchmarks.release.unpack_zip`). Before a byte is
written, :func:`members_to_unpack` picks the entries a loader reads (annotations, records, images, videos, an
inner zip of images; macOS ``__MACOSX`` / ``._`` entries and paths with ``..``, a root or a drive letter are
left out, ``\\`` read as a separator on every system) and refuses the archive, naming it and the limit, when

* the entries would inflate to more than ``AMBI_UNPACK_MAX_GB`` gigabytes (default 64), or
* an entry, or the entries together, inflate more than ``AMBI_UNPACK_MAX_RATIO`` times their compressed size
  (default 200; checked for sizes above 16 MiB, so small text files that compress well never trip it).

A 2 MB zip that inflates to 2 GiB (a ratio of 1000) is refused before anything is written. Sizes are the
ones the zip declares; Python's reader never returns more than an entry declares, so they bound what is written.

Every zip we open goes through these limits: a release zip (:func:`ambi_plugin.benchmarks.release.unpack_zip`),
a zip inside it (checked when it is unpacked, before the unpack is kept), and a zip a loader reads in place
(IllusionBench's ``IllusionDataset.zip``, :func:`check_zip`, before a byte of it is copied). A file that is not a zip
at all is named with what to do (:class:`NotAZip`).
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath

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


class NotAZip(ValueError):
    """A file read as a zip is not one (names the file)."""


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
    """A member a loader reads: a known suffix, a relative path that stays inside the folder on any system (no root,
    no drive letter, no ``..``; a backslash read as a separator, as Windows reads it), no macOS metadata."""
    path = PurePosixPath(name.replace("\\", "/"))
    parts = path.parts
    if not parts or path.is_absolute() or PureWindowsPath(name).drive or ".." in parts:
        return False
    if "__MACOSX" in parts or parts[-1].startswith("._"):
        return False
    return PurePosixPath(parts[-1]).suffix.lower() in READ_SUFFIXES


def members_to_unpack(zf: zipfile.ZipFile, archive: str | Path) -> list[zipfile.ZipInfo]:
    """The entries to unpack, after the limits are checked (:class:`ArchiveRefused` otherwise)."""
    max_gb = _limit("AMBI_UNPACK_MAX_GB", DEFAULT_MAX_GB)
    max_bytes = max_gb * 1e9
    max_ratio = _limit("AMBI_UNPACK_MAX_RATIO", DEFAULT_MAX_RATIO)
    chosen = [i for i in zf.infolist() if not i.is_dir() and is_read(i.filename)]
    total = sum(i.file_size for i in chosen)
    packed = sum(i.compress_size for i in chosen)
    if total > max_bytes:
        raise ArchiveRefused(
            f"{archive}: refused: its files would unpack to {total / 1e9:.2f} GB, over the limit of "
            f"{max_gb:g} GB (set AMBI_UNPACK_MAX_GB to allow more); nothing was unpacked"
        )
    for info in chosen:  # an entry that declares 0 packed bytes and more than the floor is over any ratio
        if info.file_size > RATIO_FLOOR and info.file_size > max_ratio * info.compress_size:
            raise ArchiveRefused(
                f"{archive}: refused: entry {info.filename!r} inflates {info.file_size / max(info.compress_size, 1):.0f}"
                f" times ({info.compress_size} -> {info.file_size} bytes), over the limit of {max_ratio:g} "
                "(set AMBI_UNPACK_MAX_RATIO to allow more); nothing was unpacked"
            )
    if total > RATIO_FLOOR and total > max_ratio * packed:
        raise ArchiveRefused(
            f"{archive}: refused: its files inflate {total / max(packed, 1):.0f} times ({packed} -> {total} bytes), "
            f"over the limit of {max_ratio:g} (set AMBI_UNPACK_MAX_RATIO to allow more); nothing was unpacked"
        )
    return chosen


def open_zip(archive: str | Path) -> zipfile.ZipFile:
    """``archive`` opened for reading; a file that is not a zip (or a torn one) raises :class:`NotAZip` naming it."""
    try:
        return zipfile.ZipFile(archive)
    except zipfile.BadZipFile as exc:
        size = Path(archive).stat().st_size  # it was opened: it exists
        raise NotAZip(
            f"{archive} is not a zip file ({exc}; {size} bytes). A release read as a zip must be the archive as "
            "downloaded, complete: download it again, or unpack it and point at the folder"
        ) from None


def check_zip(archive: str | Path) -> None:
    """Refuse ``archive`` (:class:`ArchiveRefused`) when what a loader reads of it is over the limits."""
    with open_zip(archive) as zf:
        members_to_unpack(zf, archive)


__all__ = ["ArchiveRefused", "NotAZip", "READ_SUFFIXES", "check_zip", "is_read", "members_to_unpack", "open_zip"]
