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
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..core.schema import validate_record
from ..paths import cache_dir, remove_stale_tmp
from .ambiguous import generate_hybrid, generate_multiview, generate_navon
from .color import CONTRAST_TASKS, STRIPE_TASKS, generate_contrast, generate_stripe
from .common import GREEN_RGB, GREEN_WIDTH, SYNTH_VERSION, BuildContext
from .filter import FILTER_TASKS, generate_filter
from .geometric_tasks import GEOMETRIC_TASKS, generate_geometric
from .scenes import generate_localization, generate_multichoice, generate_object, generate_region

DEFAULT_N = 8

Generator = Callable[[BuildContext], Iterator[tuple[str, dict]]]


@dataclass(frozen=True)
class Family:
    """A family of items: its name (the images' file stem), the tasks it feeds, and its generator.

    The generator yields ``(task, record)`` pairs for each item of ``ctx.indices()``, after writing the item's
    images (``ctx.save_image``), and calls ``ctx.tick()`` once per item; nothing is held across items.
    """

    name: str
    tasks: tuple[str, ...]
    generate: Generator


# The registry: adding a family of items is one entry here (its tasks then join SYNTH_TASKS).
FAMILIES: tuple[Family, ...] = (
    Family("contrast", CONTRAST_TASKS, generate_contrast),
    Family("stripe", STRIPE_TASKS, generate_stripe),
    Family("filter", FILTER_TASKS, generate_filter),
    Family("geometric", GEOMETRIC_TASKS, generate_geometric),
    Family("hybrid", ("ambi_synth_hybrid_open",), generate_hybrid),
    Family("multiview", ("ambi_synth_multiview_open",), generate_multiview),
    Family("object", ("ambi_synth_object_open",), generate_object),
    Family("navon", ("ambi_synth_navon_open",), generate_navon),
    Family("localization", ("ambi_synth_localization",), generate_localization),
    Family("region", ("ambi_synth_region",), generate_region),
    Family("multichoice", ("ambi_synth_multichoice",), generate_multichoice),
)

SYNTH_TASKS: tuple[str, ...] = tuple(task for family in FAMILIES for task in family.tasks)

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

    return tqdm(total=total, desc="ambi synth suite", unit="item")


def _check_registry(families: tuple[Family, ...]) -> None:
    seen: dict[str, str] = {}
    for family in families:
        for task in family.tasks:
            if task in seen:
                raise RuntimeError(f"task {task!r} is fed by two families: {seen[task]!r} and {family.name!r}")
            seen[task] = family.name


def _write_family(ctx: BuildContext, family: Family, files: dict[str, IO[str]], counts: dict[str, int]) -> None:
    """Stream one family's records to their task files, each checked as it is written."""
    for task, rec in family.generate(ctx):
        if task not in family.tasks:
            raise RuntimeError(f"family {family.name!r} produced a record for {task!r}, not one of {family.tasks}")
        path = ctx.out_dir / f"{task}.jsonl"
        line = counts[task] + 1
        validate_record(rec, source=str(path), line=line)
        for img in [rec["image"]] if isinstance(rec.get("image"), str) else rec.get("image", []):
            if not (ctx.out_dir / img).is_file():
                raise RuntimeError(f"{path}:{line}: image {img!r} was not written")
        files[task].write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
        counts[task] = line
    want = len(ctx.indices())
    short = [t for t in family.tasks if counts[t] != want]
    if short:
        raise RuntimeError(f"family {family.name!r} wrote {[counts[t] for t in short]} records for {short}, not {want}")


def _generate_into(ctx: BuildContext) -> dict[str, int]:
    """Generate every family into ``ctx.out_dir`` (records streamed to disk); return the count per task."""
    families = FAMILIES
    _check_registry(families)
    counts = {task: 0 for family in families for task in family.tasks}
    for family in families:
        with ExitStack() as stack:
            files = {
                t: stack.enter_context((ctx.out_dir / f"{t}.jsonl").open("w", encoding="utf-8")) for t in family.tasks
            }
            _write_family(ctx, family, files, counts)
    return counts


def _write_manifest(folder: Path, counts: dict[str, int], seed: int, n: int) -> None:
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

    Same ``seed`` and ``n`` give byte-identical JSONL files and pixel-identical images. Records and images
    are written as they are generated, so peak memory does not grow with ``n``; ``progress`` shows a tqdm bar.
    """
    _check_args(seed, n)
    out_dir = Path(out_dir).expanduser().resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_tmp(out_dir)  # of builds killed before their cleanup (their pid is gone)
    tmp = out_dir.with_name(f".{out_dir.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    tmp.mkdir()
    bar = _progress_bar(n * len(FAMILIES), progress)
    try:
        ctx = BuildContext(tmp, seed, n, tick=bar.update if bar is not None else (lambda: None))
        (tmp / "images").mkdir()
        counts = _generate_into(ctx)
        _write_manifest(tmp, counts, seed, n)
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
