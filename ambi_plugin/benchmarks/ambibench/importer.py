"""Import AmbiBench into the canonical record schema: the release layout, and the visual-anagrams gallery.

**Our annotation layout** (for items you annotate yourself; the authors' release, ``BLNL/AmbiBench`` on the HF Hub,
has another layout, read by :mod:`ambi_plugin.benchmarks.ambibench.release`). The importer reads the fields the
paper describes, one row per question in JSONL files next to the media::

    <release>/annotations/*.jsonl        (or *.jsonl anywhere below <release>)
    <release>/<any folders>/<images, videos>

Row fields (names as in the paper; aliases in :data:`FIELD_ALIASES`):

* ``category``: Table 5 / Table 1 name ("Camouflaged", "Bistable", "Multi-view", "Multi-scene", "Mixed",
  "COCO" for A.7's static control, "Non-ambiguous" for the MS-COCO baseline ...);
* ``question_type``: Table 7's column (Camo, Noncamo, Open, Choice, Image, Video, Localization, Region);
* ``image`` or ``video``: a path relative to the release folder;
* ``ground_truth``: as Appendix A.10 prints it: "Insect", "A, B", "Near: A shark, Far: A panda",
  "cat in a garden, bat in a cave", "desert; skull", "Yes", or prose for color ("the left image looks
  like ..., a bee, but the right image looks like ..., the grand canyon.");
* ``labels`` (optional): the short canonical label(s) per position, overriding what is read from
  ``ground_truth`` (PROTOCOL: prose ground truths need one); ``"a|b"`` lists accepted alternatives;
* ``choices`` (bistable choice): "A: car with snow, B: face, C: Motorcycle, D: Bus, E: None" or a list;
* ``question`` (geometric); ``object`` (multi-scene localization) / ``objects`` (mixed localization);
* ``boxes``: ``[{"label", "bbox": [x1, y1, x2, y2], "type": "single" | "combined"}]`` in pixels of the
  original image (``bbox_format: "xywh"`` for COCO-style boxes);
* ``region``: [x1, y1, x2, y2]; the importer draws it as the green box unless ``region_drawn`` is true.

Every motion image also yields an item of the inverted static prompt (A.7; gold "No"). Rows are
validated; an error names the file, line, id and field. The output folder is written atomically.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.ambibench import BENCHMARK, TASKS_BY_DATA, draw_region
from ambi_plugin.core.schema import RecordError, validate_record, write_records
from ambi_plugin.inputfiles import named_input
from ambi_plugin.paths import replace_dir_atomically

# (normalised category, normalised question type or "*") -> records name (dataset_name)
TASK_OF: dict[tuple[str, str], str] = {
    ("camouflaged", "camo"): "camouflaged_open",
    ("camouflaged", "noncamo"): "nonambi_open",
    ("nonambi", "*"): "nonambi_open",
    ("bistable", "open"): "bistable_open",
    ("bistable", "choice"): "bistable_choice",
    ("hybrid", "*"): "hybrid_open",
    ("color", "*"): "color_open",
    ("multiview", "*"): "multiview_open",
    ("geometric", "*"): "geometric_yes_no",
    ("motion", "image"): "motion_image_yes_no",
    ("motion", "video"): "motion_video_open",
    ("motion", "coco"): "motion_coco_yes_no",
    ("coco", "*"): "motion_coco_yes_no",
    ("multiscene", "open"): "multiscene_open",
    ("multiscene", "localization"): "multiscene_localization",
    ("multiscene", "region"): "multiscene_region",
    ("mixed", "open"): "mixed_open",
    ("mixed", "localization"): "mixed_localization",
    ("mixed", "region"): "mixed_region",
}
CATEGORY_ALIASES = {
    "camo": "camouflaged", "camouflage": "camouflaged", "noncamo": "nonambi", "nonambiguous": "nonambi",
    "noambi": "nonambi", "mscoco": "nonambi", "multiview": "multiview", "multiscene": "multiscene",
    "mixedambiguous": "mixed", "mix": "mixed", "colour": "color", "cocostatic": "coco", "cocoimage": "coco",
}  # fmt: skip
TYPE_ALIASES = {"openended": "open", "multiplechoice": "choice", "loc": "localization", "ambiguouslocalization":
                "localization", "regiondescription": "region", "localregiondescription": "region",
                "motionimage": "image", "motionvideo": "video", "static": "coco"}  # fmt: skip
FIELD_ALIASES = {
    "ground_truth": ("ground_truth", "gt", "answer", "label"),
    "question_type": ("question_type", "type", "task"),
    "image": ("image", "image_path", "img"),
    "video": ("video", "video_path"),
    "choices": ("choices", "options"),
    "boxes": ("boxes", "bboxes", "bbox"),
}
VIEW_NAMES = {
    "hybrid_open": ("near", "far", "very_far"),
    "color_open": ("color", "gray"),
    "multiview_open": ("upright", "rotated"),
    "multiscene_open": ("layer1", "layer2"),
    "multiscene_region": ("layer1", "layer2"),
    "mixed_region": ("layer1", "layer2"),
}
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


class ImportErrorAt(RecordError):
    """A release row that cannot be imported; the message names file, line, id and field."""


def _key(text: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower())


def _field(row: dict, name: str) -> Any:
    for alias in FIELD_ALIASES.get(name, (name,)):
        if row.get(alias) not in (None, ""):
            return row[alias]
    return None


def task_of(category: Any, question_type: Any) -> str | None:
    """The records name of a (category, question type) pair of the release, or None."""
    cat = _key(category)
    cat = CATEGORY_ALIASES.get(cat, cat)
    qt = _key(question_type)
    qt = TYPE_ALIASES.get(qt, qt)
    return TASK_OF.get((cat, qt)) or TASK_OF.get((cat, "*"))


def _label(text: str) -> str:
    """A short label from a ground-truth fragment: quotes, "Object:" and a leading article dropped."""
    s = re.sub(r"^\s*object\s*\d*\s*:\s*", "", str(text).strip(), flags=re.IGNORECASE)
    s = s.strip(" '\"\u2018\u2019\u201c\u201d.").strip()
    return _ARTICLE.sub("", s).strip()


def _split(text: str, sep: str) -> list[str]:
    return [p for p in (_label(x) for x in str(text).split(sep)) if p]


_POSITION_PREFIX = re.compile(
    r"(very\s*far|near|far|left|right|upright|rotated|w/?o\s*rotation|w\s*rotation|layer\s*\d)\s*:", re.IGNORECASE
)
_RANKS = {"near": 0, "far": 1, "veryfar": 2, "left": 0, "right": 1, "upright": 0, "worotation": 0, "rotated": 1,
          "wrotation": 1}  # fmt: skip


def _position_rank(name: str) -> int:
    key = _key(name)
    if key.startswith("layer"):
        return int(key[5:] or 1) - 1
    return _RANKS.get(key, 0)


_LEFT_RIGHT = re.compile(
    r"left\s+(?:sub)?image\s+(?:looks\s+like|shows|is|depicts)\s+(?P<left>.+?),?\s+but\s+the\s+right\s+(?:sub)?image"
    r"\s+(?:looks\s+like|shows|is|depicts)\s+(?P<right>.+?)\s*\.?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def positions_from_ground_truth(data: str, gt: Any) -> list[list[str]]:
    """Labels per position read from a printed ground truth (A.10's forms), for open / region records."""
    if isinstance(gt, list):
        return [[_label(x) for x in (g if isinstance(g, list) else [g])] for g in gt]
    text = str(gt).strip()
    if data in ("multiscene_open", "multiscene_region", "mixed_region"):
        return [_split(layer, ",") for layer in text.split(";")]
    if data == "color_open":
        m = _LEFT_RIGHT.search(text)
        if m:  # prose: "..., lithograph style, a bee" -> the last comma part names the content
            return [[_label(m.group("left").split(",")[-1])], [_label(m.group("right").split(",")[-1])]]
    if _POSITION_PREFIX.search(text):  # "Near: A shark, Far: A panda", in any order
        parts = _POSITION_PREFIX.split(text)[1:]
        named = sorted(zip(parts[0::2], parts[1::2]), key=lambda nv: _position_rank(nv[0]))
        return [[_label(value.strip(" ,;"))] for _, value in named]
    if data in ("bistable_open", "mixed_open"):
        return [[label] for label in _split(text, ",")]
    if data in ("camouflaged_open", "nonambi_open", "motion_video_open"):
        return [[_label(text)]]
    return [[label] for label in _split(text, ",")]


def _views(data: str, positions: list[list[str]]) -> tuple[list[dict], bool]:
    if data in ("bistable_open", "mixed_open"):  # unordered: every interpretation required
        return [{"name": f"interpretation{i + 1}", "labels": p} for i, p in enumerate(positions)], False
    names = VIEW_NAMES.get(data)
    if names is None:
        return [{"name": "object", "labels": positions[0]}], True
    if len(positions) > len(names):
        raise ValueError(f"{len(positions)} positions, but {data} has at most {len(names)} ({', '.join(names)})")
    return [{"name": names[i], "labels": p} for i, p in enumerate(positions)], True


def _choices(value: Any) -> list[str]:
    if isinstance(value, list):
        return [_label(re.sub(r"^\s*[A-Ea-e]\s*[:.)]\s*", "", str(v))) or str(v) for v in value]
    parts = re.split(r"(?:^|,\s*)([A-Z])\s*:\s*", str(value).strip())
    return [p.strip().rstrip(",").strip() for p in parts[2::2]]


def _letters(value: Any, n: int) -> list[int]:
    found = re.findall(r"\b([A-Z])\b", str(value).upper())
    out = sorted({ord(c) - ord("A") for c in found})
    if not out or any(i >= n for i in out):
        raise ValueError(f"cannot read option letters from {value!r} ({n} options)")
    return out


def _yes_no(value: Any) -> bool:
    key = _key(value)
    if key in ("yes", "true", "1", "moving"):
        return True
    if key in ("no", "false", "0", "static"):
        return False
    raise ValueError(f"expected Yes or No, got {value!r}")


def _boxes(row: dict) -> list[dict]:
    raw = _field(row, "boxes")
    if not isinstance(raw, list) or not raw:
        raise ValueError("expected a non-empty list of {label, bbox, type}")
    xywh = str(row.get("bbox_format", "")).lower() == "xywh"
    out = []
    for b in raw:
        coords = b.get("bbox", b.get("box")) if isinstance(b, dict) else b
        x1, y1, a, c = (float(v) for v in coords)
        box = [x1, y1, x1 + a, y1 + c] if xywh else [x1, y1, a, c]
        entry = {"label": str(b.get("label", "")) if isinstance(b, dict) else "", "box": box}
        group = str(b.get("type", b.get("group", "")) if isinstance(b, dict) else "").lower()
        if group:
            if group not in ("single", "combined"):
                raise ValueError(f"box type {group!r}; expected 'single' or 'combined'")
            entry["group"] = group
        out.append(entry)
    return out


def record_from_row(row: dict, data: str, rid: str) -> dict:
    """The canonical record of one release row (media paths unchanged). Raises ValueError on bad fields."""
    spec = TASKS_BY_DATA[data]
    rec: dict[str, Any] = {
        "id": rid,
        "benchmark": BENCHMARK,
        "category": spec.category,
        "task_type": spec.task_type,
        "answer_format": spec.answer_format,
        "source": str(row.get("source") or "AmbiBench release"),
    }
    for key in ("image", "video"):
        if _field(row, key):
            rec[key] = str(_field(row, key))
    for key in ("image_id", "question", "image_size", "human_study"):
        if row.get(key) is not None:
            rec[key] = row[key]
    gt = _field(row, "ground_truth")
    if gt is not None:
        rec["ground_truth"] = gt
    t = spec.task_type
    if t in ("open", "region"):
        labels = row.get("labels")
        positions = positions_from_ground_truth(data, labels if labels is not None else gt)
        if not positions or not all(positions):
            raise ValueError(f"field 'ground_truth' {gt!r} gives no label for some position")
        rec["views"], rec["views_positional"] = _views(data, positions)
        if data == "hybrid_open" and len(positions) == 3:
            rec["prompt_variant"] = "triple"
    elif t == "multi_choice":
        rec["options"] = _choices(_field(row, "choices"))
        none = [i for i, o in enumerate(rec["options"]) if _key(o) == "none"]
        if len(rec["options"]) < 2 or not none:
            raise ValueError(f"field 'choices' needs options with a 'None' option, got {_field(row, 'choices')!r}")
        rec["none_index"] = none[-1]
        rec["option_style"] = "letter"
        picked = [rec["none_index"]] if _key(gt) == "none" else _letters(gt, len(rec["options"]))
        rec["answer_indices"] = [] if picked == [rec["none_index"]] else picked
    elif t == "yes_no":
        rec["answer_bool"] = _yes_no(gt)
        if data == "geometric_yes_no" and not rec.get("question"):
            raise ValueError("field 'question' is required for geometric items")
    elif t == "localization":
        rec["boxes"] = _boxes(row)
        if data == "multiscene_localization":
            obj = row.get("object") or rec["boxes"][0]["label"]
            if not obj:
                raise ValueError("field 'object' (the queried object) is required")
            rec["prompt_vars"] = {"object": str(obj)}
            groups = {b.get("group") for b in rec["boxes"]}
            if len(groups) != 1:
                raise ValueError("every box of a multi-scene query needs the same 'type' (single or combined)")
            group = groups.pop()
            if group is not None:  # the authors' release does not record it (see ambibench.release)
                rec["breakdown"] = {"group": group}
        else:
            objs = row.get("objects") or ", ".join(dict.fromkeys(b["label"] for b in rec["boxes"] if b["label"]))
            if not objs:
                raise ValueError("field 'objects' (the queried objects) is required")
            rec["prompt_vars"] = {"objects": str(objs)}
    if t == "region":
        region = row.get("region")
        if not (isinstance(region, list) and len(region) == 4):
            raise ValueError("field 'region' must be [x1, y1, x2, y2]")
        rec["region"] = [float(v) for v in region]
    return rec


def iter_rows(release: Path, annotations: Path | None = None) -> Iterator[tuple[Path, int, dict]]:
    """(file, line, row) for every row of ``annotations`` (a JSONL file or a folder of them; default
    ``<release>/annotations``, else every ``*.jsonl`` below the release folder), files in sorted order."""
    ann = annotations if annotations is not None else release / "annotations"
    if ann.is_file():
        files = [ann]
    else:
        files = sorted((ann if ann.is_dir() else release).rglob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"{release}: no *.jsonl annotation files (expected {release}/annotations/*.jsonl)")
    for path in files:
        with named_input(path, "annotation file"), path.open(encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, start=1):
                if raw.strip():
                    try:
                        yield path, lineno, json.loads(raw)
                    except json.JSONDecodeError as exc:
                        raise ImportErrorAt(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None


def _copy_media(rec: dict, release: Path, out: Path, where: str) -> None:
    from PIL import Image

    for key in ("image", "video"):
        rel = rec.get(key)
        if not rel:
            continue
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise ImportErrorAt(f"{where}: field '{key}': {rel!r} must be a path relative to the release folder")
        src = (release / rel).resolve()
        if not src.is_file():
            raise ImportErrorAt(f"{where}: field '{key}': {rel!r} does not exist below {release}")
        dst = out / "media" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.exists():
            shutil.copy2(src, dst)
        rec[key] = str(Path("media") / rel)
    if rec.get("image"):
        with Image.open(out / rec["image"]) as im:
            rec["image_size"] = [im.width, im.height]
            if rec["task_type"] == "region" and not rec.pop("region_drawn", False):
                boxed, style = draw_region(im, rec["region"])
                rel = Path("media") / "regions" / f"{rec['category']}_{_key(rec['id'])}.png"
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                boxed.save(out / rel)
                rec["image"], rec["region_style"] = str(rel), style


def static_twin(rec: dict) -> dict:
    """A.7's inverted prompt on a motion image: "is the scene static?"; gold No (the illusory motion)."""
    return {**rec, "id": f"{rec['id']}_static", "answer_bool": False, "ground_truth": "No"}


def import_rows(rows: Iterable[tuple[str, int, dict]], release: Path, out: Path, *, progress: bool = False) -> dict:
    """Convert rows into ``<out>/<records>.jsonl`` + ``media/``; returns {records name: count}."""
    from tqdm import tqdm

    by_data: dict[str, list[dict]] = {}
    seen: set[tuple[str, str]] = set()
    for src, lineno, row in tqdm(list(rows), desc="importing AmbiBench", disable=not progress):
        rid = str(row.get("id") or f"{Path(src).stem}_{lineno}")
        where = f"{src}:{lineno}, record id={rid!r}"
        data = task_of(_field(row, "category") or row.get("category"), _field(row, "question_type"))
        if data is None:
            raise ImportErrorAt(
                f"{where}: fields 'category'={row.get('category')!r} / 'question_type'="
                f"{_field(row, 'question_type')!r} name no AmbiBench task"
            )
        try:
            rec = record_from_row(row, data, rid)
        except (ValueError, TypeError, KeyError) as exc:
            raise ImportErrorAt(f"{where}: {exc}") from None
        if row.get("region_drawn"):
            rec["region_drawn"] = True
        _copy_media(rec, release, out, where)
        validate_record(rec, source=str(src), line=lineno)
        if (data, rid) in seen:
            raise ImportErrorAt(f"{where}: field 'id' repeats within {data}")
        seen.add((data, rid))
        by_data.setdefault(data, []).append(rec)
        if data == "motion_image_yes_no":
            by_data.setdefault("motion_static_yes_no", []).append(static_twin(rec))
    for data, recs in by_data.items():
        write_records(out / f"{data}.jsonl", recs)
    return {d: len(r) for d, r in sorted(by_data.items())}


def _write_atomically(out: Path, build) -> Path:
    def build_with_manifest(tmp: Path) -> None:
        counts = build(tmp)
        (tmp / "manifest.json").write_text(
            json.dumps({"benchmark": BENCHMARK, "records": counts, "created_by": "ambi import ambibench"}, indent=1)
        )

    return replace_dir_atomically(out, build_with_manifest)


def import_release(
    release: str | Path, out: str | Path, *, annotations: str | Path | None = None, progress: bool = False
) -> Path:
    """Import an AmbiBench release folder into a canonical folder ``out`` (replaced atomically).

    ``annotations``: a JSONL file or folder of them (default: ``<release>/annotations``); media paths in
    the rows are relative to ``release``."""
    release = Path(release).expanduser().resolve()
    if not release.is_dir():
        raise FileNotFoundError(f"AmbiBench release folder {str(release)!r} does not exist")
    ann = Path(annotations).expanduser().resolve() if annotations else None
    if ann is not None and not ann.exists():
        raise FileNotFoundError(f"AmbiBench annotations {str(ann)!r} do not exist")
    rows = [(str(p), n, r) for p, n, r in iter_rows(release, ann)]
    return _write_atomically(Path(out), lambda tmp: import_rows(rows, release, tmp, progress=progress))


# ----------------------------------------------------------------------------- visual anagrams

_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]+)[\"\u201d]")


