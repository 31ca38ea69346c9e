"""Build the synthetic suite on disk (atomically) and cache it (under a file lock).

Layout of a suite folder::

    manifest.json            {"version", "seed", "n", "tasks": {task: count}, "green_box", "created_by"}
    images/*.png
    <task_name>.jsonl        one record per line (see ambi_plugin.core.schema), image paths relative

The manifest is written last, inside a temporary sibling folder that is renamed into place, so a
folder that has a manifest is always a complete suite.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from ...core.schema import validate_record, write_records
from ...paths import cache_dir
from .ambiguous import generate_hybrid, generate_multiview, generate_navon
from .color import generate_contrast, generate_stripe
from .common import GREEN_RGB, GREEN_WIDTH, SYNTH_VERSION, BuildContext
from .geometric_tasks import generate_geometric
from .scenes import generate_localization, generate_multichoice, generate_object, generate_region

DEFAULT_N = 8

SYNTH_TASKS: tuple[str, ...] = (
    "ambi_synth_contrast_pixel",
    "ambi_synth_contrast_human",
    "ambi_synth_stripe_pixel",
    "ambi_synth_stripe_human",
    "ambi_synth_geometric_tf",
    "ambi_synth_geometric_mc",
    "ambi_synth_geometric_yn",
    "ambi_synth_geometric_letter",
    "ambi_synth_hybrid_open",
    "ambi_synth_multiview_open",
    "ambi_synth_object_open",
    "ambi_synth_navon_open",
    "ambi_synth_localization",
    "ambi_synth_region",
    "ambi_synth_multichoice",
    "ambi_synth_description",
)

Generator = Callable[[BuildContext], dict[str, list[dict]]]

# Each family draws its own images and returns the records of one or more tasks.
FAMILIES: tuple[tuple[str, Generator], ...] = (
    ("contrast", generate_contrast),
    ("stripe", generate_stripe),
    ("geometric", generate_geometric),
    ("hybrid", generate_hybrid),
    ("multiview", generate_multiview),
    ("object", generate_object),
    ("navon", generate_navon),
    ("localization", generate_localization),
    ("region", generate_region),
    ("multichoice", generate_multichoice),
)

MANIFEST = "manifest.json"
CREATED_BY = "ambi-plugin synth"


def _check_args(seed: int, n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n (items per task) must be a positive integer, got {n!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="ambi synth suite", unit="img")


def _generate_all(ctx: BuildContext) -> dict[str, list[dict]]:
    records: dict[str, list[dict]] = {}
    for family, generate in FAMILIES:
        for task, recs in generate(ctx).items():
            if task in records:
                raise RuntimeError(f"family {family!r} produced task {task!r} twice")
            records[task] = recs
    missing = [t for t in SYNTH_TASKS if t not in records]
    extra = [t for t in records if t not in SYNTH_TASKS]
    if missing or extra:
        raise RuntimeError(f"synthetic generators out of sync with SYNTH_TASKS: missing {missing}, unexpected {extra}")
    return records


def _write_suite(folder: Path, records: dict[str, list[dict]], seed: int, n: int) -> None:
    counts: dict[str, int] = {}
    for task in SYNTH_TASKS:
        path = folder / f"{task}.jsonl"
        for line, rec in enumerate(records[task], start=1):
            validate_record(rec, source=str(path), line=line)
            for img in [rec["image"]] if isinstance(rec.get("image"), str) else rec.get("image", []):
                if not (folder / img).is_file():
                    raise RuntimeError(f"{path}:{line}: image {img!r} was not written")
        counts[task] = write_records(path, records[task])
    manifest = {
        "version": SYNTH_VERSION,
        "seed": seed,
        "n": n,
        "tasks": counts,
        "green_box": {"rgb": list(GREEN_RGB), "width": GREEN_WIDTH},
        "created_by": CREATED_BY,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _swap_into_place(tmp: Path, out_dir: Path) -> None:
    """Rename ``tmp`` to ``out_dir``, replacing an existing folder (moved aside first, then removed)."""
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{uuid.uuid4().hex[:8]}")
        os.replace(out_dir, old)
    os.replace(tmp, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build_suite(out_dir: str | Path, *, seed: int = 0, n: int = DEFAULT_N, progress: bool = False) -> Path:
    """Generate the synthetic suite into ``out_dir`` (replacing what is there); return its path.

    Same ``seed`` and ``n`` give byte-identical JSONL files and pixel-identical images.
    """
    _check_args(seed, n)
    out_dir = Path(out_dir).expanduser().resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.with_name(f".{out_dir.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    tmp.mkdir()
    bar = _progress_bar(n * len(FAMILIES), progress)
    try:
        ctx = BuildContext(tmp, seed, n, tick=bar.update if bar is not None else (lambda: None))
        (tmp / "images").mkdir()
        records = _generate_all(ctx)
        _write_suite(tmp, records, seed, n)
        _swap_into_place(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if bar is not None:
            bar.close()
    return out_dir


def default_root(seed: int = 0, n: int = DEFAULT_N) -> Path:
    """The cache folder of the suite for ``seed`` and ``n``."""
    return cache_dir() / "synth" / f"v{SYNTH_VERSION}-seed{seed}-n{n}"


def read_manifest(folder: str | Path) -> dict | None:
    """The suite's manifest, or None when it is missing or unreadable."""
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_current(folder: str | Path, *, seed: int, n: int) -> bool:
    """True when ``folder`` holds a complete suite of this version, seed and size."""
    m = read_manifest(folder)
    return bool(m) and m.get("version") == SYNTH_VERSION and m.get("seed") == seed and m.get("n") == n


def ensure_suite(*, seed: int = 0, n: int = DEFAULT_N, root: Path | None = None) -> Path:
    """The cached suite folder, built on first use (once, even with concurrent callers)."""
    _check_args(seed, n)
    folder = Path(root).expanduser().resolve() if root is not None else default_root(seed, n)
    if is_current(folder, seed=seed, n=n):
        return folder
    from filelock import FileLock

    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder.with_name(folder.name + ".lock"))):
        if not is_current(folder, seed=seed, n=n):
            build_suite(folder, seed=seed, n=n)
    return folder
