"""``ambi build``: a benchmark's source -> a built folder that is both the local copy and the Hub upload.

Layout of a built folder (``datasets.load_dataset(folder)`` reads it as it would read the Hub repo)::

    README.md                                  the card (hf_dataset_cards/<benchmark>.md + generated metadata)
    data/<config>/<split>-0000k-of-0000n.parquet   typed rows (ambi_plugin.data.hub.features), streamed in shards
    build_info.json                            benchmark, source, counts, records files, schema version
    load_report.json                           rows the release loader skipped, when it kept a report

A records file is one config; its split comes from the registry entry (the file's placement, or the split a record
carries itself). A records file without rows gets no config (``empty_records`` in build_info.json).
Every record is checked (:mod:`ambi_plugin.data.hub.checks`); problems are collected over the whole source and
reported together, and then nothing is built. The folder is written beside ``out`` and swapped in at the end
(:func:`ambi_plugin.paths.replace_dir_atomically`): an interrupted build leaves ``out`` as it was.
Rows are written in small batches, so memory stays flat however many images there are.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ambi_plugin.benchmarks.built import BUILD_INFO, read_build_info
from ambi_plugin.benchmarks.registry import BenchmarkEntry, get
from ambi_plugin.core.jsonl import read_lines
from ambi_plugin.data.hub.checks import check_record
from ambi_plugin.data.hub.features import SCHEMA_VERSION, features, row_of

BATCH_ROWS = 64
BATCH_BYTES = 64 << 20
SHARD_BYTES = 400 << 20


class BuildError(ValueError):
    """The source has bad records; ``problems`` lists every one (one line each, with the record id)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = "\n".join(problems[:20]) + (f"\n... {len(problems) - 20} more" if len(problems) > 20 else "")
        super().__init__(f"{len(problems)} problem(s); nothing was built:\n{shown}")


@dataclass
class BuildResult:
    """What a build wrote: rows per config and split (configs with rows only), per records file, and images."""

    out: Path
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # config -> split -> rows
    records: dict[str, dict] = field(default_factory=dict)  # records file -> {"config", "rows": {split: n}}
    images: int = 0

    @property
    def empty(self) -> list[str]:
        """Records files with no rows: they get no config (``load_dataset`` refuses a config without data)."""
        return sorted(name for name, r in self.records.items() if not r["rows"])


