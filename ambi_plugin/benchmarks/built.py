"""Reading a built copy back (``ambi build`` / ``ambi push`` wrote it): the canonical folder the tasks read.

A built folder holds ``data/<config>/<split>-*.parquet`` (typed rows, each with the canonical record as JSON and
its media as bytes) and ``build_info.json``. :func:`materialize_built` turns such a folder, or a Hub dataset repo
holding one, into ``<records>.jsonl`` + media in ``$AMBI_CACHE/<benchmark>/built-<key>/``, once, atomically. Writing
one is the data layer's (:mod:`ambi_plugin.data.hub`); reading it back lives here, below it, because a benchmark's
Hub loader reads the published layout too (AmbiBench: ``$AMBI_AMBIBENCH_HUB`` naming a built copy).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ambi_plugin.core.schema import validate_record, write_records

BUILD_INFO = "build_info.json"


def read_build_info(folder: str | Path) -> dict:
    path = Path(folder) / BUILD_INFO
    if not path.is_file():
        raise FileNotFoundError(f"{folder}: not a built benchmark (no {BUILD_INFO}); make one with ambi build")
    return json.loads(path.read_text(encoding="utf-8"))


def parquet_files(folder: Path) -> list[Path]:
    return sorted((folder / "data").rglob("*.parquet"))


def iter_rows(path: Path, batch: int = 32) -> Iterator[dict]:
    """Rows of one parquet file, images as {bytes, path}, class labels as names."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(str(path))
    names = _class_names(pf.schema_arrow)
    for rb in pf.iter_batches(batch_size=batch):
        for row in rb.to_pylist():
            for col, labels in names.items():
                if isinstance(row.get(col), int) and 0 <= row[col] < len(labels):
                    row[col] = labels[row[col]]
            yield row


def _class_names(schema) -> dict[str, list[str]]:
    meta = (schema.metadata or {}).get(b"huggingface")
    if not meta:
        return {}
    feats = json.loads(meta).get("info", {}).get("features", {})
    return {k: v["names"] for k, v in feats.items() if isinstance(v, dict) and v.get("_type") == "ClassLabel"}


def safe_relative(rel: str, where: str) -> Path:
    """A media path from a row, refused when it would leave the dataset folder."""
    path = Path(rel)
    if path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{where}: media path {rel!r} must be relative to the dataset folder")
    return path


def convert_built(folder: Path, out: Path) -> dict[str, int]:
    """Rows of a built folder -> ``<records>.jsonl`` + media files in ``out``; returns the counts."""
    by_records: dict[str, list[dict]] = {}
    for path in parquet_files(folder):
        for i, row in enumerate(iter_rows(path)):
            where = f"{path.relative_to(folder)} row {i} (id {row.get('id')!r})"
            try:
                rec = json.loads(row["record"])
            except (TypeError, json.JSONDecodeError) as exc:
                raise ValueError(f"{where}: column 'record' is not a JSON record ({exc})") from None
            files = [(m["path"], m["bytes"]) for m in row.get("images") or [] if m and m.get("path")]
            if isinstance(rec.get("video"), str):
                files.append((rec["video"], row.get("video")))
            for rel, blob in files:
                if not blob:
                    raise ValueError(f"{where}: the record names {rel!r} but the row holds no bytes for it")
                dst = out / safe_relative(rel, where)
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_bytes(blob)
            validate_record(rec, source=where)
            by_records.setdefault(str(row["records"]), []).append(rec)
    for name, recs in by_records.items():
        write_records(out / f"{name}.jsonl", recs)
    return {k: len(v) for k, v in sorted(by_records.items())}


def materialize_built(source: str | Path, *, revision: str | None = None) -> Path:
    """The canonical folder of a built copy (a folder, or a Hub repo id in the HF cache / downloaded)."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key
    from ambi_plugin.benchmarks.release import REPORT_FILE

    path = Path(str(source)).expanduser()
    if path.is_dir():
        stamp = max((p.stat().st_mtime_ns for p in path.rglob("*") if p.is_file()), default=0)
        key = source_key("built-1", str(path.resolve()), str(stamp), read=[path.resolve()])
        folder = path
    else:
        from ambi_plugin.benchmarks.release import hub_snapshot

        folder = hub_snapshot(str(source), benchmark="built", revision=revision)
        key = source_key("built-1", str(source), str(revision), str(folder), read=[Path(folder).resolve()])
    info = read_build_info(folder)
    out = benchmark_cache(str(info["benchmark"]), "built-" + key)
    if (out / ".complete").is_file():
        return out

    def build(tmp: Path) -> None:
        counts = convert_built(folder, tmp)
        for name in info.get("empty_records") or []:  # no config, no rows: back as the empty file it was
            (tmp / f"{name}.jsonl").write_text("", encoding="utf-8")
            counts[name] = 0
        manifest = {"benchmark": info["benchmark"], "built_copy": str(source), "records": counts}
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        if (folder / REPORT_FILE).is_file():
            (tmp / REPORT_FILE).write_bytes((folder / REPORT_FILE).read_bytes())

    return materialize(out, build)


__all__ = [
    "BUILD_INFO",
    "convert_built",
    "iter_rows",
    "materialize_built",
    "parquet_files",
    "read_build_info",
    "safe_relative",
]
