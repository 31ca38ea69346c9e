"""The authors' AmbiBench release, row by row: type labels -> our tasks (``classify_type``) and one release row ->
an importer row (``importer_row``).

Part of :mod:`ambi_plugin.benchmarks.ambibench.release` (its docstring describes the release); import from there."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.ambibench import TASKS_BY_DATA
from ambi_plugin.benchmarks.ambibench.importer_rows import _choices, _key, _label

HUB_REPO = "BLNL/AmbiBench"
METADATA = "metadata.jsonl"
RELEASE_COLUMNS = ("question", "answer", "file_name", "bbox", "type")
CONVERTER_VERSION = "3"

UNKNOWN_GROUP = "unknown"  # a box whose query the release does not call single or combined
POSITIONAL = ("hybrid_open", "color_open", "multiview_open", "multiscene_open", "multiscene_region", "mixed_region")
# Positional tasks: how many positions the answer must give (at least).
MIN_POSITIONS = {
    "hybrid_open": 2,
    "color_open": 2,
    "multiview_open": 2,
    "multiscene_open": 2,
    "multiscene_region": 2,
    "mixed_region": 2,
    "bistable_open": 2,
}

NOTE_BOX_GROUPS = (
    "localization: the release does not say whether a query is for a single local object or a combined object "
    "(Table 2's loc(single) / loc(combined)) and the number of boxes does not tell (an 'old man face' is one box, yet "
    "combined), so ap50_single / ap50_combined (and hit_rate_single / hit_rate_combined) are NaN; ap50 and hit_rate "
    "are computed over every query. A type label that says 'single' or 'combined' is used"
)
NOTE_BOX_GROUPS_FROM_LABEL = "localization: single / combined taken from the release's type label"
NOTE_POSITIONS = (
    "positional answers: the release does not say which item of an answer belongs to which view; we take them in "
    "the order of the Table 7 prompts (Object1, Object2): hybrid near (fine details), far (from a distance); color "
    "left subimage (acc_color), right subimage (acc_gray); multi-view upright, rotated; multi-scene layer1, layer2"
)
NOTE_BOX_LABELS = (
    "localization: the release's boxes carry no labels of their own; each box takes the queried object's name "
    "(the row's answer)"
)
NOTE_REGION = (
    "region description: the region is the row's bbox, drawn by ambi-plugin as the green box "
    "(set AMBI_AMBIBENCH_REGION_DRAWN=1 if your copy's images already show it)"
)
NOTE_STATIC = "motion: the static-prompt items (A.7) are generated from the motion-image rows (gold 'No')"


# ----------------------------------------------------------------------------- type labels

_CATEGORY_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"non\s*-?\s*(?:ambi|camo)|no\s*ambi|unambig|nonambi|noncamo", "nonambi"),
    (r"camo", "camouflaged"),
    (r"bistable", "bistable"),
    (r"hybrid", "hybrid"),
    (r"multi\s*-?\s*view|rotat", "multiview"),
    (r"multi\s*-?\s*scene|multi\s*-?\s*layer", "multiscene"),
    (r"mixed", "mixed"),
    (r"geometr", "geometric"),
    (r"motion", "motion"),
    (r"colou?r", "color"),
)
# task words of a label; a category takes only the task words of the tasks it has (CATEGORY_TASKS)
_TASK_WORDS: tuple[tuple[str, str], ...] = (
    ("localization", r"locali[sz]|\bloc\b|bbox|bounding|ground"),
    ("region", r"region|describ"),
    ("choice", r"choice|mcq|\bmc\b|select|option"),
    ("video", r"video|mp4|clip"),
    ("image", r"\bimage"),
    ("static", r"static|control"),
    ("open", r"\bopen"),
    ("coco", r"coco"),
)
# category -> {task word (None: no task word) -> records name}
CATEGORY_TASKS: dict[str, dict[str | None, str]] = {
    **{cat: {None: f"{cat}_open", "open": f"{cat}_open"} for cat in ("nonambi", "camouflaged", "hybrid", "color",
                                                                       "multiview")},
    "geometric": {None: "geometric_yes_no", "open": "geometric_yes_no"},
    "bistable": {None: "bistable_open", "open": "bistable_open", "choice": "bistable_choice"},
    "motion": {"image": "motion_image_yes_no", "video": "motion_video_open", "coco": "motion_coco_yes_no"},
    **{cat: {None: f"{cat}_open", "open": f"{cat}_open", "localization": f"{cat}_localization",
             "region": f"{cat}_region"} for cat in ("multiscene", "mixed")},
}  # fmt: skip


def parse_map(text: str | None) -> dict[str, str]:
    """``"a=b,c=d"`` -> {"a": "b", "c": "d"} (keys compared case- and punctuation-insensitively)."""
    from ambi_plugin.benchmarks.illusionbench import parse_map as parse_pairs

    return {_key(k): v for k, v in parse_pairs(text).items()}


def classify_type(label: Any, *, answer: Any = None, overrides: dict[str, str] | None = None) -> str | None:
    """The records name (our task without ``ambibench_``) of a release ``type`` label, or None.

    A label names one category (:data:`_CATEGORY_PATTERNS`) and at most one task word (:data:`_TASK_WORDS`) that
    the category has (:data:`CATEGORY_TASKS`); anything else ("Hybrid_multiple-choice", "Motion_static", two task
    words) is an unknown type, never mapped somewhere near. "COCO" alone is the MS-COCO baseline (open answers) or
    the motion study's static control (Yes / No answers), told apart by the answer."""
    if overrides and _key(label) in overrides:
        name = overrides[_key(label)]
        return name if name in TASKS_BY_DATA else None
    text = re.sub(r"[_/]+", " ", str(label or "")).lower()
    category = next((cat for pattern, cat in _CATEGORY_PATTERNS if re.search(pattern, text)), None)
    words = [word for word, pattern in _TASK_WORDS if re.search(pattern, text)]
    if category != "motion" and "image" in words:
        words.remove("image")  # "Hybrid image": a task word of the motion study only
    if category is None and words == ["coco"]:
        category, words = ("motion", ["coco"]) if _key(answer) in ("yes", "no") else ("nonambi", [])
    if category == "motion" and "image" in words and "coco" in words:
        words = ["coco"]  # "Motion COCO image": the static-control images
    if category == "nonambi" and words == ["coco"]:
        words = []  # "Non-ambiguous (COCO)": the MS-COCO baseline
    if category is None or len(words) > 1:
        return None
    return CATEGORY_TASKS[category].get(words[0] if words else None)