class ShardWriter:
    """Parquet shards of one (config, split), written batch by batch."""

    def __init__(self, folder: Path, split: str, feats):
        self.folder, self.split, self.feats = folder, split, feats
        self.schema = feats.arrow_schema
        self.rows: list[dict] = []
        self.pending = 0
        self.files: list[Path] = []
        self.writer = None
        self.shard_bytes = 0
        self.count = 0

    def add(self, row: dict, nbytes: int) -> None:
        self.rows.append(self.feats.encode_example(row))
        self.pending += nbytes
        self.count += 1
        if len(self.rows) >= BATCH_ROWS or self.pending >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.rows:
            return
        if self.writer is None or self.shard_bytes >= SHARD_BYTES:
            self._close_writer()
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f".{self.split}-{len(self.files):05d}.parquet"
            self.files.append(path)
            self.writer = pq.ParquetWriter(str(path), self.schema)
            self.shard_bytes = 0
        self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema), row_group_size=BATCH_ROWS)
        self.shard_bytes += self.pending
        self.rows, self.pending = [], 0

    def _close_writer(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def close(self) -> None:
        self.flush()
        self._close_writer()
        n = len(self.files)
        for i, path in enumerate(self.files):
            path.rename(path.with_name(f"{self.split}-{i:05d}-of-{n:05d}.parquet"))


def _shown_image(rec: dict, blob: bytes) -> bytes | None:
    """The first image as the protocol shows it (the record's ``preprocess``), PNG; None when unchanged."""
    spec = rec.get("preprocess")
    if not spec:
        return None
    from PIL import Image

    from ambi_plugin.core.preprocess import preprocess_image

    with Image.open(io.BytesIO(blob)) as im:
        shown = preprocess_image(im.convert("RGB"), spec)
        buf = io.BytesIO()
        shown.save(buf, format="PNG")
    return buf.getvalue()


def _with_region_drawn(rec: dict, checked, entry: BenchmarkEntry) -> dict:
    """A region record whose source did not record the green box gets it drawn now (and recorded)."""
    if rec["task_type"] != "region" or rec.get("region_style") or not rec.get("region"):
        return rec
    if entry.region_style is not None:  # the source draws it itself, with this style
        return {**rec, "region_style": entry.region_style()}
    from PIL import Image

    from ambi_plugin.benchmarks.registry import draw_region

    src = rec["image"] if isinstance(rec["image"], str) else rec["image"][0]
    with Image.open(io.BytesIO(checked.media[src])) as im:
        boxed, style = draw_region(im, rec["region"])
    buf = io.BytesIO()
    boxed.save(buf, format="PNG")
    rel = f"media/regions/{rec['category']}_{rec['id']}.png"
    checked.media[rel] = buf.getvalue()
    return {**rec, "image": rel, "region_style": style, "region_source_image": src}


SPLIT_NAME = re.compile(r"^\w+(\.\w+)*$")  # what datasets accepts as a split name


def _split_of(entry: BenchmarkEntry, rec: object, default: str) -> tuple[str, str | None]:
    """(split of one record, problem or None): the split the record carries (``entry.record_split``) or ``default``."""
    carried = entry.record_split(rec) if entry.record_split is not None and isinstance(rec, dict) else None
    if carried is None:
        return default, None
    if not isinstance(carried, str) or not SPLIT_NAME.match(carried):
        return default, f"split {carried!r} is not a valid split name (letters, digits and '_')"
    return carried, None


def _categories(entry: BenchmarkEntry, files: list[Path]) -> list[str]:
    if entry.categories is not None:
        return list(entry.categories())
    found: set[str] = set()
    for path in files:
        for line in read_lines(path, name=path.name, what="records file"):
            rec = line.value
            if isinstance(rec, dict) and isinstance(rec.get("category"), str):
                found.add(rec["category"])
    return sorted(found)


def _reader(root: Path):
    """Media of the source: relative to its folder, or absolute (release loaders may point into the release)."""

    def read(rel: str) -> bytes | None:
        path = Path(rel)
        if ".." in path.parts:
            return None
        try:
            return (path if path.is_absolute() else root / path).read_bytes()
        except OSError:
            return None

    return read


def _relative_name(path: str) -> str:
    """Where an absolute source path lives in a built row: ``media/<key of its folder>/<name>``."""
    key = hashlib.sha256(str(Path(path).parent).encode()).hexdigest()[:10]
    return f"media/{key}/{Path(path).name}"


def relativize(rec: dict, checked) -> dict:
    """The record with absolute media paths made relative (and the read media renamed alike)."""

    def fix(value):
        if isinstance(value, str) and Path(value).is_absolute():
            rel = _relative_name(value)
            if value in checked.media:
                checked.media[rel] = checked.media.pop(value)
            return rel
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value

    out = {**rec, "image": fix(rec.get("image"))} if "image" in rec else dict(rec)
    if isinstance(rec.get("video"), str) and Path(rec["video"]).is_absolute():
        out["video"] = _relative_name(rec["video"])
    if rec.get("fewshot"):
        out["fewshot"] = [{**r, "image": fix(r.get("image"))} if isinstance(r, dict) else r for r in rec["fewshot"]]
    return out


def build(benchmark: str, source: str | None, out: str | Path, *, progress: bool = False) -> BuildResult:
    """Build ``benchmark`` from ``source`` into ``out`` (replaced atomically). Raises :class:`BuildError`."""
    from tqdm import tqdm

    from ambi_plugin.benchmarks.release import REPORT_FILE
    from ambi_plugin.data.hub.card import render_card
    from ambi_plugin.paths import looks_like_path, replace_dir_atomically

    entry = get(benchmark)
    if source is not None and looks_like_path(source) and not Path(source).expanduser().exists():
        raise FileNotFoundError(
            f"--source {source}: no such file or folder (a release as published is a local folder or zip; a Hub "
            "dataset is named OWNER/NAME)"
        )
    root = Path(entry.read(source))
    files = sorted(root.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"{benchmark}: no <records>.jsonl files in {root} (the canonical folder of {source})")
    categories = _categories(entry, files)
    known = set(categories) if entry.categories is not None else None
    feats = features(categories)
    result = BuildResult(Path(out))
    read = _reader(root)

    def write(tmp: Path) -> None:
        problems: list[str] = []
        written: dict[tuple[str, str], str] = {}  # (config, split) -> the records file that wrote it
        bar = tqdm(desc=f"building {benchmark}", unit="rec", disable=not progress)
        for path in files:
            config, default_split = entry.placement(path.stem)
            writers: dict[str, ShardWriter] = {}
            seen: set[str] = set()
            for line in read_lines(path, name=path.name, what="records file"):
                bar.update()
                where, rec = line.where, line.value
                if line.bad:
                    problems.append(f"{where}: {line.error}")
                    continue
                checked = check_record(rec, where=where, read=read, categories=known, seen=seen)
                problems.extend(checked.problems)
                split, why = _split_of(entry, rec, default_split)
                if why:
                    problems.append(f"{where}: record id={rec.get('id')!r}: {why}")
                if problems:  # keep checking, stop writing
                    continue
                rec = _with_region_drawn(relativize(rec, checked), checked, entry)
                first = next(iter(checked.media.values()), None)
                shown = _shown_image(rec, first) if first is not None else None
                row = row_of(rec, path.stem, checked.media, checked.video, shown)
                if split not in writers:
                    if (config, split) in written:
                        raise ValueError(
                            f"{benchmark}: records files {written[(config, split)]!r} and {path.stem!r} both go to "
                            f"config {config!r}, split {split!r}; fix the registry entry's placement"
                        )
                    written[(config, split)] = path.stem
                    writers[split] = ShardWriter(tmp / "data" / config, split, feats)
                writers[split].add(row, sum(map(len, checked.media.values())) + len(checked.video or b""))
                result.images += len(checked.media)
            if problems:
                continue
            for split, writer in writers.items():
                writer.close()
                result.counts.setdefault(config, {})[split] = writer.count
            result.records[path.stem] = {"config": config, "rows": {s: w.count for s, w in sorted(writers.items())}}
        bar.close()
        if problems:
            raise BuildError(problems)
        info = {
            "benchmark": benchmark,
            "source": str(source) if source is not None else None,
            "canonical": str(root),
            "schema_version": SCHEMA_VERSION,
            "categories": categories,
            "counts": result.counts,
            "images": result.images,
            "records_files": result.records,
            "empty_records": result.empty,
        }
        manifest = root / "manifest.json"
        if manifest.is_file():
            info["source_manifest"] = json.loads(manifest.read_text(encoding="utf-8"))
        (tmp / BUILD_INFO).write_text(json.dumps(info, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        if (root / REPORT_FILE).is_file():
            shutil.copy2(root / REPORT_FILE, tmp / REPORT_FILE)
        card = render_card(entry, feats, result.counts, empty=result.empty)
        (tmp / "README.md").write_text(card, encoding="utf-8")

    replace_dir_atomically(out, write)
    return result


__all__ = ["BUILD_INFO", "BuildError", "BuildResult", "build", "read_build_info"]
