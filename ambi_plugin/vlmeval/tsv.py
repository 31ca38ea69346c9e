"""``ambi export-tsv BENCH``: our tasks as VLMEvalKit TSV files (the LMUData layout), one per task.

Columns: ``index``, ``image`` (base64 PNG of exactly the pixels lmms-eval gets: preprocessing applied,
video records as their sampled frames; several images as a list), ``question`` (the full prompt of the
task YAML, options included), ``answer`` (the gold answer as text), ``options`` (JSON list),
``ambi_id``, ``category``, ``task_type``, ``record`` (the full canonical record as JSON, for re-scoring
with ``ambi score``). VLMEvalKit itself does not need these files (the launcher reads our records
directly); they are for pipelines that read LMUData TSVs. Note that VLMEvalKit's generic fallback for an
unknown TSV scores as a plain VQA set, not with our metrics: use ``ambi vlmeval`` for scores.
A video record whose task samples no frames cannot go into a TSV: it is skipped, counted and named.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
from pathlib import Path

from ambi_plugin.lmms import hooks
from ambi_plugin.vlmeval.spec import TaskSpec, TaskSpecError, all_specs, expand_names, read_docs
from ambi_plugin.vlmeval.taskhooks import TaskHooks


def lmudata_root() -> Path:
    """VLMEvalKit's data folder: ``$LMUData``, else ``~/LMUData``."""
    return Path(os.environ.get("LMUData") or Path.home() / "LMUData").expanduser()


def _b64(image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def select_specs(target: str) -> list[TaskSpec]:
    """Tasks of a benchmark (``ambibench``, ``illusionvqa`` ...), of a group, or named (comma-separated)."""
    import difflib

    specs = all_specs()
    by_bench = [s for s in specs.values() if s.benchmark == target]
    if by_bench:
        return by_bench
    names = expand_names([t.strip() for t in target.split(",") if t.strip()])
    unknown = [n for n in names if n not in specs]
    if unknown:
        benches = sorted({s.benchmark for s in specs.values()})
        close = difflib.get_close_matches(unknown[0], [*benches, *specs], n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise TaskSpecError(
            f"{unknown[0]!r} is neither a benchmark ({', '.join(benches)}) nor a task or group of ours.{hint}"
        )
    return [specs[n] for n in names]


def export_task(spec: TaskSpec, out_dir: Path) -> tuple[Path, int, list[str]]:
    """Write ``<out_dir>/<task>.tsv``; returns the path, the rows written and the ids skipped (with reasons)."""
    from tqdm import tqdm

    task = TaskHooks.of(spec)
    rows, skipped = [], []
    for doc in tqdm(read_docs(spec), desc=f"export {spec.name}"):
        rec = hooks.record_of(doc)
        visuals = task.visuals(doc)
        if any(isinstance(v, str) for v in visuals):
            skipped.append(f"{rec['id']} (a video; the task YAML sets no video_frames)")
            continue
        images = [_b64(v) for v in visuals]
        rows.append(
            {
                "index": len(rows),
                "image": images[0] if len(images) == 1 else json.dumps(images),
                "question": task.text(doc),
                "answer": task.target(doc),
                "options": json.dumps(rec.get("options") or [], ensure_ascii=False),
                "ambi_id": str(rec["id"]),
                "category": rec.get("category", ""),
                "task_type": rec["task_type"],
                "record": doc["record"],
            }
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{spec.name}.tsv"
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["index"], delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(out)
    return out, len(rows), skipped


def export_tsv(target: str, out_dir: Path | str | None = None) -> list[tuple[Path, int, list[str]]]:
    """Export every task of ``target`` (see :func:`select_specs`) into ``out_dir`` (default: LMUData)."""
    root = Path(out_dir) if out_dir else lmudata_root()
    return [export_task(spec, root) for spec in select_specs(target)]


__all__ = ["export_task", "export_tsv", "lmudata_root", "select_specs"]