# ----------------------------------------------------------------------------- one row


def _boxes(value: Any) -> list[list[float]]:
    """``[x1, y1, x2, y2]`` or ``[[x1, y1, x2, y2], ...]`` -> list of boxes (raises ValueError)."""
    if value in (None, "", []):
        return []
    if isinstance(value, str):
        value = json.loads(value)
    if isinstance(value, (list, tuple)) and len(value) == 4 and all(isinstance(v, (int, float)) for v in value):
        value = [value]
    out = []
    for box in value:
        if not (isinstance(box, (list, tuple)) and len(box) == 4):
            raise ValueError(f"bad bbox: {value!r} is not [x1, y1, x2, y2] or a list of them")
        x1, y1, x2, y2 = (float(v) for v in box)
        if x2 < x1 or y2 < y1:
            raise ValueError(f"bad bbox: {list(box)!r} has x2 < x1 or y2 < y1")
        out.append([x1, y1, x2, y2])
    return out


def _positions(data: str, answer: str) -> list[list[str]] | None:
    """Explicit labels per position for the separators the card documents; None lets the importer read it."""
    text = str(answer).strip()
    if data in ("multiscene_open", "multiscene_region", "mixed_region"):
        return None  # "layer1 objects; layer2 objects" (commas inside a layer)
    if data == "color_open" and re.search(r"left\s+(?:sub)?image", text, re.IGNORECASE):
        return None  # prose ground truth: the importer reads the left / right parts
    if data in ("bistable_open", "mixed_open", "hybrid_open", "color_open", "multiview_open"):
        sep = ";" if ";" in text else ","
        return [[p] for p in (_label(x) for x in text.split(sep)) if p]
    return None


