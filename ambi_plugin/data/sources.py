"""Resolve ``ambi://`` dataset paths of our task YAMLs to local JSONL files for lmms-eval.

A task YAML says where its records live with ``dataset_path: ambi://<source>`` and
``dataset_name: <records name>``:

* ``ambi://synth`` — the embedded procedural suite, built on first use and cached
  (``$AMBI_SYNTH_SEED`` and ``$AMBI_SYNTH_N`` choose seed and size; defaults 0 and 8), or the suite
  folder ``$AMBI_SYNTH_DIR`` written by ``ambi synth --out DIR``.
* ``ambi://local`` — a local folder laid out as ``<dir>/<records name>.jsonl`` + images, taken
  from ``$AMBI_DATA_DIR`` (for example one written by ``ambi synth --out DIR``).
* ``ambi://<benchmark>`` (``ambibench``, ``illusionbench`` ...) — the benchmark's records in the
  canonical schema: a local copy (``$AMBI_<BENCHMARK>_DIR`` or ``data.<benchmark>`` in the ambi
  config), else a built copy under the data root (``$AMBI_DATA_ROOT/<benchmark>`` or ``data_root`` in
  the ambi config, written by ``ambi build``), else the default release its registry entry reads (``from_hub``).
  ``ambi://synth`` also reads ``$AMBI_DATA_ROOT/ambi_synth`` when it is there.

The resolver validates every record (a malformed one stops the run before any model call with
a message naming file, line, record and field), writes a harness copy in which image paths are
absolute and the full record is kept as one JSON string column (``record``) so Arrow never has to
unify nested fields, and hands lmms-eval's own loader that file.

**A release with no rows for a task** (lmms-eval's IllusionBench copy has no golden descriptions; an AmbiBench copy
may lack a type) does not stop the run. lmms-eval 0.7.3 cannot run a task on an empty dataset (``datasets`` cannot
load an empty JSON or parquet file, the task constructor reads the first document, and ``build_all_requests``
raises "did not find any docs"), and that error aborts every other task of the run. So, for a folder converted from a
release (it has a load report), ``resolve_jsonl(..., allow_empty=True)`` hands lmms-eval a one-row stand-in that no
model ever sees: the task is built, makes no request (the patches of ``lmms/patches.py``), and its metrics are written as NaN
(:func:`mark_tasks_without_records`); the reason is printed, and recorded in the results JSON's
``ambi_plugin.data.<task>.no_records``. A folder without a load report (a canonical copy you made) must hold every
records file its tasks read.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import re
import sys
from pathlib import Path

from filelock import FileLock

from ambi_plugin.core.schema import JSONL_ENCODER, RecordError, iter_images, read_records, write_records
from ambi_plugin.core.scoring import slug
from ambi_plugin.data.no_records import (  # noqa: F401 - re-exported: the names the old ambi_plugin.data.sources had
    LOADED,
    NO_RECORDS,
    NO_RECORDS_ID,
    absent_reason,
    data_summary,
    mark_tasks_without_records,
    no_records_reason,
    rows_absent,
    skipped_stand_in,
    skipped_tasks,
)
from ambi_plugin.paths import cache_dir

SCHEME = "ambi://"
HARNESS_FORMAT = b"harness-rows-v2"  # bump when harness_rows changes, so cached copies are rebuilt


class DatasetSpecError(ValueError):
    """An ``ambi://`` dataset path that cannot be resolved."""


def _synth_root() -> Path:
    from ambi_plugin.config import data_dir
    from ambi_plugin.synth import DEFAULT_N, ensure_suite
    from ambi_plugin.synth.suite import read_manifest

    local = data_dir("synth")  # a suite written by `ambi synth --out DIR`
    if local is not None:
        if read_manifest(local) is None:
            raise DatasetSpecError(
                f"AMBI_SYNTH_DIR={str(local)!r} holds no synthetic suite (no readable manifest.json); "
                "write one with: ambi synth --out DIR --seed S --n N"
            )
        return local
    return ensure_suite(seed=synth_setting("AMBI_SYNTH_SEED", 0), n=synth_setting("AMBI_SYNTH_N", DEFAULT_N))


