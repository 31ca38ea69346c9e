"""IllusionVQA's Hub loader (``materialize_from_hub``) and local copies (``materialize_local``).

Part of :mod:`ambi_plugin.benchmarks.illusionvqa`; import from there."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.illusionvqa.description import (
    BENCHMARK,
    CONVERTER_VERSION,
    FILES,
    HUB_COMPREHENSION,
    HUB_SOFT_LOCALIZATION,
)
from ambi_plugin.benchmarks.illusionvqa.records import _image_dir, build_records, harness_tasks, write_dataset
from ambi_plugin.benchmarks.rows import BadRow, check_row, short_id

# ----------------------------------------------------------------------------- Hub loader


def _hub_rows(ds, *, split: str, image_dir: Path, report: Any = None, tasks: tuple[str, ...] = ()) -> list[dict]:
    """A Hub split's rows with their images saved to ``image_dir``; a row without an image is skipped and counted
    (``tasks``: the tasks the row belongs to; none for a split no task reads)."""
    from ambi_plugin.benchmarks.hub import save_image

    rows = []
    contents: dict[str, list[str]] = {}  # id -> the contents of the rows read with it
    names: set[str] = set()
    for k, row in enumerate(ds):
        img = row.get("image")
        name = row.get("image_name") or row.get("file_name")
        if not name and isinstance(img, dict) and img.get("path"):
            name = Path(str(img["path"])).name
        rid = row.get("id", k if split == "test" else f"{split}{k}")
        if report is not None:
            report.read()
        shown = rid if split == "test" else f"{split}:{rid}"
        task = tasks[0] if tasks else None
        if report is not None:  # a text field over AMBI_MAX_TEXT_CHARS: a bad row (benchmarks/rows.py)
            try:
                check_row({key: v for key, v in row.items() if key != "image"})
            except BadRow as exc:
                report.skip(short_id(str(shown), f"{split}:{k}"), str(exc), task=task, also=tasks[1:])
                continue
        if report is not None:  # the same id again: an identical row is kept once, a different one gets a new id
            content = _content(row)
            earlier = contents.setdefault(str(rid), [])
            if content in earlier:
                report.merge(shown, f"duplicate row: identical to the earlier row with id {rid}", task=task)
                continue
            earlier.append(content)
            if len(earlier) > 1:
                rid = f"{rid}#{len(earlier)}"
                report.flag(FLAG_SAME_ID, rid if split == "test" else f"{split}:{rid}")
                name = None
        name = str(name or f"{split}_{str(rid).replace('#', '_')}.png")
        if name in names and report is not None:
            name = f"{Path(name).stem}_{k}{Path(name).suffix}"  # another image published under the same name
        if img is None:
            if report is None:
                raise ValueError(f"{split} row {k} (id={rid!r}): no image")
            shown = rid if split == "test" else f"{split}:{rid}"
            report.skip(shown, "missing image: the row has no image", task=task, also=tasks[1:])
            continue
        names.add(name)
        save_image(img, image_dir / name)
        rows.append({**{key: v for key, v in row.items() if key != "image"}, "id": rid, "image": name})
    return rows


FLAG_SAME_ID = "same id as an earlier row, different content: kept under a distinct id (<id>#n)"


def _content(row: Mapping[str, Any]) -> str:
    """A row's content, its image's pixels included, as one comparable string."""
    import hashlib

    img = row.get("image")
    if isinstance(img, dict):
        blob = img.get("bytes") or (Path(img["path"]).read_bytes() if img.get("path") else b"")
    elif img is not None and hasattr(img, "tobytes"):
        blob = f"{img.mode}{img.size}".encode() + img.tobytes()
    else:
        blob = b""
    rest = {k: v for k, v in row.items() if k != "image"}
    return json.dumps(rest, sort_keys=True, default=str) + hashlib.sha256(blob).hexdigest()


def _convert_task(task: str, dsets, tmp: Path, source: str, report: Any = None) -> dict[str, int]:
    from tqdm import tqdm

    if "test" not in dsets:
        raise ValueError(f"{source}: no 'test' split (splits: {', '.join(dsets)})")
    tasks = harness_tasks(task)
    test = _hub_rows(
        tqdm(dsets["test"], desc=f"IllusionVQA {task}: test", unit="row"),
        split="test",
        image_dir=tmp / _image_dir(task),
        report=report,
        tasks=tasks,
    )
    shots = None
    if "train" in dsets:
        shots = _hub_rows(
            dsets["train"], split="train", image_dir=tmp / _image_dir(task, True), report=report, tasks=tasks[1:]
        )
    records = build_records(task, test, shots, source=source, report=report)
    extra_splits = sorted(set(dsets) - {"test", "train"})
    for split in extra_splits:  # e.g. Comprehension's 'select' split (11 questions)
        folder = f"{_image_dir(task)}_{split}"
        rows = _hub_rows(dsets[split], split=split, image_dir=tmp / folder, report=report)
        extra = build_records(task, rows, None, source=source, report=report, split=split)
        recs = extra[FILES[(task, 0)]]
        for rec in recs:
            rec["image"] = rec["image"].replace(_image_dir(task) + "/", f"{folder}/", 1)
        records[f"{FILES[(task, 0)]}_{split}"] = recs
        if report is not None:
            report.note(
                f"{task}: split '{split}' ({len(recs)} questions) written as {FILES[(task, 0)]}_{split}.jsonl; "
                "no task reads it (the paper's tables use 'test')"
            )
    counts = write_dataset(tmp, records)
    if report is not None:
        for name, n in counts.items():
            if not name.endswith(tuple(f"_{s}" for s in extra_splits)):
                report.wrote(f"ambi_{name}", n)
                if n == 0:
                    report.lacks(name, f"every {task} test row was skipped as bad (see the skipped rows)")
    return counts


def _resolve_source(src: str) -> tuple[str, str]:
    """(what to load, its label): a local folder as it is, a Hub repo id as its snapshot in the HF cache."""
    from ambi_plugin.benchmarks.release import hub_snapshot

    if Path(src).expanduser().exists() or "/" not in src or src.startswith((".", "/", "~")):
        return src, src
    return str(hub_snapshot(src, benchmark=BENCHMARK)), f"hf://datasets/{src}"


def materialize_from_hub(comprehension: str | None = None, soft_localization: str | None = None) -> Path:
    """Both Hub releases (``$AMBI_ILLUSIONVQA_COMPREHENSION_HUB`` / ``$AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB``,
    defaults the csebuetnlp datasets; local folders laid out like the Hub work too) as canonical records in
    the cache; the ``train`` split gives the 4-shot examples, further splits (Comprehension's ``select``) are kept
    beside them. Bad rows are skipped and counted in the load report. Two rows of a split with the same ``id``: an
    identical one (its image included) is kept once and counted as merged; a different one is kept under the id
    ``<id>#2`` and flagged. Every row read is loaded (an item, a few-shot example), skipped or merged. Returns the
    folder."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key
    from ambi_plugin.benchmarks.release import LoadReport
    from ambi_plugin.config import strict_mode

    sources = {
        "comprehension": comprehension or os.environ.get("AMBI_ILLUSIONVQA_COMPREHENSION_HUB") or HUB_COMPREHENSION,
        "soft_localization": soft_localization
        or os.environ.get("AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB")
        or HUB_SOFT_LOCALIZATION,
    }
    resolved = {task: _resolve_source(str(src)) for task, src in sources.items()}
    paths = [path for path, _ in resolved.values()]
    local = [Path(p).expanduser().resolve() for p in paths if Path(p).expanduser().exists()]
    out = benchmark_cache(BENCHMARK, source_key(CONVERTER_VERSION, *paths, read=local))
    if (out / ".complete").is_file():
        return out
    from ambi_plugin.benchmarks.hub import load_hub_dataset

    loaded = {task: (load_hub_dataset(path, benchmark=BENCHMARK), label) for task, (path, label) in resolved.items()}

    def build(tmp: Path) -> None:
        report = LoadReport(BENCHMARK, " + ".join(label for _, label in loaded.values()), strict=strict_mode())
        counts = {}
        for task, (dsets, label) in loaded.items():
            counts.update(_convert_task(task, dsets, tmp, label, report))
        (tmp / "manifest.json").write_text(
            json.dumps({"benchmark": BENCHMARK, "sources": sources, "counts": counts}) + "\n"
        )
        report.emit(tmp)

    return materialize(out, build)


def materialize_local(path: Path) -> Path:
    """A configured local copy (``$AMBI_ILLUSIONVQA_DIR``): a canonical folder is used as it is; a folder holding
    the two Hub repos as downloaded (subfolders named like ``illusionVQA-Comprehension`` and
    ``illusionVQA-Soft-Localization``, e.g. from ``hf download REPO --repo-type dataset --local-dir DIR``) is converted once."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"the local copy of illusionvqa is configured as {str(path)!r}, which is not a folder")
    if any(path.glob("illusionvqa_*.jsonl")):
        return path
    subs = [p for p in sorted(path.iterdir()) if p.is_dir()]
    comp = next((p for p in subs if "comprehension" in p.name.lower()), None)
    soft = next((p for p in subs if "soft" in p.name.lower()), None)
    if comp is None or soft is None:
        raise FileNotFoundError(
            f"{path}: neither canonical records (illusionvqa_*.jsonl) nor the two downloaded Hub repos "
            "(subfolders named like illusionVQA-Comprehension and illusionVQA-Soft-Localization)"
        )
    return materialize_from_hub(str(comp), str(soft))
