"""Reading a built copy back: the canonical folder the tasks read, and the data root that finds built copies.

* :func:`materialize_built` turns a built folder (``ambi build``), or a Hub dataset repo holding one (``ambi push``),
  into ``<records>.jsonl`` + media in ``$AMBI_CACHE/<benchmark>/built-<key>/``, once, atomically.
* The data root (``$AMBI_DATA_ROOT``, else ``data_root`` in the ambi config) is one setting for every benchmark:
  ``<root>/<benchmark>/`` (``ambibench``, ``illusionbench``, ``illusionvqa``, ``ambi_synth``, ...) is the built copy
  that ``dataset_path: ambi://<benchmark>`` reads when no ``$AMBI_<BENCHMARK>_DIR`` / ``data.<benchmark>`` is set.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ambi_plugin.core.schema import validate_record, write_records
from ambi_plugin.data.hub.features import safe_relative


def data_root() -> Path | None:
    env = os.environ.get("AMBI_DATA_ROOT")
    if env:
        return Path(env).expanduser()
    from ambi_plugin.config import load_config

    val = load_config().get("data_root")
    return Path(str(val)).expanduser() if val else None


def built_copy(source: str) -> Path | None:
    """The built copy of ``ambi://<source>`` under the data root, or None."""
    from ambi_plugin.data.hub.build import BUILD_INFO
    from ambi_plugin.data.hub.registry import REGISTRY

    root = data_root()
    if root is None:
        return None
    names = [e.name for e in REGISTRY.values() if e.ambi_path == f"ambi://{source}"] or [source]
    for name in names:
        if (root / name / BUILD_INFO).is_file():
            return root / name
    return None


def convert_built(folder: Path, out: Path) -> dict[str, int]:
    """Rows of a built folder -> ``<records>.jsonl`` + media files in ``out``; returns the counts."""
    from ambi_plugin.data.hub.validate import iter_rows, parquet_files

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
    from ambi_plugin.data.hub.build import read_build_info

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


__all__ = ["built_copy", "convert_built", "data_root", "materialize_built"]