def synth_setting(variable: str, default: int) -> int:
    """``$AMBI_SYNTH_SEED`` / ``$AMBI_SYNTH_N`` as an integer; a bad value names the variable."""
    raw = os.environ.get(variable, "")
    if not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        what = "the seed of the generated suite" if variable.endswith("SEED") else "items per synthetic task"
        raise DatasetSpecError(f"{variable}={raw!r} is not an integer ({what}, default {default}); unset it or "
                               "give a whole number") from None  # fmt: skip


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


def _benchmark_root(name: str) -> Path:
    """A benchmark's records in the canonical schema: a configured local copy, else its default release.

    The benchmark's registry entry (:mod:`ambi_plugin.benchmarks.registry`) reads both: ``local(path)`` converts a
    local copy as published (a canonical copy is used as it is), ``from_hub()`` turns the Hub release (downloaded,
    or from the HF cache when offline) into canonical records in our cache.
    """
    from ambi_plugin.benchmarks.registry import of_source
    from ambi_plugin.config import data_dir

    entry = of_source(name)
    local = data_dir(name)
    if local is not None:
        reader = entry.local if entry is not None else None
        if reader is not None:  # the release as downloaded (folder or zip) is converted; a canonical copy is used
            from ambi_plugin.benchmarks.archives import NotAZip

            try:
                return _usable(reader(local), name, configured=local)
            except FileNotFoundError as exc:
                raise DatasetSpecError(str(exc)) from None
            except NotAZip as exc:  # name the variable that points at it, and the file
                from ambi_plugin.config import data_dir_origin

                where = f"the local copy of {name} ({data_dir_origin(name)}={local})"
                text = str(exc)
                raise DatasetSpecError(
                    f"{where} {text[len(str(local)) + 1 :]}" if text.startswith(f"{local} ") else f"{where}: {text}"
                ) from None
        if not local.is_dir():
            raise DatasetSpecError(f"the local copy of {name} is configured as {str(local)!r}, which is not a folder")
        return _usable(local, name)
    loader = entry.from_hub if entry is not None else None
    if entry is not None and loader is None:
        from ambi_plugin.benchmarks.registry import expected_layout

        raise DatasetSpecError(
            f"{SCHEME}{name} has no default release: point {entry.data_var} (or data.{name} in the ambi config) at "
            f"a local copy: {expected_layout(entry.name)}"
        )
    if loader is None:
        raise DatasetSpecError(
            f"unknown dataset source {SCHEME}{name}; known: {', '.join(SCHEME + s for s in SOURCES)} "
            f"and {SCHEME}<benchmark> with a local copy (AMBI_{name.upper()}_DIR or data.{name} in the ambi config)"
        )
    return loader()


def _usable(root: Path, name: str, *, configured: Path | None = None) -> Path:
    """``root`` when it holds records (``<records>.jsonl`` files, or a converted release's load report); otherwise
    say what was found and which layouts are read, instead of failing later on a missing records file."""
    from ambi_plugin.benchmarks.release import read_report

    root = Path(root)
    if root.is_dir() and (read_report(root) is not None or any(root.glob("*.jsonl"))):
        return root
    from ambi_plugin.benchmarks.registry import expected_layout

    where = configured if configured is not None else root
    found = sorted(p.name for p in where.iterdir())[:5] if where.is_dir() else []
    seen = f"it holds {', '.join(found)}{' ...' if len(found) == 5 else ''}" if found else "it is empty"
    raise DatasetSpecError(
        f"the local copy of {name} ({where}) is not usable: {seen}; expected {expected_layout(name)}"
    )


def _built_root(source: str) -> Path | None:
    """The built copy under the data root (``$AMBI_DATA_ROOT/<benchmark>``, from ``ambi build``), read back once."""
    from ambi_plugin.benchmarks.built import materialize_built
    from ambi_plugin.data.hub.built import built_copy

    folder = built_copy(source)
    return materialize_built(folder) if folder is not None else None


def source_name(dataset_path: str) -> str:
    """The source an ``ambi://<source>`` path names (``ambi://synth/`` -> ``synth``)."""
    return dataset_path[len(SCHEME) :].strip("/")


