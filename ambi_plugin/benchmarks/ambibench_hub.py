"""AmbiBench on the HF Hub: the layout we publish, and the loader that turns it back into a canonical folder.

Hub layout (one dataset repo, one config ``default``, split ``test``)::

    README.md                     the card, hf_dataset_cards/ambibench.md (its YAML header lists the config)
    data/<records>.parquet        one file per records name (camouflaged_open, hybrid_open, ...)

Columns: ``dataset`` (records name), ``id``, ``record`` (the canonical record as JSON, media paths
relative), ``image`` (``datasets.Image``: the image file's bytes, null for videos), ``video`` (the
video file's bytes, null for images). ``datasets.load_dataset(<repo or folder>)`` reads it.

:func:`materialize` loads it (from the Hub, its offline cache, or a local folder laid out the same
way) and writes ``<records>.jsonl`` + media into ``$AMBI_CACHE/ambibench/<key>/``, once, atomically.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ambi_plugin.benchmarks.ambibench import BENCHMARK
from ambi_plugin.core.schema import read_records, validate_record, write_records

# Where the canonical AmbiBench is published (override with $AMBI_AMBIBENCH_HUB or materialize(source)).
# The authors' release is not on the Hub yet; this is the repo the layout above is written for.
HUB_REPO = "ambi-plugin/ambibench"


def _features():
    from datasets import Features, Image, Value

    return Features(
        {
            "dataset": Value("string"),
            "id": Value("string"),
            "record": Value("string"),
            "image": Image(),
            "video": Value("binary"),
        }
    )


def write_hub_layout(canonical: str | Path, out: str | Path) -> Path:
    """Write a canonical AmbiBench folder in the Hub layout (card + ``data/*.parquet``) into ``out``."""
    from datasets import Dataset

    from ambi_plugin.paths import cards_dir

    canonical, out = Path(canonical), Path(out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    files = sorted(canonical.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"{canonical}: no <records>.jsonl files to publish")
    for path in files:
        cols: dict[str, list] = {"dataset": [], "id": [], "record": [], "image": [], "video": []}
        for rec in read_records(path):
            image, video = rec.get("image"), rec.get("video")
            cols["dataset"].append(path.stem)
            cols["id"].append(str(rec["id"]))
            cols["record"].append(json.dumps(rec, ensure_ascii=False, sort_keys=True))
            cols["image"].append(
                {"bytes": (canonical / image).read_bytes(), "path": Path(image).name}
                if isinstance(image, str)
                else None
            )
            cols["video"].append((canonical / video).read_bytes() if isinstance(video, str) else None)
        Dataset.from_dict(cols, features=_features()).to_parquet(str(out / "data" / f"{path.stem}.parquet"))
    (out / "README.md").write_text((cards_dir() / f"{BENCHMARK}.md").read_text(encoding="utf-8"), encoding="utf-8")
    return out


def _safe_relative(rel: str, where: str) -> Path:
    path = Path(rel)
    if path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{where}: media path {rel!r} must be relative to the dataset folder")
    return path


def convert(dsets, out: Path) -> None:
    """Hub rows (a DatasetDict or Dataset) -> ``<records>.jsonl`` + media in ``out``."""
    from datasets import Image

    split = dsets["test"] if hasattr(dsets, "keys") and "test" in dsets else dsets
    if hasattr(split, "keys"):  # a DatasetDict without 'test': take its only split
        split = next(iter(split.values()))
    split = split.cast_column("image", Image(decode=False))
    by_data: dict[str, list[dict]] = {}
    for i, row in enumerate(split):
        where = f"Hub row {i} (dataset {row.get('dataset')!r}, id {row.get('id')!r})"
        try:
            rec = json.loads(row["record"])
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{where}: column 'record' is not a JSON record ({exc})") from None
        for key, blob in (("image", (row.get("image") or {}).get("bytes")), ("video", row.get("video"))):
            rel = rec.get(key)
            if not isinstance(rel, str):
                continue
            if not blob:
                raise ValueError(f"{where}: the record names {key} {rel!r} but column '{key}' is empty")
            dst = out / _safe_relative(rel, where)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(blob)
        validate_record(rec, source=where)
        by_data.setdefault(str(row["dataset"]), []).append(rec)
    for name, recs in by_data.items():
        write_records(out / f"{name}.jsonl", recs)
    (out / "manifest.json").write_text(
        json.dumps({"benchmark": BENCHMARK, "records": {k: len(v) for k, v in sorted(by_data.items())}}, indent=1)
    )


def _load(source: str, revision: str | None):
    from ambi_plugin.benchmarks.hub import DataUnavailableError, load_hub_dataset

    if not revision:
        return load_hub_dataset(source, benchmark=BENCHMARK)
    try:
        import datasets

        return datasets.load_dataset(source, revision=revision)
    except Exception as exc:  # noqa: BLE001 - one actionable message
        raise DataUnavailableError(
            f"{BENCHMARK}: cannot load {source!r} at revision {revision!r} ({type(exc).__name__}: {str(exc)[:300]}). "
            "Point AMBI_AMBIBENCH_DIR at a local canonical copy (ambi import ambibench RELEASE --out DIR)."
        ) from None


def materialize(source: str | Path | None = None, *, revision: str | None = None) -> Path:
    """The canonical folder of the Hub release ``source`` (default ``$AMBI_AMBIBENCH_HUB``, else
    :data:`HUB_REPO`), built once in the cache. Offline and uncached: an error that says what to do."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, source_key
    from ambi_plugin.benchmarks.hub import materialize as build_once

    source = str(source or os.environ.get("AMBI_AMBIBENCH_HUB") or HUB_REPO)
    source_id = f"{source}@{revision}" if revision else source
    if Path(source).is_dir():  # a local folder: its content may change, so key on the files' timestamps too
        stamp = max((p.stat().st_mtime_ns for p in Path(source).rglob("*") if p.is_file()), default=0)
        source_id = f"{Path(source).resolve()}:{stamp}"
    out = benchmark_cache(BENCHMARK, "hub-" + source_key(source_id))
    if (out / ".complete").is_file():
        return out
    dsets = _load(source, revision)
    return build_once(out, lambda tmp: convert(dsets, tmp))


__all__ = ["HUB_REPO", "convert", "materialize", "write_hub_layout"]
