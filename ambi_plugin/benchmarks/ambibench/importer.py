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

from ambi_plugin.benchmarks.ambibench import BENCHMARK, draw_region
from ambi_plugin.benchmarks.ambibench.importer_rows import (  # noqa: F401 - re-exported
    _ARTICLE,
    _LEFT_RIGHT,
    _POSITION_PREFIX,
    _RANKS,
    CATEGORY_ALIASES,
    FIELD_ALIASES,
    TASK_OF,
    TYPE_ALIASES,
    VIEW_NAMES,
    ImportErrorAt,
    _boxes,
    _choices,
    _field,
    _key,
    _label,
    _letters,
    _position_rank,
    _split,
    _views,
    _yes_no,
    positions_from_ground_truth,
    record_from_row,
    task_of,
)
from ambi_plugin.core.jsonl import iter_jsonl
from ambi_plugin.core.schema import read_records, validate_record, write_records
from ambi_plugin.inputfiles import named_input
from ambi_plugin.paths import replace_dir_atomically


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
        for lineno, row in iter_jsonl(path, what="annotation file", objects=True, error=ImportErrorAt):
            yield path, lineno, row


def _copy_media(rec: dict, release: Path, out: Path, where: str) -> None:
    from ambi_plugin.core.images import open_image

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
        with open_image(out / rec["image"]) as im:  # over AMBI_MAX_IMAGE_PIXELS: ImageTooLargeError
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
        recs = read_records(tmp / "multiview_open.jsonl", validate=False)
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