_CHOICES_AT = re.compile(r"choices?\s*:\s*(.+?)(?:\s*your\s+answer\s*:?.*)?$", re.IGNORECASE | re.DOTALL)


def choices_from_question(question: str) -> list[str]:
    """The lettered options of a bistable-choice question ("... Choices: A: car, B: face, ... E: None ...")."""
    text = str(question)
    m = _CHOICES_AT.search(text)
    block = m.group(1) if m else text[text.find("A:") :] if "A:" in text else ""
    block = re.sub(r"\s*your\s+answer\s*:?.*$", "", block, flags=re.IGNORECASE | re.DOTALL)
    return [c for c in _choices(block.strip()) if c]


def _letters_or_names(answer: str, options: list[str]) -> str:
    """The answer as letters: kept when it is letters ("A, C"), else option names mapped to their letters."""
    parts = [p.strip() for p in re.split(r"[;,]", str(answer)) if p.strip()]
    if parts and all(re.fullmatch(r"\(?[A-Za-z]\)?\.?", p) for p in parts):
        return ", ".join(p.strip("().").upper() for p in parts)
    keys = [_key(o) for o in options]
    letters = []
    for p in parts:
        k = _key(_label(p))
        if k not in keys:
            raise ValueError(f"answer not among the options: {p!r} is none of {options}")
        letters.append(chr(ord("A") + keys.index(k)))
    return ", ".join(letters)


_LOC_OBJECT = (
    re.compile(r"all the possible (.+?) in the image", re.IGNORECASE),
    re.compile(r"locate the position of the (.+?) in the image", re.IGNORECASE),
)


def _queried_object(question: str, answer: str) -> str:
    label = _label(answer) if str(answer).strip() else ""
    if label and _key(label) != "none":
        return label
    for pattern in _LOC_OBJECT:
        m = pattern.search(str(question))
        if m:
            return _label(m.group(1))
    return ""


def box_group(label: Any) -> str | None:
    """``single`` / ``combined`` when a release type label says it, else None (never read from the box count)."""
    text = str(label or "").lower()
    single, combined = bool(re.search(r"single", text)), bool(re.search(r"combin", text))
    return "single" if single and not combined else "combined" if combined and not single else None


def importer_row(row: dict, data: str, media: Path) -> dict:
    """A release row as the importer's row (``record_from_row``'s fields). Raises ValueError naming the problem."""
    question, answer = str(row.get("question") or "").strip(), row.get("answer")
    if answer is None or str(answer).strip() == "":
        raise ValueError("empty answer")
    answer = str(answer).strip()
    out: dict[str, Any] = {"question": question, "ground_truth": answer, "source": HUB_REPO}
    if data == "motion_video_open":
        out["video"] = str(media)
    else:
        out["image"] = str(media)
    labels = _positions(data, answer)
    if labels is not None:
        out["labels"] = labels
    spec = TASKS_BY_DATA[data]
    boxes = _boxes(row.get("bbox"))
    if spec.task_type == "multi_choice":
        options = choices_from_question(question)
        if len(options) < 2:
            raise ValueError(f"no options: cannot read lettered choices from the question {question[:120]!r}")
        out["choices"] = options
        out["ground_truth"] = answer if _key(answer) == "none" else _letters_or_names(answer, options)
    elif spec.task_type == "localization":
        if not boxes:
            raise ValueError("no bbox: a localization row needs at least one box")
        obj = _queried_object(question, answer)
        if not obj:
            raise ValueError("no object: neither the answer nor the question names the object to locate")
        group = box_group(row.get("type"))
        out["boxes"] = [{"label": obj, "bbox": b, **({"type": group} if group else {})} for b in boxes]
        out["object" if data == "multiscene_localization" else "objects"] = obj
    elif spec.task_type == "region":
        if len(boxes) != 1:
            raise ValueError(f"bad bbox: a region row needs exactly one box, got {row.get('bbox')!r}")
        out["region"] = boxes[0]
    return out
