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

A row is one non-blank line of a ``metadata.jsonl``. A line that is not UTF-8, not JSON (nested more than 100
levels deep included) or not an object is a bad row (id ``metadata.jsonl:<line>``); so is a row with a text field
over ``AMBI_MAX_TEXT_CHARS`` or an image over ``AMBI_MAX_IMAGE_PIXELS`` (:mod:`ambi_plugin.benchmarks.rows`,
:mod:`ambi_plugin.core.images`); a line identical to an earlier one of the same file is a duplicate: kept once,
counted as merged. Record ids are ``<file stem>`` (``<file stem>#2`` ... when one image has several different
questions of one task: kept, flagged).
Media stay where the release keeps them (absolute paths); region items get the green box drawn into
``media/regions/`` of the converted folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ambi_plugin.benchmarks.ambibench import BENCHMARK, TASKS_BY_DATA, draw_region
from ambi_plugin.benchmarks.ambibench.importer import _key, record_from_row, static_twin
from ambi_plugin.benchmarks.ambibench.release_rows import (  # noqa: F401 - re-exported
    _CATEGORY_PATTERNS,
    _CHOICES_AT,
    _LOC_OBJECT,
    _TASK_WORDS,
    CATEGORY_TASKS,
    CONVERTER_VERSION,
    HUB_REPO,
    METADATA,
    MIN_POSITIONS,
    NOTE_BOX_GROUPS,
    NOTE_BOX_GROUPS_FROM_LABEL,
    NOTE_BOX_LABELS,
    NOTE_POSITIONS,
    NOTE_REGION,
    NOTE_STATIC,
    POSITIONAL,
    RELEASE_COLUMNS,
    UNKNOWN_GROUP,
    _boxes,
    _letters_or_names,
    _positions,
    _queried_object,
    box_group,
    choices_from_question,
    classify_type,
    importer_row,
    parse_map,
)
from ambi_plugin.benchmarks.release import LoadReport, hub_snapshot, unpack_zip
from ambi_plugin.benchmarks.rows import MAX_DEPTH, BadRow, check_row, short_id
from ambi_plugin.config import strict_mode
from ambi_plugin.core.jsonl import numbered
from ambi_plugin.core.schema import RecordError, validate_record, write_records

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
    """(line number, row) of every line that is a JSON object; a line that is not (not UTF-8, not JSON, nested
    more than :data:`~ambi_plugin.benchmarks.rows.MAX_DEPTH` levels, not an object) is a bad row: reported as
    ``<file>:<line>``, skipped and counted. Blank lines are no rows. (Text fields: checked with the row's id.)"""
    with path.open("rb") as fh:
        for line in numbered(fh, path.name, objects=True, max_depth=MAX_DEPTH, unreadable_rows=True):
            report.read()
            if line.bad:
                report.skip(line.where, line.reason)
                continue
            yield line.lineno, line.value


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
    """Image size (an image over ``AMBI_MAX_IMAGE_PIXELS`` raises: a bad row), and the green region box drawn into
    ``out/media/regions``."""
    from ambi_plugin.core.images import open_image

    if not rec.get("image"):
        return
    with open_image(rec["image"]) as im:
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
            try:
                check_row(row)  # a text field over AMBI_MAX_TEXT_CHARS: a bad row
            except BadRow as exc:
                name = short_id(file_name, "")
                task = _task_of(row, overrides) if len(str(row.get("type"))) <= 300 else None
                report.skip(Path(name).stem if name else f"{path.name}:{lineno}", str(exc), task=task)
                continue
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
