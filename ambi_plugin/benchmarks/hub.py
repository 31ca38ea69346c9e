"""Loading a released dataset from the HF Hub (or its offline cache, or a local folder laid out like
the Hub) and writing canonical records into ambi-plugin's cache, atomically.

Used by the benchmark modules' ``materialize_from_hub()``. When the data is neither cached nor
reachable, :class:`DataUnavailableError` says what to do instead (a local copy and its variable).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from filelock import FileLock

from ambi_plugin.paths import cache_dir, replace_dir_atomically


class DataUnavailableError(RuntimeError):
    """A benchmark's data is neither configured locally nor loadable from the Hub (or its cache)."""


_FAILED: dict[str, str] = {}
# the limits a conversion applies to each row (benchmarks/rows.py, core/images.py): part of every conversion's key
LIMITS = ("AMBI_MAX_TEXT_CHARS", "AMBI_MAX_IMAGE_PIXELS")


def load_hub_dataset(source: str, *, benchmark: str):
    """``datasets.load_dataset(source)`` as a DatasetDict (all splits); a Hub id or a local folder.

    Raises :class:`DataUnavailableError` naming the source, the reason and the local-copy variable.
    """
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - the lmms extra brings datasets
        raise DataUnavailableError(
            f"loading {source!r} needs the 'datasets' package: pip install 'ambi-plugin[lmms]'"
        ) from exc
    if str(source) in _FAILED:  # one attempt per process: every task of a benchmark asks for the same source
        raise DataUnavailableError(_FAILED[str(source)])
    try:
        return datasets.load_dataset(str(source))
    except Exception as exc:  # noqa: BLE001 - every failure becomes one actionable message
        offline = os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("HF_DATASETS_OFFLINE") == "1"
        _FAILED[str(source)] = (
            f"{benchmark}: cannot load the dataset {source!r} ({type(exc).__name__}: {str(exc)[:300]})"
            + (" while offline (HF_HUB_OFFLINE=1) and it is not in the HF cache" if offline else "")
            + f". Point AMBI_{benchmark.upper()}_DIR (or data.{benchmark} in the ambi config) at a local copy "
            f"in the canonical schema (ambi import {benchmark} ...), or run once online to cache the Hub release."
        )
        raise DataUnavailableError(_FAILED[str(source)]) from None


def source_key(*parts: str, read: Iterable[str | os.PathLike] = ()) -> str:
    """A short stable key for a cache folder name: what a conversion depends on, and nothing else.

    ``parts`` are text (a converter version, an option's value, a repo id, a resolved path as a name) and are never
    looked up on disk: an unset option (``""``) is the empty text, not the current folder. ``read`` lists the files
    and folders the conversion reads (absolute paths): a file adds its size and modification time, a folder those of
    every file below it, so an edited copy is converted again. No other file is looked at, so the key does not depend
    on the folder a run is started from. The row limits (:data:`LIMITS`) are part of every key."""
    items = [str(p) for p in parts]
    items += [f"{var}={os.environ.get(var, '')}" for var in LIMITS]  # a bad row under one limit may load under another
    for entry in read:
        path = Path(entry)
        if not str(entry) or not path.is_absolute():
            raise ValueError(f"source_key: the paths a conversion reads must be absolute, got {str(entry)!r}")
        items.append(f"read:{path}")
        if path.is_file():
            st = path.stat()
            items.append(f":{st.st_size}:{st.st_mtime_ns}")
        elif path.is_dir():
            for f in sorted(p for p in path.rglob("*") if p.is_file()):
                st = f.stat()
                items.append(f"{f.relative_to(path)}:{st.st_size}:{st.st_mtime_ns}")
        else:
            items.append(":missing")
    return hashlib.sha256("\x00".join(items).encode()).hexdigest()[:12]


def materialize(out_dir: Path, build: Callable[[Path], None]) -> Path:
    """Run ``build(tmp_dir)`` once and move its result to ``out_dir`` atomically (file-locked)."""
    out_dir = Path(out_dir)
    if (out_dir / ".complete").is_file():
        return out_dir
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out_dir) + ".lock"):
        if (out_dir / ".complete").is_file():
            return out_dir

        def build_complete(tmp: Path) -> None:
            build(tmp)
            (tmp / ".complete").write_text("ok\n")

        replace_dir_atomically(out_dir, build_complete)
    return out_dir


def benchmark_cache(benchmark: str, key: str) -> Path:
    return cache_dir() / benchmark / key


def save_image(image, path: Path) -> None:
    """Save a PIL image (or a datasets Image dict with bytes/path) to ``path`` unless it exists."""
    path = Path(path)
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(image, dict):
        if image.get("bytes"):
            path.write_bytes(image["bytes"])
            return
        if image.get("path") and Path(image["path"]).is_file():
            shutil.copyfile(image["path"], path)
            return
        raise ValueError(f"cannot save image {path.name}: the dataset row holds neither bytes nor a readable path")
    fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".webp": "WEBP"}.get(path.suffix.lower(), "PNG")
    img = image.convert("RGB") if fmt == "JPEG" and image.mode not in ("RGB", "L") else image
    img.save(path, format=fmt)
