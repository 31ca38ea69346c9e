"""The typed columns of a built benchmark (one schema for every benchmark) and the record <-> row conversion.

Every row carries the canonical record losslessly (``record``, JSON with media paths relative) plus typed
columns a user can browse on the Hub: ``images`` (every image the record names, in order: its own, then its
few-shot examples'; each keeps its relative path), ``video`` (bytes), ``category`` (a class label), options,
answers, boxes, views, and what the protocol needs materialised at build time:

* ``shown_image``: the first image as the protocol shows it to the model: the record's ``preprocess`` applied
  (IllusionVQA: longest side 512, soft localization in grayscale); null when the protocol shows it unchanged.
* ``region_style``: the green box drawn on region images (colour and line width); region images are stored
  with the box drawn.
* ``shuffle_seed``, ``source_options``, ``source_answer_index``: options shown in a seeded shuffled order, with
  the released order kept.
"""

from __future__ import annotations

import json
from typing import Any

from ambi_plugin.benchmarks.built import safe_relative
from ambi_plugin.core.schema import TASK_TYPES

SCHEMA_VERSION = 1


def features(categories: list[str]):
    """The ``datasets.Features`` of a built benchmark whose categories are ``categories``."""
    from datasets import ClassLabel, Features, Image, List, Value

    box = {"label": Value("string"), "box": List(Value("float32")), "group": Value("string")}
    return Features(
        {
            "id": Value("string"),
            "records": Value("string"),
            "benchmark": Value("string"),
            "category": ClassLabel(names=list(categories)),
            "task_type": ClassLabel(names=list(TASK_TYPES)),
            "question": Value("string"),
            "options": List(Value("string")),
            "option_style": Value("string"),
            "answer_index": Value("int32"),
            "answer_indices": List(Value("int32")),
            "answer_bool": Value("bool"),
            "views": List({"name": Value("string"), "labels": List(Value("string"))}),
            "boxes": List(box),
            "region": List(Value("float32")),
            "region_style": {"rgb": List(Value("int32")), "width": Value("int32")},
            "description": Value("string"),
            "images": List(Image()),
            "video": Value("binary"),
            "shown_image": Image(),
            "preprocess": {"max_side": Value("int32"), "grayscale": Value("bool")},
            "shuffle_seed": Value("int32"),
            "source_options": List(Value("string")),
            "source_answer_index": Value("int32"),
            "record": Value("string"),
        }
    )


def media_paths(rec: dict) -> list[str]:
    """Every image path a record names, in order: its own image(s), then its few-shot examples' images."""
    out: list[str] = []
    for r in [rec, *(rec.get("fewshot") or [])]:
        img = r.get("image") if isinstance(r, dict) else None
        out.extend([img] if isinstance(img, str) else list(img or []))
    return list(dict.fromkeys(out))


def _opt(value: Any, kind: type) -> Any:
    return kind(value) if value is not None else None


def row_of(rec: dict, records: str, image_bytes: dict[str, bytes], video: bytes | None, shown: bytes | None) -> dict:
    """The row of one checked record (images already read; ``shown`` = the preprocessed first image)."""
    style = rec.get("region_style")
    prep = rec.get("preprocess")
    return {
        "id": str(rec["id"]),
        "records": records,
        "benchmark": str(rec["benchmark"]),
        "category": str(rec["category"]),
        "task_type": rec["task_type"],
        "question": _opt(rec.get("question"), str),
        "options": [str(o) for o in rec["options"]] if rec.get("options") else None,
        "option_style": rec.get("option_style"),
        "answer_index": rec.get("answer_index"),
        "answer_indices": rec.get("answer_indices"),
        "answer_bool": rec.get("answer_bool"),
        "views": [
            {"name": str(v.get("name", i)), "labels": [str(x) for x in v["labels"]]} for i, v in enumerate(rec["views"])
        ]
        if rec.get("views")
        else None,  # fmt: skip
        "boxes": [
            {
                "label": str(b.get("label", "")),
                "box": [float(x) for x in b["box"]],
                "group": str(b.get("group", "single")),
            }
            for b in rec["boxes"]
        ]
        if rec.get("boxes")
        else None,  # fmt: skip
        "region": [float(x) for x in rec["region"]] if rec.get("region") else None,
        "region_style": {"rgb": list(style.get("rgb", [])), "width": style.get("width")}
        if isinstance(style, dict)
        else None,
        "description": _opt(rec.get("description"), str),
        "images": [{"bytes": image_bytes[p], "path": p} for p in media_paths(rec)],
        "video": video,
        "shown_image": {"bytes": shown, "path": None} if shown is not None else None,
        "preprocess": {"max_side": prep.get("max_side"), "grayscale": bool(prep.get("grayscale", False))}
        if isinstance(prep, dict)
        else None,
        "shuffle_seed": rec.get("shuffle_seed"),
        "source_options": [str(o) for o in rec["source_options"]] if rec.get("source_options") else None,
        "source_answer_index": rec.get("source_answer_index"),
        "record": json.dumps(rec, ensure_ascii=False, sort_keys=True),
    }


__all__ = ["SCHEMA_VERSION", "features", "media_paths", "row_of", "safe_relative"]
