"""Resolve ``ambi://`` dataset paths of our task YAMLs to local JSONL files for lmms-eval.

A task YAML says where its records live with ``dataset_path: ambi://<source>`` and
``dataset_name: <records name>``:

* ``ambi://synth`` — the embedded procedural suite, built on first use and cached
  (``$AMBI_SYNTH_SEED`` and ``$AMBI_SYNTH_N`` choose seed and size; defaults 0 and 8).
* ``ambi://local`` — a local folder laid out as ``<dir>/<records name>.jsonl`` + images, taken
  from ``$AMBI_DATA_DIR`` (for example one written by ``ambi synth --out DIR``).

The resolver validates every record (a malformed one stops the run before any model call with
a message naming file, line, record and field), writes a harness copy in which image paths are
absolute and the full record is kept as one JSON string column (``record``) so Arrow never has to
unify nested fields, and hands lmms-eval's own loader that file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from filelock import FileLock

from ambi_plugin.core.schema import RecordError, read_records, write_records
from ambi_plugin.paths import cache_dir

SCHEME = "ambi://"


class DatasetSpecError(ValueError):
    """An ``ambi://`` dataset path that cannot be resolved."""


def _synth_root() -> Path:
    from ambi_plugin.data.synth import DEFAULT_N, ensure_suite

    seed = int(os.environ.get("AMBI_SYNTH_SEED", "0"))
    n = int(os.environ.get("AMBI_SYNTH_N", str(DEFAULT_N)))
    return ensure_suite(seed=seed, n=n)


def _local_root() -> Path:
    env = os.environ.get("AMBI_DATA_DIR")
    if not env:
        raise DatasetSpecError(
            "dataset_path 'ambi://local' needs the environment variable AMBI_DATA_DIR to point at a folder "
            "holding <name>.jsonl files and their images (for example: ambi synth --out DIR; export AMBI_DATA_DIR=DIR)"
        )
    root = Path(env).expanduser()
    if not root.is_dir():
        raise DatasetSpecError(f"AMBI_DATA_DIR={env!r} is not a folder")
    return root


SOURCES = {"synth": _synth_root, "local": _local_root}


def source_root(dataset_path: str) -> Path:
    if not dataset_path.startswith(SCHEME):
        raise DatasetSpecError(f"not an ambi dataset path: {dataset_path!r}")
    source = dataset_path[len(SCHEME) :].strip("/")
    if source not in SOURCES:
        raise DatasetSpecError(
            f"unknown dataset source {dataset_path!r}; expected one of: {', '.join(SCHEME + s for s in SOURCES)}"
        )
    return SOURCES[source]()


def _absolutize(rec: dict, root: Path) -> dict:
    out = dict(rec)
    for key in ("image", "video"):
        val = out.get(key)
        if isinstance(val, str):
            out[key] = str((root / val).resolve()) if not os.path.isabs(val) else val
        elif isinstance(val, list):
            out[key] = [str((root / v).resolve()) if not os.path.isabs(v) else v for v in val]
    return out


def harness_rows(records: list[dict], root: Path) -> list[dict]:
    """Flat rows for lmms-eval: a few top-level columns plus the full record as a JSON string."""
    rows = []
    for rec in records:
        full = _absolutize(rec, root)
        rows.append(
            {
                "id": str(full["id"]),
                "task_type": full["task_type"],
                "category": full["category"],
                "record": json.dumps(full, ensure_ascii=False, sort_keys=True),
            }
        )
    return rows


def resolve_jsonl(dataset_path: str, name: str) -> Path:
    """Return a local JSONL (harness rows) for ``ambi://<source>`` + records ``name``."""
    if not name:
        raise DatasetSpecError(f"dataset_path {dataset_path!r} needs dataset_name: <records name> in the task YAML")
    root = source_root(dataset_path)
    src = root / f"{name}.jsonl"
    if not src.is_file():
        available = sorted(p.stem for p in root.glob("*.jsonl"))
        raise DatasetSpecError(
            f"{dataset_path}: no records '{name}' in {root} (available: {', '.join(available) or 'none'})"
        )
    digest = hashlib.sha256(src.read_bytes() + str(root.resolve()).encode()).hexdigest()[:16]
    out_dir = cache_dir() / "harness"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{name}-{digest}.jsonl"
    with FileLock(str(out) + ".lock"):
        if not out.exists():
            records = read_records(src)  # validates; raises RecordError naming file, line, record, field
            write_records(out, harness_rows(records, root))
    return out


__all__ = ["DatasetSpecError", "RecordError", "SCHEME", "resolve_jsonl", "source_root", "harness_rows"]
