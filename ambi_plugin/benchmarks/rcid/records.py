"""RCID items -> canonical records, one file per illusion type and prompt family (see ``hf_dataset_cards/rcid.md``).

An :class:`RcidItem` is one image with its answers. :func:`write_copy` writes, for each type, the records of
the pixel-based, human-based and neutral families and of the two few-shot variants (3 examples and the
query in one composite image, PROTOCOL), plus ``manifest.json`` (counts, skipped rows with their reasons).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw

from ambi_plugin.core.parsing import option_label
from ambi_plugin.core.schema import write_dataset

from . import prompts as P

BENCHMARK = "rcid"
CELL = (320, 240)


@dataclass
class RcidItem:
    """One RCID image. Contrast/stripe: option indices (a set where the release gives no single one);
    filter: acceptable color lists. ``question`` has no prefix and starts lower case."""

    id: str
    illusion_type: str
    image: str  # relative to the copy's folder
    is_illusion: bool
    question: str
    pixel: list[int] = field(default_factory=list)
    human: list[int] = field(default_factory=list)
    pixel_colors: list[str] = field(default_factory=list)
    human_colors: list[str] = field(default_factory=list)
    breakdown: dict[str, str] = field(default_factory=dict)
    source: str = ""
    extra: dict = field(default_factory=dict)
    options: list[str] | None = None  # the item's own options, in its order (else the type's, prompts.OPTIONS)
    option_style: str = "roman"  # "letter" for the authors' A/B/C contrast questions

    @property
    def pixel_only(self) -> bool:
        """No human answer is known (data built with the authors' code, without a human-answer file)."""
        return self.illusion_type != "filter" and not self.human

    def option_list(self) -> list[str]:
        return list(self.options) if self.options else list(P.OPTIONS[self.illusion_type])


def _answer_text(item: RcidItem, kind: str) -> str:
    """The one answer of an example (few-shot examples are only items with a single answer of ``kind``)."""
    if item.illusion_type == "filter":
        return (item.human_colors if kind == "human" else item.pixel_colors)[0]
    (idx,) = item.human if kind == "human" else item.pixel
    return _lab(idx, item.option_style)


def _lab(i: int, style: str) -> str:
    """An option's label as RCID's prompts show it: I, II, III (roman, upper case) or A, B, C."""
    return option_label(i, style).upper()


def _single(item: RcidItem, kind: str) -> bool:
    """Whether ``item`` has exactly one answer of ``kind`` (a few-shot example must show one)."""
    if item.illusion_type == "filter":
        return len(item.human_colors if kind == "human" else item.pixel_colors) >= 1
    return len(item.human if kind == "human" else item.pixel) == 1


def record(item: RcidItem, family: str, *, task_family: str | None = None) -> dict:
    """The record of ``item`` asked in ``family`` (pixel / human / neutral)."""
    rec: dict = {
        "id": item.id,
        "benchmark": BENCHMARK,
        "category": item.illusion_type,
        "image": item.image,
        "question": P.question_with(family, item.question),
        "prompt_kind": family,
        "is_illusion": item.is_illusion,
        "breakdown": {**item.breakdown, "condition": "illusion" if item.is_illusion else "control"},
        "source": item.source,
        **item.extra,
    }
    if item.illusion_type == "filter":
        rec.update(task_type="color_naming", pixel_colors=item.pixel_colors, human_colors=item.human_colors)
    else:
        human = item.human or item.pixel  # a pixel-only item is asked in the pixel family alone
        rec.update(
            task_type="perception",
            answer_format=item.option_style,
            option_style=item.option_style,
            options=item.option_list(),
            pixel_answer_index=min(item.pixel),
            human_answer_index=min(human),
            answer_index=min(human if family == "human" else item.pixel),
        )
        if len(item.pixel) > 1 or len(human) > 1:
            rec.update(pixel_answer_indices=sorted(item.pixel), human_answer_indices=sorted(human))
    return rec


def _fit(img: Image.Image, size: tuple[int, int]) -> Image.Image:
    img = img.convert("RGB")
    img.thumbnail(size, Image.LANCZOS)
    return img


def composite(paths: Sequence[Path], out: Path) -> None:
    """A 2x2 grid: three examples, then the query bottom right, each under a caption."""
    cap = 20
    canvas = Image.new("RGB", (CELL[0] * 2, (CELL[1] + cap) * 2), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    captions = [f"Example {n}" for n in range(1, len(paths))] + ["Question"]
    for k, (path, caption) in enumerate(zip(paths, captions)):
        x0, y0 = (k % 2) * CELL[0], (k // 2) * (CELL[1] + cap)
        draw.text((x0 + 6, y0 + 4), caption, fill=(0, 0, 0))
        with Image.open(path) as im:
            tile = _fit(im, CELL)
        canvas.paste(tile, (x0 + (CELL[0] - tile.width) // 2, y0 + cap + (CELL[1] - tile.height) // 2))
    out.parent.mkdir(parents=True, exist_ok=True)
    canvas.save(out, format="PNG")


def _examples_text(item: RcidItem, shots: list[RcidItem], kind: str) -> str:
    lines = []
    for n, (ex, where) in enumerate(zip(shots, P.PANELS), start=1):
        q = P.question_with("neutral", ex.question)
        if ex.illusion_type != "filter":
            labels = [_lab(i, ex.option_style) for i in range(len(ex.option_list()))]
            opts = " ".join(f"{lab}. {o}" for lab, o in zip(labels, ex.option_list()))
            q = f"{q} Here are some options you can choose: {opts}"
        lines.append(P.FEWSHOT_EXAMPLE.format(n=n, where=where, question=q, answer=_answer_text(ex, kind)))
    return "\n".join(lines)


def fewshot_records(items: list[RcidItem], root: Path, kind: str) -> list[dict]:
    """Few-shot records (``kind`` "ni": no-illusion answers, "hl": human-like answers): the examples are the
    next three illusion items of the same type in id order (never the query itself) whose answer of that kind is
    a single option (an example shows one answer: an item whose people see either side darker is none)."""
    answer = "human" if kind == "hl" else "pixel"
    pool = sorted((it for it in items if it.is_illusion and _single(it, answer)), key=lambda it: it.id)
    out = []
    for item in items:
        if item.pixel_only:
            continue
        others = [it for it in pool if it.id != item.id]
        if len(others) < P.N_SHOTS:
            return []  # too few illusion images of this type for 3-shot examples
        start = next((k for k, it in enumerate(others) if it.id > item.id), 0)
        shots = [others[(start + k) % len(others)] for k in range(P.N_SHOTS)]
        rel = f"images/fewshot/{item.illusion_type}_{kind}_{item.id}.png"
        composite([root / s.image for s in shots] + [root / item.image], root / rel)
        rec = record(item, "neutral")
        rec["image"] = rel
        rec["prompt_vars"] = {"examples": _examples_text(item, shots, answer)}
        rec["fewshot_ids"] = [s.id for s in shots]
        out.append(rec)
    return out


def write_copy(
    root: Path,
    items: list[RcidItem],
    *,
    skipped: list[dict] | None = None,
    source: str = "",
    warnings: list[str] | None = None,
    notes: list[str] | None = None,
    classes: dict[str, list[str]] | None = None,
) -> dict:
    """Write every records file of the copy in ``root`` (images already there); returns the manifest. A pixel-only
    item (no human answer known) is asked in the pixel family only."""
    files: dict[str, list[dict]] = {}
    for t in P.TYPES:
        of_type = [it for it in items if it.illusion_type == t]
        for family in P.FAMILIES:
            asked = of_type if family == "pixel" else [it for it in of_type if not it.pixel_only]
            files[f"rcid_{t}_{family}"] = [record(it, family) for it in asked]
        for kind in ("ni", "hl"):
            files[f"rcid_{t}_fewshot_{kind}"] = fewshot_records(of_type, root, kind)
    counts = write_dataset(root, files)
    manifest = {
        "benchmark": BENCHMARK,
        "source": source,
        "counts": counts,
        "items": len(items),
        "images": {t: sum(1 for it in items if it.illusion_type == t) for t in P.TYPES},
        # the records files each item of a type is asked in (one record per item and variant)
        "variants": {
            t: [n.split(f"rcid_{t}_", 1)[1] for n in files if n.startswith(f"rcid_{t}_") and counts.get(n)]
            for t in P.TYPES
        },  # fmt: skip
        "skipped": skipped or [],
        "n_skipped": len(skipped or []),
        "warnings": list(warnings or []),
        "notes": list(notes or []),
        "classes": dict(classes or {}),  # split -> the class names of the dataset's own ClassLabel
        "pixel_only": sum(1 for it in items if it.pixel_only),
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest
