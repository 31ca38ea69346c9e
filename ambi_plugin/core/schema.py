"""The harness-neutral record schema shared by every benchmark.

A *record* is one evaluation item, stored as one JSON object per line (JSONL) next to an
``images/`` folder. The same record drives lmms-eval and VLMEvalKit; the task type says which
parser and which metrics apply (see ``ambi_plugin.core.tasktypes``).

Fields (``*`` = required for every record):

* ``id``* (str): unique within its task.
* ``benchmark``* (str), ``category``* (str), ``task_type``* (one of ``TASK_TYPES``).
* ``image`` (str | list[str]): path(s) relative to the dataset folder (absolute after loading).
* ``video`` (str): a video path, for video tasks.
* ``question`` (str): the item-specific text a prompt template inserts as ``{question}``.
* ``prompt_vars`` (dict[str, str]): more template variables (``object``, ``width``, ...).
* ``options`` (list[str]): choice texts, in presentation order.
* ``option_style`` ("letter" | "letter_lower" | "roman"): how options are labelled.
* ``answer_index`` (int): the correct option (single choice).
* ``answer_indices`` (list[int]): the correct options (multi-label choice); ``[]`` = "None".
* ``answer_bool`` (bool): the answer of a true/false or yes/no item.
* ``views`` (list[{"name": str, "labels": list[str]}]): open answers, one entry per position
  (near/far, upright/rotated, layer1/layer2 ...). ``labels`` are the concepts that view requires
  (all of them, the judge's "Set 1"); one concept may list alternatives as ``"six|6"``.
* ``views_positional`` (bool, default true): views are matched position by position (hybrid,
  color, multi-view, layers); false = the whole answer is matched against all labels (bistable
  open, hidden-object lists).
* ``answer_format`` (str): how the answer is read, one of ``ANSWER_FORMATS``; default per task type.
* ``boxes`` (list[{"label": str, "box": [x1, y1, x2, y2], "group": "single" | "combined" | "unknown"}]):
  localization ground truth in pixels of the original image; ``group`` (optional) says whether the object is a
  local single object or one made of several (AmbiBench's single / combined); a record whose boxes carry no
  group (or ``unknown``, as the authors' release) counts in ``ap50`` / ``hit_rate`` but in neither split.
* ``region`` ([x1, y1, x2, y2]): the green box drawn on the image for region description.
* ``description`` (str), ``key_terms`` (list[str]), ``conflict_terms`` (list[str]): golden
  description and the offline scorer's cues.
* ``pixel_answer_index``, ``human_answer_index`` (int), ``is_illusion`` (bool),
  ``prompt_kind`` ("pixel" | "human" | "neutral"): RCID-style perception items.
* ``pixel_answer_indices``, ``human_answer_indices`` (list[int], optional): every option that counts as the
  pixel / human answer, when a release does not single one out (RCID's Hub copy says only that two regions
  "look different"); they extend ``pixel_answer_index`` / ``human_answer_index``.
* ``pixel_colors``, ``human_colors`` (list[str]): acceptable colors of an RCID filter item (``color_naming``),
  by the pixel values and as humans see it (``ambi_plugin.core.colors``).
* ``breakdown`` (dict[str, str]): fields metrics are broken down by (difficulty, layout ...).
* ``source`` (str): provenance.
* ``gold_unknown`` (bool): the release publishes no answer for this item (VIA-Bench's challenge split);
  the answer fields of its task type may then be absent, and only answer-free metrics apply.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import iter_jsonl

TASK_TYPES = (
    "choice",  # one correct option (letters, roman numerals)
    "multi_choice",  # several correct options, exact set, "None" option
    "true_false",
    "yes_no",
    "open",  # open answer(s), set-matched per view through a matcher
    "localization",  # boxes, AP@0.5
    "region",  # open answer about the region inside a green box
    "description",  # free description scored 0/1/2 against a golden description
    "perception",  # RCID-style choice with a pixel answer and a human answer
    "color_naming",  # RCID filter: an open color name, pixel colors and human colors
)

OPTION_STYLES = ("letter", "letter_lower", "roman")

ANSWER_FORMATS = (
    "letter",  # A / (b) / Answer: C / the option text
    "roman",  # I / ii. / the option text
    "letter_set",  # "A, C"; "E" = None
    "true_false",
    "yes_no",
    "object",  # Object: 'x'
    "comma_list",  # 'Object1, Object2'
    "layers",  # 'layer1 objects; layer2 objects'
    "boxes",  # [(x1, y1, x2, y2), ...] or None
    "free",  # free text
    "color",  # a color term ("greenish-yellow"), the first one named
)

DEFAULT_FORMAT = {
    "choice": "letter",
    "multi_choice": "letter_set",
    "true_false": "true_false",
    "yes_no": "yes_no",
    "open": "comma_list",
    "localization": "boxes",
    "region": "layers",
    "description": "free",
    "perception": "roman",
    "color_naming": "color",
}

# Fields each task type needs on top of the common ones.
REQUIRED_BY_TYPE: dict[str, tuple[str, ...]] = {
    "choice": ("options", "answer_index"),
    "multi_choice": ("options", "answer_indices"),
    "true_false": ("answer_bool",),
    "yes_no": ("answer_bool",),
    "open": ("views",),
    "localization": ("boxes",),
    "region": ("views", "region"),
    "description": ("description",),
    "perception": ("options", "pixel_answer_index", "human_answer_index", "is_illusion", "prompt_kind"),
    "color_naming": ("pixel_colors", "human_colors", "is_illusion", "prompt_kind"),
}

COMMON_REQUIRED = ("id", "benchmark", "category", "task_type")
# Answer fields a record may lack when it says ``gold_unknown: true`` (a release without answers).
GOLD_FIELDS = ("answer_index", "answer_indices", "answer_bool")


class RecordError(ValueError):
    """A record is malformed. The message names the file, the record and the field."""


def _where(source: str | None, rid: Any, line: int | None) -> str:
    parts = []
    if source:
        parts.append(str(source) + (f":{line}" if line is not None else ""))
    if rid is not None:
        parts.append(f"record id={rid!r}")
    return ", ".join(parts) if parts else "record"


class _Where:
    """``_where(...)`` made only when an error message needs it (validation runs once per record)."""

    __slots__ = ("args",)

    def __init__(self, *args: Any) -> None:
        self.args = args

    def __str__(self) -> str:
        return _where(*self.args)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def validate_record(rec: dict, *, source: str | None = None, line: int | None = None) -> dict:
    """Check one record; return it unchanged or raise :class:`RecordError` naming what is wrong."""
    if not isinstance(rec, dict):
        raise RecordError(f"{_where(source, None, line)}: expected a JSON object, got {type(rec).__name__}")
    rid = rec.get("id")
    where = _Where(source, rid, line)
    for key in COMMON_REQUIRED:
        if key not in rec or rec[key] in (None, ""):
            raise RecordError(f"{where}: missing required field '{key}'")
    for key in ("question", "description"):
        if rec.get(key) is not None and not isinstance(rec[key], str):
            raise RecordError(f"{where}: field '{key}' must be a string, got {type(rec[key]).__name__} {rec[key]!r}")
    img = rec.get("image")
    if img is not None and not (
        isinstance(img, str) or (isinstance(img, list) and all(isinstance(p, str) for p in img))
    ):
        raise RecordError(f"{where}: field 'image' must be a path or a list of paths, got {img!r}")
    ttype = rec["task_type"]
    if ttype not in TASK_TYPES:
        raise RecordError(f"{where}: field 'task_type' is {ttype!r}; expected one of {', '.join(TASK_TYPES)}")
    for key in REQUIRED_BY_TYPE[ttype]:
        if rec.get("gold_unknown") is True and key in GOLD_FIELDS:
            continue
        if key not in rec or rec[key] is None:
            raise RecordError(f"{where}: task_type '{ttype}' needs field '{key}', which is missing")
    if "options" in rec and rec["options"] is not None:
        opts = rec["options"]
        if not isinstance(opts, list) or not opts:
            raise RecordError(f"{where}: field 'options' must be a non-empty list")
        n = len(opts)
        for key in ("answer_index", "pixel_answer_index", "human_answer_index"):
            if key in rec and rec[key] is not None and not (isinstance(rec[key], int) and 0 <= rec[key] < n):
                raise RecordError(f"{where}: field '{key}'={rec[key]!r} is not an index into {n} options")
        for key in ("answer_indices", "pixel_answer_indices", "human_answer_indices"):
            for i in rec.get(key) or []:
                if not (isinstance(i, int) and 0 <= i < n):
                    raise RecordError(f"{where}: field '{key}' holds {i!r}, not an index into {n} options")
    for key in ("pixel_colors", "human_colors"):
        if key in rec and rec[key] is not None:
            from ambi_plugin.core.colors import validate_color_list

            vals = rec[key]
            if not isinstance(vals, list) or not vals or not all(isinstance(v, str) for v in vals):
                raise RecordError(f"{where}: field '{key}' must be a non-empty list of color names, got {vals!r}")
            unknown = validate_color_list(vals)
            if unknown:
                raise RecordError(
                    f"{where}: field '{key}' holds {unknown!r}, which name no color we know "
                    "(add the word to ambi_plugin/core/colors.py SYNONYMS)"
                )
    fmt = rec.get("answer_format")
    if fmt is not None and fmt not in ANSWER_FORMATS:
        raise RecordError(f"{where}: field 'answer_format' is {fmt!r}; expected one of {', '.join(ANSWER_FORMATS)}")
    style = rec.get("option_style")
    if style is not None and style not in OPTION_STYLES:
        raise RecordError(f"{where}: field 'option_style' is {style!r}; expected one of {', '.join(OPTION_STYLES)}")
    if "views" in rec and rec["views"] is not None:
        views = rec["views"]
        if not isinstance(views, list) or not views:
            raise RecordError(f"{where}: field 'views' must be a non-empty list of {{name, labels}}")
        for v in views:
            if not isinstance(v, dict) or not v.get("labels") or not isinstance(v["labels"], list):
                raise RecordError(f"{where}: every entry of 'views' needs a non-empty 'labels' list, got {v!r}")
    if "boxes" in rec and rec["boxes"] is not None:
        for b in rec["boxes"]:
            box = b.get("box") if isinstance(b, dict) else None
            if not (isinstance(box, list) and len(box) == 4 and box[0] <= box[2] and box[1] <= box[3]):
                raise RecordError(f"{where}: field 'boxes' holds {b!r}; expected {{label, box: [x1, y1, x2, y2]}}")
    return rec


def read_records(path: str | Path, *, validate: bool = True) -> list[dict]:
    """Read a JSONL file of records. Errors name the file, line and field."""
    out: list[dict] = []
    for lineno, rec in iter_jsonl(path, what="records file", error=RecordError):
        if validate:
            validate_record(rec, source=str(path), line=lineno)
        out.append(rec)
    return out


# one encoder for every JSONL line we write (``json.dumps`` with options builds a new encoder per call)
JSONL_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True)


def write_records(path: str | Path, records: Iterable[dict]) -> int:
    """Write records as JSONL atomically (a temporary file renamed into place). Returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(JSONL_ENCODER.encode(rec) + "\n")
            n += 1
    tmp.replace(path)
    return n


def write_dataset(out: str | Path, records: dict[str, list[dict]], *, skip_empty: bool = False) -> dict[str, int]:
    """Validate and write each record list to ``out/<name>.jsonl``; returns the counts per name."""
    counts = {}
    for name, recs in records.items():
        if skip_empty and not recs:
            continue
        for rec in recs:
            validate_record(rec, source=f"{name}.jsonl")
        counts[name] = write_records(Path(out) / f"{name}.jsonl", recs)
    return counts


def iter_images(rec: dict) -> Iterator[str]:
    img = rec.get("image")
    if isinstance(img, str):
        yield img
    elif isinstance(img, list):
        yield from img