def source_root(dataset_path: str) -> Path:
    if not dataset_path.startswith(SCHEME):
        raise DatasetSpecError(f"not an ambi dataset path: {dataset_path!r}")
    source = source_name(dataset_path)
    if source == "local":
        return SOURCES[source]()
    from ambi_plugin.config import data_dir

    if source == "synth" or data_dir(source) is None:  # a configured local copy wins over the data root
        built = _built_root(source)
        if built is not None:
            return built
    if source in SOURCES:
        return SOURCES[source]()
    return _benchmark_root(source)


def _absolutize(rec: dict, root: Path, known: dict[str, str] | None = None) -> dict:
    """Image and video paths made absolute against ``root`` (resolved once by the caller: a per-path
    ``Path.resolve()`` was the loader's hot spot). ``known``: relative -> absolute paths already made, shared
    across the records of one file (few-shot examples and shared images are named by many records)."""
    out = dict(rec)
    base = str(root)
    known = {} if known is None else known

    def absolute(p: str) -> str:
        full = known.get(p)
        if full is None:
            full = known[p] = p if os.path.isabs(p) else os.path.normpath(os.path.join(base, p))
        return full

    for key in ("image", "video"):
        val = out.get(key)
        if isinstance(val, str):
            out[key] = absolute(val)
        elif isinstance(val, list):
            out[key] = [absolute(v) for v in val]
    return out


def harness_rows(records: list[dict], root: Path) -> list[dict]:
    """Flat rows for lmms-eval: a few top-level columns plus the full record as a JSON string.

    Each record also gets ``breakdown_values``: every value its task has per breakdown field, so
    breakdown metrics exist (as NaN) even for subsets a ``--limit`` run leaves empty.
    """
    seen: dict[str, set[str]] = {}
    declared: dict[str, set[str]] = {}
    for rec in records:
        for field, val in (rec.get("breakdown") or {}).items():
            if val is not None and val != "":
                seen.setdefault(field, set()).add(slug(val))
        # values a task reports even when the release has no item with them (NaN), e.g. a breakdown it lacks
        for field, vals in (rec.get("breakdown_declared") or {}).items():
            declared.setdefault(field, set()).update(slug(v) for v in vals)
    # a declared field reports exactly its declared values (the task YAML's metric names): a record whose value is
    # outside them ("unknown") counts in the overall metrics and in no subset
    values = {field: sorted(declared.get(field) or seen[field]) for field in {*seen, *declared}}
    root = root.resolve()
    rows = []
    known: dict[str, str] = {}
    for rec in records:
        full = _absolutize(rec, root, known)
        full["breakdown_values"] = values
        raw = JSONL_ENCODER.encode(full)  # = json.dumps(full, ensure_ascii=False, sort_keys=True)
        rows.append(
            {"id": str(full["id"]), "task_type": full["task_type"], "category": full["category"], "record": raw}
        )
    return rows


def check_loadable(records: list[dict], src: Path, root: Path) -> None:
    """Fail before any model call on an empty split or an image file that does not exist, naming the
    records file, line, record id and field (a truncated image is only found when it is decoded:
    ``hooks.doc_to_visual`` names record, field and file then)."""
    if not records:
        raise RecordError(f"{src}: holds no records (an empty split); write at least one record or drop the task")
    seen: set[str] = set()  # few-shot examples and shared images are named by many records: look once
    named: set[str] = set()
    for k, rec in enumerate(records, start=1):
        for path in iter_images(rec):
            if path in named:
                continue
            named.add(path)
            full = path if os.path.isabs(path) else os.path.join(root, path)
            if full in seen:
                continue
            seen.add(full)
            if not os.path.exists(full):
                raise RecordError(
                    f"{src}, record #{k} id={rec.get('id')!r}: field 'image' names {path!r}, which does not exist "
                    f"(looked for {full}); image paths are relative to {root}"
                )


