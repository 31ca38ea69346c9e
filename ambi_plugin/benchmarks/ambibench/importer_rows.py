"""AmbiBench importer, one row at a time: field and category aliases, views and positions, choices, boxes, and one
annotation row -> a canonical record (``record_from_row``).

Part of :mod:`ambi_plugin.benchmarks.ambibench.importer` (its docstring describes the layouts); import from there."""

from __future__ import annotations

import re
from typing import Any

from ambi_plugin.benchmarks.ambibench import BENCHMARK, TASKS_BY_DATA
from ambi_plugin.core.schema import RecordError

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
