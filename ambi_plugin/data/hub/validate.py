"""``ambi validate DIR``: check every row of a built folder; one line per problem, with the record id.

A row's record is checked as the build checks it (:mod:`ambi_plugin.data.hub.checks`), its images decoded from
the row's own bytes; the typed columns must agree with the record (id, records name); the card must parse, list
the built configs, list no config whose data files match nothing, and carry the required metadata. Rows are read in small batches (flat memory).
"""

from __future__ import annotations

import json
from pathlib import Path

from ambi_plugin.benchmarks.built import iter_rows, parquet_files, read_build_info
from ambi_plugin.data.hub.checks import check_record

REQUIRED_COLUMNS = ("id", "records", "benchmark", "category", "task_type", "images", "video", "record")


def _check_card(folder: Path, configs: set[str]) -> list[str]:
    from huggingface_hub import DatasetCard

    from ambi_plugin.data.hub.card import REQUIRED_METADATA

    path = folder / "README.md"
    if not path.is_file():
        return [f"{path}: missing (the dataset card; ambi build writes it)"]
    try:
        card = DatasetCard(path.read_text(encoding="utf-8"))
    except Exception as exc:  # noqa: BLE001 - any parse failure is a problem line
        return [f"{path}: the card's YAML header does not parse ({exc})"]
    meta = card.data.to_dict()
    out = [f"{path}: metadata field '{k}' is missing" for k in REQUIRED_METADATA if not meta.get(k)]
    listed = {c.get("config_name") for c in meta.get("configs") or []}
    out += [f"{path}: config {c!r} is built but not listed under 'configs'" for c in sorted(configs - listed)]
    return out + _configs_without_rows(folder, path, meta.get("configs") or [])


def _configs_without_rows(folder: Path, card: Path, configs: list) -> list[str]:
    """A listed config (or one of its splits) whose ``data_files`` match no parquet file: ``load_dataset`` fails
    on it ('corresponds to no data'). ``ambi build`` leaves records files without rows out of the card."""
    out = []
    for cfg in configs:
        name = cfg.get("config_name") if isinstance(cfg, dict) else None
        files = cfg.get("data_files") if isinstance(cfg, dict) else None
        entries = files if isinstance(files, list) else [{"split": "train", "path": files}]
        if not entries:
            out.append(f"{card}: config {name!r} lists no data_files; leave configs without rows out of the card")
        for entry in entries:
            split, patterns = (entry.get("split"), entry.get("path")) if isinstance(entry, dict) else ("train", entry)
            patterns = patterns if isinstance(patterns, list) else [patterns]
            if not any(isinstance(p, str) and next(folder.glob(p), None) for p in patterns):
                out.append(
                    f"{card}: config {name!r} split {split!r} has no rows (data_files {patterns} match no file); "
                    f"datasets.load_dataset(DIR, {name!r}) would fail: leave it out of the card (ambi build does)"
                )
    return out


def validate_folder(folder: str | Path) -> list[str]:
    """Every problem of a built folder (empty = valid)."""
    from ambi_plugin.benchmarks.registry import entries

    folder = Path(folder)
    try:
        info = read_build_info(folder)
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        return [str(exc)]
    entry = entries().get(info.get("benchmark", ""))
    known = set(entry.categories()) if entry is not None and entry.categories is not None else None
    files = parquet_files(folder)
    problems: list[str] = [] if files else [f"{folder}/data: no parquet files"]
    configs: set[str] = set()
    for path in files:
        rel = path.relative_to(folder)
        configs.add(path.parent.name)
        seen: set[str] = set()
        try:
            rows = list(_columns_of(path))
        except Exception as exc:  # noqa: BLE001 - an unreadable file is one problem line
            problems.append(f"{rel}: cannot read ({type(exc).__name__}: {exc})")
            continue
        missing = [c for c in REQUIRED_COLUMNS if c not in rows]
        if missing:
            problems.append(f"{rel}: missing column(s) {', '.join(missing)}")
            continue
        for i, row in enumerate(iter_rows(path)):
            where = f"{rel} row {i}"
            try:
                rec = json.loads(row["record"])
            except (TypeError, json.JSONDecodeError):
                problems.append(f"{where}: id={row.get('id')!r}: column 'record' is not a JSON record")
                continue
            media = {m["path"]: m["bytes"] for m in row.get("images") or [] if m and m.get("path")}
            if isinstance(rec, dict) and rec.get("video"):
                media[rec["video"]] = row.get("video")
            checked = check_record(rec, where=where, read=media.get, categories=known, seen=seen)
            problems.extend(checked.problems)
            if isinstance(rec, dict) and str(rec.get("id")) != row.get("id"):
                problems.append(f"{where}: id={row.get('id')!r}: column 'id' differs from the record's id")
            if row.get("records") != path.parent.name and info.get("records_files", {}).get(row.get("records")) is None:
                problems.append(f"{where}: id={row.get('id')!r}: column 'records' {row.get('records')!r} is unknown")
            if isinstance(rec, dict) and rec.get("category") != row.get("category"):
                problems.append(f"{where}: id={row.get('id')!r}: column 'category' differs from the record's")
    return problems + _check_card(folder, configs)


def _columns_of(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return list(pq.ParquetFile(str(path)).schema_arrow.names)


__all__ = ["REQUIRED_COLUMNS", "iter_rows", "parquet_files", "validate_folder"]