def label_from_prompt(prompt: str) -> str:
    """The concept of a visual-anagrams view prompt: "an oil painting of a horse" -> "horse",
    'the word "happy", cursive writing' -> "happy"."""
    m = _QUOTED.search(prompt)
    if m:
        return m.group(1).strip()
    text = prompt.strip()
    if " of " in text:
        text = text.split(" of ", 1)[1]
    return _label(text)


def visual_anagram_rows(labels: Path) -> list[dict]:
    """Release-style rows for the visual-anagrams rotation illusions (their ``labels.json``)."""
    with named_input(labels, "labels file"):
        items = json.loads(Path(labels).read_text(encoding="utf-8"))
    rows = []
    for i, item in enumerate(items):
        up, rot = label_from_prompt(item["view1_prompt"]), label_from_prompt(item["view2_prompt"])
        rows.append(
            {
                "id": f"visual_anagrams_{i:02d}",
                "category": "Multi-view",
                "question_type": "Open",
                "image": item["image"],
                "ground_truth": f"{item['view1_prompt']}, {item['view2_prompt']}",
                "labels": [[up], [rot]],
                "rotation": item.get("view2_transform"),
                "source": "visual_anagrams gallery (Geng et al. 2024b), MIT",
            }
        )
    return rows


def import_visual_anagrams(src: str | Path, out: str | Path, *, labels: str | Path | None = None) -> Path:
    """The visual-anagrams rotation illusions (``labels.json`` + ``images/``) as AmbiBench multi-view records.

    ``labels`` defaults to ``<src>/labels.json``; its image paths are relative to ``src``."""
    src = Path(src).expanduser().resolve()
    labels_path = Path(labels).expanduser().resolve() if labels else src / "labels.json"
    if not labels_path.is_file():
        raise FileNotFoundError(f"{labels_path}: no such labels file (expected the visual_anagrams labels.json)")
    rows = [(str(labels_path), i + 1, r) for i, r in enumerate(visual_anagram_rows(labels_path))]

    def build(tmp: Path) -> dict:
        counts = import_rows(rows, src, tmp)
        recs = [json.loads(line) for line in (tmp / "multiview_open.jsonl").read_text().splitlines()]
        for rec, (_, _, row) in zip(recs, rows, strict=True):
            rec["rotation"] = row["rotation"]
        write_records(tmp / "multiview_open.jsonl", recs)
        return counts

    return _write_atomically(Path(out), build)


__all__ = [
    "ImportErrorAt",
    "TASK_OF",
    "import_release",
    "import_rows",
    "import_visual_anagrams",
    "label_from_prompt",
    "positions_from_ground_truth",
    "record_from_row",
    "task_of",
]
