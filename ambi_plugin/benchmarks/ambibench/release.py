"""AmbiBench as its authors publish it: the Hub dataset ``BLNL/AmbiBench`` (MIT), read as released.

The release (dataset card https://huggingface.co/datasets/BLNL/AmbiBench, checked Nov 2026) is an image folder with
a ``metadata.jsonl``; one row per question with the columns

* ``question``: the question posed to the model;
* ``answer``: a single name ("snake"), a ``;``-separated pair for bistable / multi-scene ("duck; rabbit"),
  or a ``,``-separated list ("bear, deer, wolf, bird");
* ``file_name``: the image (or video) path relative to the metadata file; bounding-box tags that were in the
  original file names are stripped and stored in ``bbox``. Motion-video rows carry ``.png`` placeholder
  names for ``.mp4`` files;
* ``bbox``: ``[x1, y1, x2, y2]`` (or a list of such boxes) if the question needs one, else ``[]``;
* ``type``: the ambiguity category and the task type combined in one label.

:func:`classify_type` maps a ``type`` label to one of our tasks by its words: a category word ("camouflaged",
"bistable", "multi-scene" ...) and at most one task word the category has ("open", "choice", "localization",
"region"; motion: "image", "video", "COCO"); ``$AMBI_AMBIBENCH_TYPE_MAP`` ("label=records name,...") overrides it. A
label that names no task, or an unexpected combination ("Hybrid_multiple-choice"), is a bad row: reported with its
id and label, skipped and counted. What the release does not carry, and what we do instead, goes into the load
report's notes: single / combined localization queries are unknown unless the label says so (``ap50_single`` /
``ap50_combined`` NaN), positional answers are read in the Table 7 prompts' order, and a type with no rows is listed
as absent (its task runs on zero rows). See docs/ambibench.md, "Reading the release".

A row is one non-blank line of a ``metadata.jsonl``. A line that is not UTF-8, not JSON or not an object is a bad
row (id ``metadata.jsonl:<line>``); a line identical to an earlier one of the same file is a duplicate: kept once,
counted as merged. Record ids are ``<file stem>`` (``<file stem>#2`` ... when one image has several different
questions of one task: kept, flagged).
Media stay where the release keeps them (absolute paths); region items get the green box drawn into
``media/regions/`` of the converted folder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.ambibench import BENCHMARK, TASKS_BY_DATA, draw_region
from ambi_plugin.benchmarks.ambibench.importer import (
    _choices,
    _key,
    _label,
    record_from_row,
    static_twin,
)
from ambi_plugin.benchmarks.release import LoadReport, hub_snapshot, strict_mode, unpack_zip
from ambi_plugin.core.schema import RecordError, validate_record, write_records

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


# ----------------------------------------------------------------------------- the release folder


def find_metadata(root: Path) -> list[Path]:
    """Every ``metadata.jsonl`` below ``root`` (one per split folder), sorted."""
    root = Path(root)
    return sorted(
        p for p in root.rglob(METADATA) if not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def is_release(path: Path) -> bool:
    path = Path(path)
    return path.suffix.lower() == ".zip" if path.is_file() else path.is_dir() and bool(find_metadata(path))


def _read_rows(path: Path, report: LoadReport):
    """(line number, row) of every line that is a JSON object; a line that is not (not UTF-8, not JSON, not an
    object) is a bad row: reported as ``<file>:<line>``, skipped and counted. Blank lines are no rows."""
    with path.open("rb") as fh:
        for lineno, data in enumerate(fh, start=1):
            if not data.strip():
                continue
            report.read()
            if lineno == 1 and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]  # a byte-order mark some editors write
            try:
                raw = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                report.skip(
                    f"{path.name}:{lineno}",
                    f"not UTF-8: byte 0x{data[exc.start]:02x} at column {exc.start + 1} cannot be decoded "
                    "(save the file as UTF-8 to keep this row)",
                )
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                report.skip(f"{path.name}:{lineno}", f"not JSON: {exc.msg}")
                continue
            if not isinstance(row, dict):
                report.skip(f"{path.name}:{lineno}", "not JSON: the line is not an object")
                continue
            yield lineno, row


def _media_path(base: Path, file_name: str, data: str) -> Path:
    rel = Path(str(file_name))
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"bad file_name: {file_name!r} must be relative to the metadata file")
    if data == "motion_video_open" and rel.suffix.lower() == ".png":
        rel = rel.with_suffix(".mp4")  # the card: video rows name .png placeholders for .mp4 files
    return base / rel


def _box_groups(rec: dict, report: LoadReport) -> None:
    """Single / combined from the type label when it says so; else ``unknown`` (ap50_single / _combined: NaN)."""
    rec["breakdown_declared"] = {"group": ["single", "combined"]}
    if rec["boxes"][0].get("group"):
        rec["breakdown"] = {"group": rec["boxes"][0]["group"]}
        report.note(NOTE_BOX_GROUPS_FROM_LABEL)
        return
    rec.pop("breakdown", None)
    for box in rec["boxes"]:
        box["group"] = UNKNOWN_GROUP
    report.note(NOTE_BOX_GROUPS)


def _finish_media(rec: dict, out: Path) -> None:
    """Image size, and the green region box drawn into ``out/media/regions``."""
    from PIL import Image

    if not rec.get("image"):
        return
    with Image.open(rec["image"]) as im:
        rec["image_size"] = [im.width, im.height]
        if rec["task_type"] == "region" and os.environ.get("AMBI_AMBIBENCH_REGION_DRAWN", "") not in ("1", "true"):
            boxed, style = draw_region(im, rec["region"])
            rel = Path("media") / "regions" / f"{rec['category']}_{_key(rec['id'])}.png"
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            boxed.save(out / rel)
            rec["image"], rec["region_style"] = str(rel), style


FLAG_SAME_IMAGE = "another question of the same image and type: kept under a distinct id (<file stem>#n)"


def _task_of(row: dict, overrides: dict[str, str]) -> str | None:
    data = classify_type(row.get("type"), answer=row.get("answer"), overrides=overrides)
    return f"ambibench_{data}" if data else None


def convert_release(root: Path, out: Path, report: LoadReport) -> dict[str, int]:
    """Every row of the release below ``root`` -> ``out/<records>.jsonl``; bad rows go to ``report``."""
    from tqdm import tqdm

    overrides = parse_map(os.environ.get("AMBI_AMBIBENCH_TYPE_MAP"))
    files = find_metadata(root)
    if not files:
        raise FileNotFoundError(f"{root}: no {METADATA} below this folder (the AmbiBench release's image folder)")
    by_data: dict[str, list[dict]] = {}
    seen: dict[tuple[str, str], int] = {}
    unknown_types: dict[str, int] = {}
    for path in files:
        first_line: dict[str, int] = {}  # a row's content -> the line it was first read on
        for lineno, row in tqdm(list(_read_rows(path, report)), desc=f"AmbiBench: {path.parent.name}", unit="row"):
            file_name = row.get("file_name")
            base_id = Path(str(file_name)).stem if file_name else f"{path.parent.name}:{lineno}"
            content = json.dumps(row, sort_keys=True, ensure_ascii=False)
            if content in first_line:  # an identical row: kept once
                report.merge(
                    f"{path.name}:{lineno}",
                    f"duplicate row: identical to line {first_line[content]} ({base_id})",
                    task=_task_of(row, overrides),
                )
                continue
            first_line[content] = lineno
            data = classify_type(row.get("type"), answer=row.get("answer"), overrides=overrides)
            if data is None:
                unknown_types[str(row.get("type"))] = unknown_types.get(str(row.get("type")), 0) + 1
                report.skip(
                    base_id,
                    f"unknown type: {row.get('type')!r} names no AmbiBench task (a category with a task word it has)",
                )
                continue
            n = seen[(data, base_id)] = seen.get((data, base_id), 0) + 1
            rid = base_id if n == 1 else f"{base_id}#{n}"
            if n > 1:
                report.flag(FLAG_SAME_IMAGE, rid)
            try:
                missing = [c for c in ("answer", "file_name", "type") if c not in row]
                if missing:
                    raise ValueError(f"missing column: {', '.join(missing)}")
                media = _media_path(path.parent, str(file_name), data)
                if not media.is_file():
                    raise ValueError(f"missing media: {media.name} is not in {media.parent}")
                rec = record_from_row(importer_row(row, data, media), data, rid)
                rec["release_type"] = str(row.get("type"))
                if rec["task_type"] == "localization":
                    _box_groups(rec, report)
                    report.note(NOTE_BOX_LABELS)
                if data in POSITIONAL:
                    report.note(NOTE_POSITIONS)
                if rec["task_type"] == "region":
                    report.note(NOTE_REGION)
                positions = len(rec.get("views") or [])
                if data in MIN_POSITIONS and positions < MIN_POSITIONS[data]:
                    raise ValueError(
                        f"too few interpretations: answer {row.get('answer')!r} gives {positions}, "
                        f"{data} needs {MIN_POSITIONS[data]}"
                    )
                _finish_media(rec, out)
                validate_record(rec, source=str(path), line=lineno)
            except (ValueError, TypeError, KeyError, RecordError, OSError) as exc:
                report.skip(rid, str(exc), task=f"ambibench_{data}")
                continue
            report.load()
            by_data.setdefault(data, []).append(rec)
            if data == "motion_image_yes_no":
                by_data.setdefault("motion_static_yes_no", []).append(static_twin(rec))
                report.note(NOTE_STATIC)
    for data, recs in sorted(by_data.items()):
        write_records(out / f"{data}.jsonl", recs)
        report.wrote(f"ambibench_{data}", len(recs))
    for data in sorted(set(TASKS_BY_DATA) - set(by_data)):
        bad = report.skipped_by_reason(f"ambibench_{data}")
        if data == "motion_static_yes_no":
            reason = "made from the motion-image rows (A.7), and the release gives no usable motion-image row"
        elif bad:
            reason = f"every row of this type was skipped as bad ({', '.join(f'{k} {v}' for k, v in bad.items())})"
        else:
            reason = "the release has no row of this type"
        report.lacks(data, reason)
    if unknown_types:
        report.note(
            "unknown type labels (map them with AMBI_AMBIBENCH_TYPE_MAP='label=records_name,...'): "
            + ", ".join(f"{k!r} x{v}" for k, v in sorted(unknown_types.items()))
        )
    return {d: len(r) for d, r in sorted(by_data.items())}


def materialize_release(release: str | Path, *, source: str | None = None) -> Path:
    """A release folder (or its zip) converted once into the cache; returns the canonical folder."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key

    release = Path(release).expanduser()
    if release.is_file() and release.suffix.lower() == ".zip":
        release = unpack_zip(release, benchmark=BENCHMARK)
    if not release.is_dir():
        raise FileNotFoundError(f"AmbiBench release {str(release)!r} is neither a folder nor a .zip")
    options = [os.environ.get(k, "") for k in ("AMBI_AMBIBENCH_TYPE_MAP", "AMBI_AMBIBENCH_REGION_DRAWN")]
    root = release.resolve()  # the conversion reads the metadata files and the media below the release folder
    out = benchmark_cache(BENCHMARK, "release-" + source_key(CONVERTER_VERSION, str(root), *options, read=[root]))
    if (out / ".complete").is_file():
        return out

    def build(tmp: Path) -> None:
        report = LoadReport(BENCHMARK, source or str(release), strict=strict_mode())
        counts = convert_release(release, tmp, report)
        (tmp / "manifest.json").write_text(
            json.dumps({"benchmark": BENCHMARK, "source": report.source, "records": counts}, indent=1) + "\n"
        )
        report.emit(tmp)

    return materialize(out, build)


def materialize_from_hub(repo: str | None = None, *, revision: str | None = None) -> Path:
    """``BLNL/AmbiBench`` (or ``$AMBI_AMBIBENCH_HUB``) from the Hub or the HF cache, converted once."""
    repo = repo or os.environ.get("AMBI_AMBIBENCH_HUB") or HUB_REPO
    if Path(repo).expanduser().exists():  # a local folder laid out as the Hub repo
        return materialize_release(repo, source=str(repo))
    folder = hub_snapshot(repo, benchmark=BENCHMARK, revision=revision)
    return materialize_release(folder, source=f"hf://datasets/{repo}" + (f"@{revision}" if revision else ""))


__all__ = [
    "HUB_REPO",
    "choices_from_question",
    "classify_type",
    "convert_release",
    "find_metadata",
    "importer_row",
    "is_release",
    "materialize_from_hub",
    "materialize_release",
]
