"""``ambi export-tsv BENCH``: our tasks as VLMEvalKit TSV files (the LMUData layout), one per task.

Columns: ``index``, ``image`` (base64 PNG of exactly the pixels lmms-eval gets: preprocessing applied,
video records as their sampled frames; several images as a JSON list, in the order of the task's
``doc_to_visual``), ``question`` (the full prompt of the task YAML, options included), ``answer`` (the gold
answer as text), ``options`` (JSON list), ``ambi_id``, ``category``, ``task_type``, ``record`` (the full
canonical record as JSON, for re-scoring with ``ambi score``). A text-only task (VIA-Bench's blind
variants) has no ``image`` column but ``image_path`` = ``[]`` (VLMEvalKit reads a short ``image`` cell as
the index of another row). VLMEvalKit itself does not need these files (the launcher reads our records
directly); they are for pipelines that read LMUData TSVs. VLMEvalKit's generic fallback for an unknown
TSV (``CustomVQADataset``) runs inference on it but has no metric: use ``ambi vlmeval`` for scores.

Skipped, counted and named: a video record whose task samples no frames; a text-only record in a task
whose other records have images. A task with nothing to write is refused (no file).
A TSV has no place for images inside the text: an interleaved prompt (IllusionVQA's few-shot examples)
keeps its images in order and its ``<image n>`` placeholders in ``question``, but VLMEvalKit's generic
dataset sends every image before the whole text, so the placement is lost unless a reader puts them back.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
from pathlib import Path
from typing import NamedTuple

from ambi_plugin.data.taskdocs import read_docs
from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import Task, TaskSpecError, all_tasks
from ambi_plugin.runtime.taskindex import expand_groups


def lmudata_root() -> Path:
    """VLMEvalKit's data folder: ``$LMUData``, else ``~/LMUData``."""
    return Path(os.environ.get("LMUData") or Path.home() / "LMUData").expanduser()


def _b64(image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def select_specs(target: str) -> list[Task]:
    """Tasks of a benchmark (``ambibench``, ``illusionvqa`` ...), of a group, or named (comma-separated)."""
    import difflib

    specs = all_tasks()
    by_bench = [s for s in specs.values() if s.benchmark == target]
    if by_bench:
        return by_bench
    names = expand_groups(target, keep_unknown=True)
    unknown = [n for n in names if n not in specs]
    if unknown:
        benches = sorted({s.benchmark for s in specs.values()})
        close = difflib.get_close_matches(unknown[0], [*benches, *specs], n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise TaskSpecError(
            f"{unknown[0]!r} is neither a benchmark ({', '.join(benches)}) nor a task or group of ours.{hint}"
        )
    return [specs[n] for n in names]


class TsvExport(NamedTuple):
    task: str
    path: Path | None  # None: nothing written (see refused)
    rows: int
    skipped: list[str]  # "<record id> (<reason>)"
    refused: str = ""  # why the task has no file


def export_task(spec: Task, out_dir: Path) -> TsvExport:
    """Write ``<out_dir>/<task>.tsv``, or refuse the task (no file) when no record can go into one."""
    from tqdm import tqdm

    prompt = spec.prompt()
    rows, skipped = [], []
    for doc in tqdm(read_docs(spec), desc=f"export {spec.name}"):
        rec = hooks.record_of(doc)
        visuals = prompt.visuals(doc)
        if any(isinstance(v, str) for v in visuals):
            skipped.append(f"{rec['id']} (a video; the task YAML sets no video_frames)")
            continue
        rows.append(
            {
                "index": len(rows),
                "image": [_b64(v) for v in visuals],
                "question": prompt.text(doc),
                "answer": prompt.target(doc),
                "options": json.dumps(rec.get("options") or [], ensure_ascii=False),
                "ambi_id": str(rec["id"]),
                "category": rec.get("category", ""),
                "task_type": rec["task_type"],
                "record": doc["record"],
            }
        )
    text_only = bool(rows) and not any(r["image"] for r in rows)
    if text_only:  # VLMEvalKit reads an image cell of <= 64 characters as another row's index: no image column
        for r in rows:
            del r["image"]
            r["image_path"] = "[]"
    else:
        mixed = "no image; VLMEvalKit's TSV cannot mix text-only and image rows"
        skipped += [f"{r['ambi_id']} ({mixed})" for r in rows if not r["image"]]
        rows = [{**r, "index": i, "image": _cell(r["image"])} for i, r in enumerate(r for r in rows if r["image"])]
    if not rows:
        why = f"none of its {len(skipped)} records can go into a TSV" if skipped else "it has no records"
        return TsvExport(spec.name, None, 0, skipped, f"task {spec.name}: {why}; no file written")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{spec.name}.tsv"
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(out)
    return TsvExport(spec.name, out, len(rows), skipped)


def _cell(images: list[str]) -> str:
    return images[0] if len(images) == 1 else json.dumps(images)


def export_tsv(target: str, out_dir: Path | str | None = None) -> list[TsvExport]:
    """Export every task of ``target`` (see :func:`select_specs`) into ``out_dir`` (default: LMUData)."""
    root = Path(out_dir) if out_dir else lmudata_root()
    return [export_task(spec, root) for spec in select_specs(target)]


__all__ = ["TsvExport", "export_task", "export_tsv", "lmudata_root", "select_specs"]
