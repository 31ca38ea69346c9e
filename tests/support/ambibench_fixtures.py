"""Test fixtures for every AmbiBench task: generated images and videos, release-style rows, and the
canonical folder the importer makes of them (what ``$AMBI_AMBIBENCH_DIR`` points at in tests).

* :func:`build_release` writes a small release-layout folder (``annotations/*.jsonl`` + ``media/``):
  a few items per task, an item whose ground truth is each Appendix A.10 example (one record per
  printed output), a triple hybrid, a geometric image with several questions, motion videos, boxes of
  both groups, and regions to be drawn as green boxes.
* :func:`build_fixtures` imports that release into a canonical folder (so the importer runs on every task);
  :func:`ensure_fixtures` caches it under ``$AMBI_CACHE``.
* :func:`partial_response` gives, per record, an answer that is partly right (one view of two, one of
  two correct letters, one box of two, a box missing IoU 0.5) and must score 0 for its item.

The images are drawings (shapes and the concept's name), not the benchmark's pictures: they prove
the pipeline, not a model's perception.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
from filelock import FileLock
from PIL import Image, ImageDraw, ImageFont

from ambi_plugin.benchmarks.ambibench.examples import A10_EXAMPLES, A10_LOCALIZATION, example_id
from ambi_plugin.benchmarks.ambibench.importer import import_release
from ambi_plugin.core.answers import UNRELATED_WORD
from ambi_plugin.core.parsing import option_label
from ambi_plugin.paths import cache_dir

FIXTURE_VERSION = "1"


# ----------------------------------------------------------------------------- drawing


def _font(size: int):
    return ImageFont.load_default(size)


def picture(path: Path, words: list[str], *, size: tuple[int, int] = (192, 144), seed: int = 0, gray: bool = False):
    """A drawing with one colored shape per word and the words written on it; saved to ``path``."""
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", size, tuple(int(v) for v in rng.integers(200, 256, 3)))
    draw = ImageDraw.Draw(img)
    w, h = size
    for i, word in enumerate(words):
        color = tuple(int(v) for v in rng.integers(20, 180, 3))
        x = int((i + 0.5) * w / max(1, len(words)))
        r = min(w // (2 * max(1, len(words))), h // 3) - 4
        draw.ellipse([x - r, h // 2 - r, x + r, h // 2 + r], fill=color)
        draw.text((x - r, h - 22), word[:14], fill=(0, 0, 0), font=_font(12))
    if gray:
        img = img.convert("L").convert("RGB")
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)
    return img


def boxes_picture(path: Path, boxes: list[list[float]], size: tuple[int, int], seed: int = 0) -> None:
    """An image with a filled shape exactly inside each ground-truth box."""
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", size, (235, 230, 220))
    draw = ImageDraw.Draw(img)
    for box in boxes:
        draw.ellipse(box, fill=tuple(int(v) for v in rng.integers(20, 160, 3)))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


def color_pair(path: Path, left: str, right: str, seed: int = 0) -> None:
    """Left subimage in color, right subimage in grayscale (the color category's design)."""
    a = picture(path.with_suffix(".left.png"), [left], seed=seed)
    b = picture(path.with_suffix(".right.png"), [right], seed=seed + 1, gray=True)
    img = Image.new("RGB", (a.width + b.width, a.height))
    img.paste(a, (0, 0))
    img.paste(b, (a.width, 0))
    img.save(path)
    path.with_suffix(".left.png").unlink()
    path.with_suffix(".right.png").unlink()


def moving_video(path: Path, *, frames: int = 12, size: tuple[int, int] = (64, 48), shape: str = "square") -> None:
    """A tiny MPEG-4 clip of a shape moving left to right (PyAV)."""
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    w, h = size
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=8)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        for i in range(frames):
            img = Image.new("RGB", size, (240, 240, 240))
            x = 4 + i * (w - 20) // max(1, frames - 1)
            box = [x, h // 2 - 8, x + 16, h // 2 + 8]
            draw = ImageDraw.Draw(img)
            (draw.rectangle if shape == "square" else draw.ellipse)(box, fill=(200, 30, 30))
            for packet in stream.encode(av.VideoFrame.from_image(img)):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


# ----------------------------------------------------------------------------- rows

OPEN_ITEMS: dict[tuple[str, str], list[str]] = {  # (category, question_type) -> ground truths as printed
    ("Non-ambiguous", ""): ["dog", "car", "bicycle", "pizza"],
    ("Camouflaged", "Camo"): ["fish", "frog", "owl"],
    ("Bistable", "Open"): ["duck, rabbit", "young woman, old woman", "vase, face"],
    ("Hybrid", ""): ["Near: cat, Far: dog", "Far: house, Near: tiger", "Near: bird, Far: flower, Very far: tree"],
    ("Color", ""): ["rose, skull", "dog, waterfall"],
    ("Multi-view", ""): ["giraffe, penguin", "rabbit, duck"],
    ("Multi-scene", "Open"): ["face; village", "horse; man"],
    ("Mixed", "Open"): ["duck, rabbit", "young woman, old woman"],
}
CHOICE_ITEMS = [
    ("A: duck, B: rabbit, C: horse, D: bird, E: None", "A, B"),
    ("A: vase, B: lamp, C: face, D: tree, E: None", "A, C"),
]
GEOMETRIC_QUESTIONS = [  # several questions about one image (PROTOCOL: values are multiples of 1/269)
    ("Are the two horizontal lines the same length?", "Yes"),
    ("Is the top line longer than the bottom line?", "No"),
    ("Are the two lines parallel?", "Yes"),
]
REGION_ITEMS = {"Multi-scene": ["tree; hand"], "Mixed": ["duck; rock", "face; cave"]}
MULTISCENE_QUERIES = [  # (image size, object, group, boxes); the first mirrors A.10 (skull, 802 x 470)
    ((A10_LOCALIZATION["width"], A10_LOCALIZATION["height"]), "skull", "single", [[300.0, 120.0, 500.0, 330.0]]),
    ((320, 240), "old man face", "combined", [[60.0, 40.0, 260.0, 220.0]]),
    ((320, 240), "woman", "single", [[20.0, 30.0, 110.0, 200.0], [200.0, 40.0, 300.0, 210.0]]),
    ((320, 240), "horse", "single", [[120.0, 60.0, 240.0, 180.0]]),
]
MIXED_QUERIES = [
    (
        "young woman, old woman",
        [("young woman", [40.0, 30.0, 150.0, 200.0]), ("old woman", [170.0, 40.0, 290.0, 210.0])],
    ),
    ("duck, rabbit", [("duck", [30.0, 60.0, 140.0, 170.0]), ("rabbit", [160.0, 50.0, 300.0, 190.0])]),
]


def _words(gt: str) -> list[str]:
    text = gt.replace(";", ",")
    return [w.split(":")[-1].strip() for w in text.split(",") if w.strip()][:3]


class _Writer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.rows: dict[str, list[dict]] = {}
        self.n = 0

    def image(self, words: list[str], **kw) -> str:
        self.n += 1
        rel = f"images/img_{self.n:03d}.png"
        picture(self.root / rel, words, seed=self.n, **kw)
        return rel

    def add(self, file: str, row: dict) -> None:
        self.rows.setdefault(file, []).append({"source": "ambi-plugin fixture", **row})

    def save(self) -> None:
        ann = self.root / "annotations"
        ann.mkdir(parents=True, exist_ok=True)
        for name, rows in self.rows.items():
            (ann / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def _a10_rows(w: _Writer) -> None:
    for ex in A10_EXAMPLES:
        for k in range(len(ex.outputs)):
            row = {**ex.row, "id": example_id(ex, k), "source": "fixture of AmbiBench A.10"}
            key = ex.key
            if key == "color":
                rel = f"images/{example_id(ex, k)}.png"
                color_pair(w.root / rel, "bee", "canyon", seed=k)
                row["image"] = rel
            else:
                row["image"] = w.image(_words(str(ex.row.get("ground_truth", ""))) or [key])
            w.add("a10", row)


def _open_rows(w: _Writer) -> None:
    for (category, qtype), gts in OPEN_ITEMS.items():
        for i, gt in enumerate(gts):
            row = {"id": f"{category.lower().replace('-', '')}_{qtype.lower() or 'open'}_{i}", "category": category}
            row.update({"question_type": qtype, "ground_truth": gt})
            if category == "Color":
                left, right = _words(gt)
                row["image"] = rel = f"images/color_{i}.png"
                color_pair(w.root / rel, left, right, seed=i)
            else:
                row["image"] = w.image(_words(gt))
            w.add(category.lower().replace("-", ""), row)


def _other_rows(w: _Writer) -> None:
    for i, (choices, gt) in enumerate(CHOICE_ITEMS):
        words = [c.split(":")[1].strip() for c in choices.split(",")[:2]]
        w.add("bistable", {"id": f"bistable_choice_{i}", "category": "Bistable", "question_type": "Choice",
                           "choices": choices, "ground_truth": gt, "image": w.image(words)})  # fmt: skip
    shared = w.image(["line", "line"])
    for i, (question, gt) in enumerate(GEOMETRIC_QUESTIONS):
        w.add("geometric", {"id": f"geometric_{i}", "category": "Geometric", "image": shared, "image_id": "geo_0",
                            "question": question, "ground_truth": gt})  # fmt: skip
    for i in range(2):
        w.add("motion", {"id": f"motion_image_{i}", "category": "Motion", "question_type": "Image",
                         "ground_truth": "Yes", "image": w.image(["snake", "spiral"])})  # fmt: skip
    for i in range(3):
        w.add("coco", {"id": f"coco_static_{i}", "category": "COCO", "question_type": "Image", "ground_truth": "No",
                       "image": w.image(["chair", "table"])})  # fmt: skip
    for i, shape in enumerate(("square", "circle")):
        rel = f"videos/motion_{i}.mp4"
        moving_video(w.root / rel, shape=shape)
        gt = "square" if shape == "square" else "circle"
        w.add("motion", {"id": f"motion_video_{i}", "category": "Motion", "question_type": "Video",
                         "ground_truth": gt, "video": rel})  # fmt: skip
    for category, gts in REGION_ITEMS.items():
        for i, gt in enumerate(gts):
            w.add(category.lower().replace("-", ""), {
                "id": f"{category.lower()}_region_{i}", "category": category, "question_type": "Region",
                "ground_truth": gt, "image": w.image(_words(gt)), "region": [30, 20, 160, 120]})  # fmt: skip
    for i, (size, obj, group, boxes) in enumerate(MULTISCENE_QUERIES):
        rel = f"images/multiscene_loc_{i}.png"
        boxes_picture(w.root / rel, boxes, size, seed=i)
        w.add("multiscene", {"id": f"multiscene_loc_{i}", "category": "Multi-scene", "question_type": "Localization",
                             "image": rel, "object": obj,
                             "boxes": [{"label": obj, "bbox": b, "type": group} for b in boxes]})  # fmt: skip
    for i, (objects, boxes) in enumerate(MIXED_QUERIES):
        rel = f"images/mixed_loc_{i}.png"
        boxes_picture(w.root / rel, [b for _, b in boxes], (320, 240), seed=10 + i)
        w.add("mixed", {"id": f"mixed_loc_{i}", "category": "Mixed", "question_type": "Localization", "image": rel,
                        "objects": objects,
                        "boxes": [{"label": lbl, "bbox": b, "type": "single"} for lbl, b in boxes]})  # fmt: skip


def build_release(root: str | Path) -> Path:
    """Write the release-layout fixture folder (rows + media) into ``root``."""
    root = Path(root)
    w = _Writer(root)
    _a10_rows(w)
    _open_rows(w)
    _other_rows(w)
    w.save()
    return root


def build_fixtures(out: str | Path) -> Path:
    """A canonical AmbiBench folder for every task, made by importing :func:`build_release`'s folder."""
    with tempfile.TemporaryDirectory(prefix="ambibench-release-") as tmp:
        return import_release(build_release(Path(tmp)), out)


def ensure_fixtures(root: str | Path | None = None) -> Path:
    """The fixture folder, built once per cache (file-locked): ``$AMBI_CACHE/ambibench/fixtures-v<N>``."""
    out = Path(root) if root else cache_dir() / "ambibench" / f"fixtures-v{FIXTURE_VERSION}"
    if (out / "manifest.json").is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out) + ".lock"):
        if not (out / "manifest.json").is_file():
            if out.exists():
                shutil.rmtree(out)
            build_fixtures(out)
    return out