def _no_records(dataset_path: str, name: str, root: Path, reason: str) -> Path:
    """The one-row stand-in lmms-eval is handed for a task the release has no rows for (never sent to a model)."""
    rec = {"id": NO_RECORDS_ID, "no_records": reason}
    row = {"id": NO_RECORDS_ID, "task_type": "none", "category": "none", "record": json.dumps(rec)}
    out_dir = cache_dir() / "harness"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{cache_name(name)}-no-records-{hashlib.sha256((name + reason).encode()).hexdigest()[:12]}.jsonl"
    if not out.exists():
        tmp = out.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(row) + "\n", encoding="utf-8")
        os.replace(tmp, out)
    if (dataset_path, name) not in NO_RECORDS:
        print(
            f"ambi-plugin: {dataset_path} has no records '{name}' in {root}: {reason}. "
            "Its tasks run on zero rows and report NaN (see ambi_plugin.data in the results JSON).",
            file=sys.stderr,
            flush=True,
        )
    NO_RECORDS[(dataset_path, name)] = reason
    LOADED[(dataset_path, name)] = root
    return out


def cache_name(name: str) -> str:
    """A file name for the cache from a YAML's ``dataset_name``: its characters outside ``[A-Za-z0-9_.-]`` become
    ``_`` and it never starts with a dot, so ``/abs/dir`` or ``../x`` names a file *in* the cache folder, not
    beside the user's records (the digest that follows it tells files apart)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).lstrip("._-")[-80:] or "records"


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector paused while a records file is read and its harness copy written, then
    restored as it was. The records are plain acyclic dicts and lists, but allocating hundreds of thousands of them
    with lmms-eval, torch and transformers already in memory makes the collector walk that whole heap again and
    again: a third of the loader's time at 100,000 records (docs/performance.md)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def resolve_jsonl(dataset_path: str, name: str, *, allow_empty: bool = False) -> Path:
    """Return a local JSONL (harness rows) for ``ambi://<source>`` + records ``name``.

    When a converted release (a folder with a load report) has no rows for ``name``: with ``allow_empty`` the
    one-row stand-in of a task that runs on zero rows (:data:`NO_RECORDS` says why), else a
    :class:`DatasetSpecError` with the reason."""
    if not name:
        raise DatasetSpecError(f"dataset_path {dataset_path!r} needs dataset_name: <records name> in the task YAML")
    root = source_root(dataset_path)
    src = root / f"{name}.jsonl"
    reason = rows_absent(root, name)
    if reason is not None:
        if allow_empty:
            return _no_records(dataset_path, name, root, reason)
        raise DatasetSpecError(f"{dataset_path}: no records '{name}' in {root}: {reason}")
    if not src.is_file():
        available = sorted(p.stem for p in root.glob("*.jsonl"))
        raise DatasetSpecError(
            f"{dataset_path}: no records '{name}' in {root} (available: {', '.join(available) or 'none'})"
        )
    digest = hashlib.sha256(HARNESS_FORMAT + src.read_bytes() + str(src.resolve()).encode()).hexdigest()[:16]
    out_dir = cache_dir() / "harness"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{cache_name(name)}-{digest}.jsonl"  # in the cache, whatever path dataset_name holds
    with FileLock(str(out) + ".lock"):
        if not out.exists():
            with _collector_paused():
                records = read_records(src)  # validates; raises RecordError naming file, line, record, field
                check_loadable(records, src, root)
                write_records(out, harness_rows(records, root))
    LOADED[(dataset_path, name)] = root
    return out


def skip_task(task: str, reason: str, records: tuple[str, str] | None = None) -> None:
    """A task whose preflight failed, in a run with ``AMBI_SKIP_MISSING=1``: it runs on zero rows (the one-row
    stand-in no model sees) and reports NaN with ``reason``; its records (``(ambi://<source>, dataset_name)``, when
    it reads ours) are never resolved."""
    skipped_tasks()[task] = reason  # the run's (runtime/run_state.py)
    if records is not None and records[1]:
        NO_RECORDS[records] = f"preflight failed: {reason}"


__all__ = [
    "NO_RECORDS",
    "DatasetSpecError",
    "RecordError",
    "SCHEME",
    "harness_rows",
    "mark_tasks_without_records",
    "no_records_reason",
    "resolve_jsonl",
    "skip_task",
    "source_name",
    "source_root",
]
