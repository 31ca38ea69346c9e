"""The capture run: two prompts per image, every head's activation recorded, the switch judged, resumable.

For each record (a bistable or multi-scene image): prompt 1 (one interpretation) is generated and its activations
recorded (``pre``); prompt 2 (the hint, asking for the alternative) likewise (``post``); the switch is decided by
:func:`ambi_plugin.analysis.prompts.decide_switch`. Layout of ``OUT/<category>/``:

* ``items.rank<r>.jsonl``: one line per finished image (answers, verdict, prompts); appended as items finish;
* ``acts/<n>.npz``: ``pre`` and ``post`` ``[layers, heads, head_dim]`` of that image, written before its line, in the
  storage dtype (``--store-dtype``, bfloat16 by default; the dtype is stored with them as ``dtype``);
* ``activations.npz`` + ``capture.json`` (main process, at the end): every image's activations gathered across
  processes (same storage dtype), the ids, the switch flags, the head layout, the position and the prompts.
  :func:`load_activations` gives float32 back whatever the storage dtype.

An interrupted run keeps every finished image; run the same command again and it continues where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ambi_plugin.analysis.capture import HeadRecorder, from_storage, to_storage
from ambi_plugin.analysis.driver import gather, is_main_process, model_driver, rank_and_world, shard
from ambi_plugin.analysis.heads import DEFAULT_PATTERN, head_layout
from ambi_plugin.analysis.hooks import HookSet
from ambi_plugin.analysis.positions import FirstCallIds, check_same_token, paired_position
from ambi_plugin.analysis.prompts import (
    SwitchRule,
    both_named,
    decide_switch,
    expected_labels,
    first_prompt,
    second_prompt,
)
from ambi_plugin.core.jsonl import numbered

__all__ = ["CaptureSummary", "capture_category", "load_activations", "load_items", "records_name"]

DEFAULT_RECORDS = {"bistable": "bistable_open", "multiscene": "multiscene_open"}


def records_name(source: str, category: str) -> str:
    """The records name (``<name>.jsonl``, the task YAML's ``dataset_name``) a capture of ``category`` reads."""
    if source.startswith("ambi://"):
        return DEFAULT_RECORDS.get(category, category)
    return Path(source).stem


def load_items(source: str, category: str) -> list[dict]:
    """Records from a JSONL file (images relative to it) or ``ambi://<benchmark>`` (the category's open task)."""
    from ambi_plugin.core.schema import read_records
    from ambi_plugin.data.sources import _absolutize, source_root

    if source.startswith("ambi://"):
        root = source_root(source)
        path = root / f"{DEFAULT_RECORDS.get(category, category)}.jsonl"
    else:
        path = Path(source).expanduser()
        root = path.parent
    if not path.is_file():
        raise FileNotFoundError(
            f"records file {str(path)!r} does not exist (pass --records FILE.jsonl or ambi://ambibench)"
        )
    recs = [_absolutize(r, root) for r in read_records(path)]
    usable = [r for r in recs if r.get("image") and expected_labels(r)]
    if len(usable) < len(recs):
        print(
            f"switch-heads: {len(recs) - len(usable)} of {len(recs)} records in {path} have no image or no views; skipped"
        )
    return usable


def _images(rec: dict) -> list[str]:
    img = rec["image"]
    return [img] if isinstance(img, str) else list(img)


def _key(rid: str) -> str:
    return hashlib.sha1(str(rid).encode()).hexdigest()[:16]


def _acts_readable(path: Path) -> bool:
    """The image's ``.npz`` is complete: a zip whose directory (at its end, so a truncated file has none) lists
    ``pre`` and ``post``."""
    try:
        with zipfile.ZipFile(path) as z:
            return {"pre.npy", "post.npy"} <= set(z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def _lines(path: Path, *, own: bool, say) -> list[str]:
    """The complete lines of an items file. A torn last line (the run was killed while writing it) is dropped,
    and cut from the file when it is this process's own file (so that the next line starts on a line of its
    own); its image is captured again."""
    data = path.read_bytes()
    lines = data.decode("utf-8", errors="replace").splitlines()
    if data and not data.endswith(b"\n"):
        say(f"{path}: dropped a torn last line (a run stopped while writing it); that image is captured again")
        lines = lines[:-1]
        if own:
            with path.open("r+b") as fh:
                fh.truncate(data.rfind(b"\n") + 1)
    return lines


def _done(folder: Path, *, rank: int | None = None, say=print) -> dict[str, dict]:
    """The images already captured: a complete line in an items file and a readable ``acts/<n>.npz``. An
    unreadable line or a truncated ``.npz`` is said, and that image is captured again."""
    rows: dict[str, dict] = {}
    for path in sorted(folder.glob("items.rank*.jsonl")):
        lines = _lines(path, own=path.name == f"items.rank{rank}.jsonl", say=say)
        for line in numbered(lines, str(path), what="items file", objects=True, unreadable_rows=True):
            row = line.value
            if line.bad or "id" not in row:
                say(f"{line.where}: not a complete item line; skipped (that image is captured again)")
                continue
            rid = str(row["id"])
            acts = folder / "acts" / f"{_key(rid)}.npz"
            if not acts.is_file():
                continue
            if not _acts_readable(acts):
                say(f"{acts}: truncated or unreadable activations of image id={rid!r}; it is captured again")
                acts.unlink(missing_ok=True)
                rows.pop(rid, None)
                continue
            rows[rid] = row
    return rows


def _stored_dtype(z: Any) -> str | None:
    return str(z["dtype"]) if "dtype" in z.files else None


def _read_acts(folder: Path, rid: str) -> tuple[np.ndarray, np.ndarray]:
    with np.load(folder / "acts" / f"{_key(rid)}.npz") as z:
        dtype = _stored_dtype(z)
        return from_storage(z["pre"], dtype), from_storage(z["post"], dtype)


@dataclass
class CaptureSummary:
    folder: Path
    n_items: int
    n_switched: int


def capture_category(
    lm: Any,
    records: Sequence[dict],
    out_dir: str | Path,
    *,
    category: str,
    position: str | int = "last_prompt",
    rule: SwitchRule = "judge",
    gen_kwargs: dict | None = None,
    pattern: str = DEFAULT_PATTERN,
    model_name: str = "",
    judge: Any = None,
    source: str = "",
    dataset_name: str = "",
    store_dtype: str = "bfloat16",
) -> CaptureSummary:
    """Capture ``records`` of ``category`` with the lmms-eval backend ``lm``; see the module docstring."""
    from tqdm import tqdm

    to_storage(np.zeros(1, np.float32), store_dtype)  # an unknown dtype fails here, before any generation
    position = paired_position(position)  # a start-relative index would name different tokens in the two prompts
    folder = Path(out_dir) / category
    (folder / "acts").mkdir(parents=True, exist_ok=True)
    rank, _ = rank_and_world(lm)
    layout = head_layout(lm, pattern=pattern)
    driver = model_driver(lm, gen_kwargs=gen_kwargs)
    done = _done(folder, rank=rank)
    todo = [r for r in shard(list(records), lm) if str(r["id"]) not in done]
    if done and is_main_process(lm):
        print(f"switch-heads: resuming {category}: {len(done)} images already captured")
    hooks = HookSet(lm, layout=layout, pattern=pattern)
    recorder = HeadRecorder(hooks, position=position)
    ids = FirstCallIds(lm)
    with hooks, ids, open(folder / f"items.rank{rank}.jsonl", "a", encoding="utf-8") as log:
        for rec in tqdm(todo, desc=f"capture {category}", disable=rank != 0):
            images = _images(rec)
            p1 = first_prompt(category)
            recorder.start(), ids.start()
            a1 = driver.generate(p1, images)
            pre, ids_1 = recorder.result(), ids.ids
            p2 = second_prompt(category, a1)
            recorder.start(), ids.start()
            a2 = driver.generate(p2, images)
            post, ids_2 = recorder.result(), ids.ids
            if isinstance(position, int) and ids_1 is not None and ids_2 is not None:
                check_same_token(position, ids_1, ids_2)  # stops before this image is written: a setting error
            verdict = decide_switch(a1, a2, expected_labels(rec), rule=rule, judge=judge)
            correct = both_named(a1, a2, expected_labels(rec), rule=rule, judge=judge)
            tmp = folder / "acts" / f"{_key(rec['id'])}.tmp.npz"
            np.savez(tmp, pre=to_storage(pre, store_dtype), post=to_storage(post, store_dtype), dtype=store_dtype)
            os.replace(tmp, folder / "acts" / f"{_key(rec['id'])}.npz")
            row = {"id": str(rec["id"]), "first": a1, "second": a2, "switched": verdict.switched,
                   "differs": verdict.differs, "correct": correct, "matched": verdict.matched, "reason": verdict.reason,
                   "labels": expected_labels(rec), "prompt1": p1, "prompt2": p2}  # fmt: skip
            log.write(json.dumps(row) + "\n")
            log.flush()
    mine = {
        rid: row
        for rid, row in _done(folder, say=lambda msg: None).items()
        if rid in {str(r["id"]) for r in shard(list(records), lm)}
    }
    local = {rid: (row, *_read_acts(folder, rid)) for rid, row in mine.items()}
    merged: dict[str, tuple] = {}
    for part in gather(local):
        merged.update(part)
    order = [str(r["id"]) for r in records if str(r["id"]) in merged]
    n_sw = sum(bool(merged[i][0]["switched"]) for i in order)
    if is_main_process(lm) and order:
        np.savez(
            folder / "activations.npz",
            ids=np.array(order),
            pre=to_storage(np.stack([merged[i][1] for i in order]), store_dtype),
            post=to_storage(np.stack([merged[i][2] for i in order]), store_dtype),
            dtype=store_dtype,
            switched=np.array([bool(merged[i][0]["switched"]) for i in order]),
            correct=np.array([bool(merged[i][0].get("correct")) for i in order]),
        )
        summary = {
            "model": model_name,
            "category": category,
            "records": source,
            "dataset_name": dataset_name,  # the records these ids belong to (the task YAML's dataset_name)
            "position": position,
            "stored_dtype": store_dtype,
            "bytes_per_image": int(2 * layout.n_layers * layout.n_heads * layout.head_dim * _itemsize(store_dtype)),
            "switch_rule": rule,
            "prompts_are_ours": True,
            "prompt1": first_prompt(category),
            "prompt2_template": second_prompt(category, "{first}"),
            "layout": layout.to_dict(),
            "n_items": len(order),
            "n_switched": n_sw,
            "items": [merged[i][0] for i in order],
        }
        (folder / "capture.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return CaptureSummary(folder, len(order), n_sw)


def _itemsize(store_dtype: str) -> int:
    return 4 if store_dtype == "float32" else 2


def load_activations(folder: str | Path) -> dict[str, np.ndarray]:
    """``ids``, ``pre``, ``post`` (float32, whatever the storage dtype), ``switched``, ``correct`` of a finished
    capture folder."""
    path = Path(folder) / "activations.npz"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} does not exist: run `ambi switch-heads capture` first (it writes it at the end)"
        )
    with np.load(path) as z:
        out = {k: z[k] for k in z.files if k != "dtype"}
        dtype = _stored_dtype(z)
    out["pre"], out["post"] = from_storage(out["pre"], dtype), from_storage(out["post"], dtype)
    return out