# ----------------------------------------------------------------------------- partial answers


def _shifted(box: list[float]) -> list[float]:
    """The box moved right by 60% of its width: IoU = 0.4 / 1.6 = 0.25 < 0.5."""
    dx = 0.6 * (box[2] - box[0])
    return [box[0] + dx, box[1], box[2] + dx, box[3]]


def _boxes_text(boxes: list[list[float]]) -> str:
    return "[" + ", ".join("({:g}, {:g}, {:g}, {:g})".format(*(round(v, 1) for v in b)) for b in boxes) + "]"


def partial_response(record: dict) -> str | None:
    """A partly right answer that must score 0 for the item, or None when the task type has none."""
    t = record["task_type"]
    fmt = record.get("answer_format")
    if t in ("open", "region"):
        views = record["views"]
        first = views[0]["labels"][0].split("|")[0]
        if record.get("views_positional", True) and len(views) > 1:
            rest = [UNRELATED_WORD] * (len(views) - 1)
            return "; ".join([first, *rest]) if fmt == "layers" else ", ".join([first, *rest])
        labels = [lbl for v in views for lbl in v["labels"]]
        return first if len(labels) > 1 else None
    if t == "multi_choice":
        gold = record["answer_indices"]
        if len(gold) < 2:
            return None
        wrong = next(i for i in range(len(record["options"])) if i not in gold and i != record.get("none_index"))
        return f"{option_label(gold[0], 'letter')}, {option_label(wrong, 'letter')}"  # "A, C" for "A, B"
    if t == "localization":
        gold = [b["box"] for b in record["boxes"]]
        return _boxes_text(gold[:1] if len(gold) > 1 else [_shifted(gold[0])])
    return None


__all__ = [
    "FIXTURE_VERSION",
    "build_fixtures",
    "build_release",
    "ensure_fixtures",
    "partial_response",
]
