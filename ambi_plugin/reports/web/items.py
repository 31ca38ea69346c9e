"""The HTML report's items: every logged item of every run, as the data the page's item browser shows.

Read from lmms-eval's ``--log_samples`` files (our item score, logged under each metric name, with the prompt and
the gold text lmms-eval logs beside it) and from ``ambi score --samples-out`` folders (the same shape). The images
come from the task's records: the folder the run read them from (the results JSON's ``ambi_plugin.data``), else the
task's ``ambi://`` source as configured here. They are copied into ``<out>/items/full/`` with a thumbnail in
``<out>/items/thumb/``, each named by the source file's path, size and modification time, so a report written again
into the same folder copies and shrinks nothing twice.

An item's status for one run: ``e`` item error (its image could not be read), ``u`` unread (no parser read the
answer), ``c`` correct, ``w`` wrong (read and not correct). VIA-Bench items are correct by Match (its main
protocol); the Judge's decision is shown beside it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.reports.runs import Run, iter_logged

THUMB_PX = 200  # longest side of a thumbnail
MAX_TEXT = 20000  # characters of one response or prompt kept (the rest is cut, and the cut is said)
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}


@dataclass
class TaskItems:
    task: str
    items: list[dict] = field(default_factory=list)
    note: str = ""  # why some or all images are missing


@dataclass
class _Media:
    out: Path
    done: dict[str, list | None] = field(default_factory=dict)  # source path -> [name, thumbnail?] (None: unreadable)

    def add(self, path: Path) -> list | None:
        """[the copy's file name under ``items/full/``, 1 when ``items/thumb/<digest>.jpg`` exists (0: no image)]."""
        key = str(path)
        if key in self.done:
            return self.done[key]
        try:
            st = path.stat()
        except OSError:
            self.done[key] = None
            return None
        digest = hashlib.sha1(f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:20]
        suffix = "".join(ch for ch in path.suffix.lower() if ch.isalnum() or ch == ".")[:6] or ".bin"
        full = self.out / "items" / "full" / f"{digest}{suffix}"
        if not full.is_file():
            full.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, full)
        thumb = self.out / "items" / "thumb" / f"{digest}.jpg"
        if suffix in IMAGE_SUFFIXES and not thumb.is_file():
            _thumbnail(full, thumb)
        got = [full.name, 1 if thumb.is_file() else 0]  # the page: items/full/<name>, items/thumb/<digest>.jpg
        self.done[key] = got
        return got


def _thumbnail(src: Path, dest: Path) -> None:
    """A JPEG thumbnail of an image that decodes whole; none for a file cut short or unreadable (the item shows no
    picture), also in a process where lmms-eval has told PIL to load truncated images (core/images.decode)."""
    from PIL import Image

    from ambi_plugin.core.images import decode

    try:
        img = decode(src, mode=None)
    except Exception:  # noqa: BLE001 - not an image we read whole: the full file is still linked
        return
    img.thumbnail((THUMB_PX, THUMB_PX))
    if img.mode in ("RGBA", "LA", "P"):
        img = img.convert("RGBA")
        flat = Image.new("RGB", img.size, (255, 255, 255))
        flat.paste(img, mask=img.split()[-1])
        img = flat
    dest.parent.mkdir(parents=True, exist_ok=True)
    img.convert("RGB").save(dest, "JPEG", quality=82)


def _cut(text: Any) -> str:
    text = "" if text is None else text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f" [... {len(text) - MAX_TEXT} more characters cut in this report]"


def status(item: dict) -> str:
    if item.get("item_error"):
        return "e"
    if not item.get("parsed", True):
        return "u"
    ok = item["correct"] if "correct" in item else item.get("correct_match")
    return "c" if ok else "w"


def _label(i: Any, rec: dict | None) -> str:
    from ambi_plugin.core.parsing import option_label

    if not isinstance(i, int) or isinstance(i, bool):
        return str(i)
    style = (rec or {}).get("option_style") or ("roman" if (rec or {}).get("answer_format") == "roman" else "letter")
    try:
        label = option_label(i, style if style in ("letter", "letter_lower", "roman") else "letter")
    except ValueError:
        return str(i)
    options = (rec or {}).get("options") or []
    return f"{label} ({options[i]})" if 0 <= i < len(options) else label


