"""Shared pieces of the synthetic suite: version, stable seeding, record skeletons and image output.

Every random choice of the suite comes from a :class:`numpy.random.Generator` seeded from a SHA-256
digest of ``(seed, family, key)``, never from Python's salted ``hash()``, so a build is reproducible
across processes and machines.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

SYNTH_VERSION = "3"
BENCHMARK = "ambi_synth"
SOURCE = f"ambi_synth v{SYNTH_VERSION}"
TASK_PREFIX = "ambi_synth_"

GREEN_RGB = (0, 255, 0)
GREEN_WIDTH = 3


def stable_seed(*keys: object) -> int:
    """A 64-bit seed derived from ``keys`` through SHA-256 (stable across runs and platforms)."""
    text = "\x1f".join(str(k) for k in keys)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def item_rng(seed: int, family: str, index: int | str) -> np.random.Generator:
    """The generator of one item (``index``) of one family of images."""
    return np.random.default_rng(stable_seed(seed, family, index))


# A family's suite-level plan (answer balancing, category cycling) is made in blocks of this many items, so
# memory does not grow with n. Suites of n <= PLAN_BLOCK are one block, drawn exactly as before blocks existed.
PLAN_BLOCK = 4096

PlanBlock = Callable[[np.random.Generator, int, int], Sequence[Any]]


def plan_rng(seed: int, family: str, block: int = 0) -> np.random.Generator:
    """The generator of block ``block`` of a family's suite-level plan (answer balancing, category cycling)."""
    keys: tuple[object, ...] = (seed, family, "plan") if block == 0 else (seed, family, "plan", block)
    return np.random.default_rng(stable_seed(*keys))


def planned(
    seed: int, family: str, n: int, make_block: PlanBlock, items: range | None = None
) -> Iterator[tuple[int, Any]]:
    """``(i, plan of item i)`` for each ``i`` of ``items`` (default: all ``n``), block by block.

    ``make_block(rng, start, size)`` plans items ``start..start+size-1``; only the blocks that hold ``items``
    are made, so item ``i`` of a plan for any ``n`` costs one block, not ``i`` items.
    """
    items = range(n) if items is None else items
    block, values = -1, []
    for i in items:
        if not 0 <= i < n:
            raise ValueError(f"item {i} is not one of the {n} items of the plan")
        if i // PLAN_BLOCK != block:
            block = i // PLAN_BLOCK
            start = block * PLAN_BLOCK
            values = make_block(plan_rng(seed, family, block), start, min(PLAN_BLOCK, n - start))
        yield i, values[i - block * PLAN_BLOCK]


@dataclass
class BuildContext:
    """Where a family writes its images, and the suite-level parameters.

    ``items`` (default: all ``n``) are the indices a generator builds: item ``i`` of a suite of ``n`` items
    can be built alone (``items=range(i, i + 1)``), identical to the same item of a full build.
    """

    out_dir: Path
    seed: int
    n: int
    tick: Callable[[], None] = field(default=lambda: None)
    items: range | None = None

    def __post_init__(self) -> None:
        if self.items is None:
            self.items = range(self.n)
        elif len(self.items) and not (0 <= min(self.items) and max(self.items) < self.n):
            raise ValueError(f"items {self.items} are not all among the {self.n} items of the suite")

    def indices(self) -> range:
        """The indices of the items to build, in order."""
        assert self.items is not None
        return self.items

    def save_image(self, image: Image.Image | np.ndarray, stem: str, index: int, *, compress_level: int = 6) -> str:
        """Save an RGB image as ``images/<stem>_<index>.png``; return that path relative to the suite.

        ``compress_level`` (zlib, 0-9) changes the file size and the time taken, never the pixels.
        """
        rel = f"images/{stem}_{index:04d}.png"
        path = self.out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(image, np.ndarray):
            image = Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8), "RGB")
        image.convert("RGB").save(path, format="PNG", compress_level=compress_level)
        return rel

    def rng(self, family: str, index: int | str) -> np.random.Generator:
        return item_rng(self.seed, family, index)

    def plan(self, family: str, make_block: PlanBlock) -> Iterator[tuple[int, Any]]:
        """``(i, plan of item i)`` for the items to build, from blocks of :data:`PLAN_BLOCK` (see :func:`planned`)."""
        return planned(self.seed, family, self.n, make_block, self.indices())

    def cycled(self, family: str, values: Sequence[str]) -> Iterator[tuple[int, str]]:
        """``(i, value)``: ``n`` values cycling through ``values`` (see :func:`cycle_plan`), block by block."""
        return self.plan(family, lambda rng, start, size: cycle_plan(rng, values, size, start=start))


def record_id(task: str, index: int) -> str:
    """``ambi_synth_contrast_pixel``, 3 -> ``contrast_pixel_0003``."""
    short = task[len(TASK_PREFIX) :] if task.startswith(TASK_PREFIX) else task
    return f"{short}_{index:04d}"


def base_record(
    task: str,
    index: int,
    *,
    category: str,
    task_type: str,
    answer_format: str,
    image: str,
    breakdown: dict[str, str],
    question: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The fields every synthetic record shares, plus ``extra`` task-specific ones."""
    rec: dict[str, Any] = {
        "id": record_id(task, index),
        "benchmark": BENCHMARK,
        "category": category,
        "task_type": task_type,
        "answer_format": answer_format,
        "image": image,
        "breakdown": {str(k): str(v) for k, v in breakdown.items()},
        "source": SOURCE,
    }
    if question is not None:
        rec["question"] = question
    rec.update(extra)
    return rec


def balanced_bools(rng: np.random.Generator, n: int, start: int = 0) -> list[bool]:
    """``n`` booleans, half True (the extra one True when ``n`` is odd), in a seeded random order.

    ``start`` is the index of the first item in the whole plan (a block of it): blocks of even size keep the balance.
    """
    values = [(start + i) % 2 == 0 for i in range(n)]
    order = rng.permutation(n)
    return [values[int(j)] for j in order]


def shuffle_options(rng: np.random.Generator, options: Sequence[str], correct: int) -> tuple[list[str], int]:
    """Shuffle ``options``; return them with the new index of the option that was at ``correct``."""
    order = [int(j) for j in rng.permutation(len(options))]
    return [options[j] for j in order], order.index(correct)


def cycle_plan(rng: np.random.Generator, values: Sequence[str], n: int, start: int = 0) -> list[str]:
    """``n`` values that cycle through ``values`` as evenly as possible, in a seeded random order.

    ``start`` is the index of the first item in the whole plan: the cycle continues across blocks.
    """
    base = [values[(start + i) % len(values)] for i in range(n)]
    order = rng.permutation(n)
    return [base[int(j)] for j in order]


def rgb_list(color: Sequence[int]) -> list[int]:
    return [int(c) for c in color]