def reading(item: dict, rec: dict | None) -> str:
    """What was read from the answer, in words ("" when nothing was)."""
    if item.get("item_error") or not item.get("parsed", True):
        return ""
    parts = []
    if "match_pred" in item:  # VIA-Bench: both protocols
        parts.append(f"Match {_label(item['match_pred'], rec) if item['match_pred'] is not None else 'none'}")
        parts.append(f"Judge {_label(item.get('judge_pred'), rec) if item.get('judge_pred') is not None else 'none'}")
    elif isinstance(item.get("pred"), list):
        parts.append(", ".join(_label(i, rec) for i in item["pred"]) or "none of the options")
    elif "pred" in item and item["pred"] is not None:
        parts.append(_label(item["pred"], rec))
    elif item.get("pred_bool") is not None:
        words = ("true", "false") if item.get("task_type") == "true_false" else ("yes", "no")
        parts.append(words[0] if item["pred_bool"] else words[1])
    elif "pred_boxes" in item:
        parts.append("; ".join("(" + ", ".join(f"{v:g}" for v in b) + ")" for b in item["pred_boxes"]) or "no box")
    elif rec is not None and item.get("response") is not None:  # open / region / description: the task's parser
        from ambi_plugin.core.parsing import parse_answer
        from ambi_plugin.core.scoring import answer_format

        got = parse_answer(item["response"], answer_format(rec))
        if got.ok:
            value = got.value
            parts.append(" | ".join(", ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
                                    for v in value) if isinstance(value, (list, tuple)) else str(value))  # fmt: skip
    if item.get("views") and len(item["views"]) > 1:
        parts.append("views " + ", ".join(f"{k} {'right' if v else 'wrong'}" for k, v in item["views"].items()))
    if item.get("outcome"):
        parts.append(f"outcome {item['outcome']}")
    if item.get("score") is not None and item.get("task_type") == "description":
        parts.append(f"score {item['score']:g}")
    return "; ".join(p for p in parts if p)


def how(item: dict, rec: dict | None) -> str:
    """By which rule or judge the answer was read (and why not, when it was not)."""
    if item.get("item_error"):
        return f"item error: {item['item_error']}"
    if not item.get("parsed", True):
        return "unread: " + (item.get("parse_reason") or "no parser read the answer")
    judge = item.get("judge")
    if "match_pred" in item:
        raw = item.get("judge_raw") or []
        return (f"Match rule ({item.get('match_reason') or 'label read'}); judge: {'; '.join(map(str, raw))[:300]}"
                + (" (judge error)" if item.get("judge_error") else ""))  # fmt: skip
    if isinstance(judge, dict) and judge.get("judgements"):
        raw = "; ".join(map(str, judge.get("raw") or []))
        who = " ".join(str(x) for x in (judge.get("backend"), judge.get("model")) if x)
        return f"judge {who}: {raw[:300]}" + (" (judge error)" if judge.get("error") else "")
    fmt = (rec or {}).get("answer_format") or item.get("task_type", "")
    return f"rule: the {fmt} parser" + (f" ({item['parse_reason']})" if item.get("parse_reason") else "")


def gold(target: Any, rec: dict | None) -> str:
    """The gold answer as logged (lmms-eval's target), with the option's text when the record has options."""
    text = _cut(target)
    options = (rec or {}).get("options") or []
    i = (rec or {}).get("answer_index")
    if isinstance(i, int) and 0 <= i < len(options) and rec.get("task_type") != "perception":
        return f"{text} ({options[i]})" if text else _label(i, rec)
    return text


def _tags(item: dict, rec: dict | None) -> list[str]:
    tags = []
    cat = (rec or {}).get("category") or item.get("category")
    if cat:
        tags.append(str(cat))
    for k, v in sorted((item.get("breakdown") or (rec or {}).get("breakdown") or {}).items()):
        if v not in (None, "") and f"{k}={v}" not in tags:
            tags.append(f"{k}={v}")
    return tags


def _run_info(run: Run) -> dict:
    try:
        return json.loads(run.path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _records(task: str, info: dict) -> tuple[dict[str, dict], Path | None, str]:
    """({record id: record}, the folder image paths are relative to, a note when they cannot be found)."""
    from ambi_plugin.core.schema import read_records

    name = task
    dataset_path = ""
    try:
        from ambi_plugin.reports.rescore import task_spec

        cfg = task_spec(task)[0].config
        name, dataset_path = cfg.get("dataset_name") or task, str(cfg.get("dataset_path") or "")
    except Exception:  # noqa: BLE001 - not a task of ours here: the run's own source folder may still hold it
        pass
    roots = []
    meta = ((info.get("ambi_plugin") or {}).get("data") or {}).get(task) or {}
    if meta.get("records") and Path(str(meta["records"])).is_file():  # ambi score --samples-out: the file it read
        src = Path(str(meta["records"]))
        try:
            return {str(r.get("id")): r for r in read_records(src, validate=False)}, src.parent, ""
        except Exception as exc:  # noqa: BLE001 - a damaged records file: the items still show, without images
            return {}, None, f"no images: {src} could not be read ({type(exc).__name__})"
    if meta.get("source"):
        roots.append(Path(str(meta["source"])))
    if dataset_path.startswith("ambi://"):
        try:
            from ambi_plugin.data.sources import source_root

            roots.append(source_root(dataset_path))
        except Exception as exc:  # noqa: BLE001 - offline, no local copy ...: said in the page
            why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            return {}, None, f"no images: the records of {task} could not be found here ({why})"
    for root in roots:
        src = root / f"{name}.jsonl"
        if src.is_file():
            try:
                return {str(r.get("id")): r for r in read_records(src, validate=False)}, root, ""
            except Exception as exc:  # noqa: BLE001 - a damaged records file: the items still show, without images
                return {}, None, f"no images: {src} could not be read ({type(exc).__name__})"
    return {}, None, f"no images: no records file for {task} found (looked in {', '.join(map(str, roots)) or 'none'})"


def _media_of(rec: dict, root: Path) -> list[Path]:
    from ambi_plugin.runtime.hooks import image_paths

    paths = [*image_paths(rec), *([rec["video"]] if isinstance(rec.get("video"), str) else [])]
    return [p if p.is_absolute() else root / p for p in map(Path, paths)]


def run_labels(runs: Sequence[Run]) -> list[str]:
    """One label per run: its model name, numbered when a model has several runs."""
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.name] = counts.get(r.name, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for r in runs:
        seen[r.name] = seen.get(r.name, 0) + 1
        out.append(r.name if counts[r.name] == 1 else f"{r.name} #{seen[r.name]}")
    return out


def collect_items(
    runs: Sequence[Run], out_dir: Path, *, progress: bool = False
) -> tuple[list[TaskItems], dict[str, list[str]]]:
    """Every logged item of every task, one entry per item id with each run's answer (``None`` where a run did
    not log it), images copied into ``out_dir``; and the pools of texts the items index: ``prompts`` (an item's
    ``p``) and ``hows`` (an answer's ``h``: by which rule or judge it was read), each text once."""
    media = _Media(Path(out_dir))
    prompts: dict[str, int] = {}
    hows: dict[str, int] = {}
    by_task: dict[str, TaskItems] = {}
    index: dict[tuple[str, str], dict] = {}
    records: dict[tuple[str, str], tuple[dict, Path | None, str]] = {}
    tasks = sorted({t for r in runs for t in r.samples})
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(len(r.samples) for r in runs), desc="report items", unit="task", leave=False)
    for k, run in enumerate(runs):
        info = _run_info(run)
        for task in tasks:
            if task not in run.samples:
                continue
            src = ((info.get("ambi_plugin") or {}).get("data") or {}).get(task, {}).get("source")
            if (task, str(src)) not in records:
                records[(task, str(src))] = _records(task, info)
            recs, root, note = records[(task, str(src))]
            entry = by_task.setdefault(task, TaskItems(task))
            entry.note = entry.note or note
            for row, item in iter_logged(run.samples[task]):
                rid = str(item.get("id", row.get("doc_id")))
                rec = recs.get(rid)
                it = index.get((task, rid))
                if it is None:
                    prompt = _cut(row.get("input") or "")
                    imgs = []
                    if rec is not None and root is not None:
                        imgs = [m for m in (media.add(p) for p in _media_of(rec, root)) if m]
                    it = {"id": rid, "p": prompts.setdefault(prompt, len(prompts)), "g": gold(row.get("target", ""), rec),
                          "t": _tags(item, rec), "m": imgs, "r": [None] * len(runs)}  # fmt: skip
                    index[(task, rid)] = it
                    entry.items.append(it)
                response = item.get("response")
                if response is None:
                    from ambi_plugin.core.parsing import response_text

                    response = response_text(row.get("filtered_resps"), first_of_lists=True, missing="")
                it["r"][k] = {"s": status(item), "a": _cut(response), "read": reading(item, rec),
                              "h": hows.setdefault(how(item, rec), len(hows))}  # fmt: skip
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    missing = {t.task for t in by_task.values() for it in t.items if not it["m"]}
    for t in by_task.values():
        if t.task in missing and not t.note:
            t.note = "some items have no image (their record names none, or the file is missing)"
    return [by_task[t] for t in tasks if t in by_task], {"prompts": list(prompts), "hows": list(hows)}
