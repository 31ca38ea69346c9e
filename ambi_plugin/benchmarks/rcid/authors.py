"""RCID data built with the authors' construction code (GitHub ``mao1207/RCID``, ``dataset_construction/``).

* **contrast**: ``questions.json``, a list of ``{"image_id": "12.png", "question": "<question>\\n\\nHere are the
  options you can choose from:\\nA. left is darker\\nB. They are exact same\\nC. right is darker",
  "correct_answer": "B"}``: the options are shuffled per image and the correct answer is the one saying the two
  areas are the same (their pixels are: the pixel answer).
* **stripe**: ``train_results.json``, a list of ``{"image_name": "image_3_vertical.png", "question": ...,
  "options": ["I. Top side is darker", "II. ...", "III. They are about the same"], "result": "III",
  "num_bars": 12}``; the stripe direction is only in the file name (horizontal: Left/Right sides, vertical:
  Top/Bottom, diagonal_1 / diagonal_2: the diagonal corners).

Every item keeps its own question and option order, with its own labels (A/B/C for contrast, I/II/III for
stripe); the parser reads a label or the option's text. Images are found by file name below the folder. The
construction code writes no human answers: ``$AMBI_RCID_HUMAN`` (``ambi rcid-copy --human``) names an optional
file of them, a JSON object ``{image name: answer}`` or JSONL lines ``{"image": name, "human": answer}``, an answer
being a label ("A", "II"), an option's text, or a list of them (people see either side darker). An item without
one is **pixel-only**: asked in the pixel family alone (its human / neutral / few-shot tasks have no row for it).

A row is one entry of either file. Bad rows (reported with their id and reason, skipped, counted): no image, an
image not found, options that cannot be read, an answer among no option, a human answer among no option. An entry
repeated identically is merged (counted); another entry for the same image is a bad row ("duplicate id").
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.rows import BadRow, check_row, iter_array, short_id
from ambi_plugin.core.jsonl import numbered
from ambi_plugin.inputfiles import named_input

from . import prompts as P
from .records import RcidItem, write_copy

CONTRAST_FILE = "questions.json"
STRIPE_FILE = "train_results.json"
HUMAN_VAR = "AMBI_RCID_HUMAN"
SOURCE = "RCID authors' construction code (mao1207/RCID, dataset_construction/)"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")

_OPTIONS_AT = re.compile(r"here are (?:the|some) options you can choose(?: from)?\s*:", re.IGNORECASE)
_LABELLED = re.compile(r"^\s*\(?([A-Z]|I{1,3}|IV)[.)]\s*(.+?)\s*$")
_ROMAN = {"I": 0, "II": 1, "III": 2, "IV": 3}


def is_authors_copy(folder: Path) -> bool:
    return any(Path(folder).rglob(CONTRAST_FILE)) or any(Path(folder).rglob(STRIPE_FILE))


def _index(label: str, style: str) -> int | None:
    label = label.strip().strip("().").upper()
    if style == "roman":
        return _ROMAN.get(label)
    return ord(label) - ord("A") if len(label) == 1 and label.isalpha() else None


def _labelled(lines: list[str], style: str) -> list[str]:
    """Options written "A. text" / "I. text", in their order; raises ValueError when a label is out of order."""
    out = []
    for line in lines:
        m = _LABELLED.match(line)
        if not m or _index(m.group(1), style) != len(out):
            raise ValueError(f"bad options: cannot read {line!r} as option {len(out) + 1}")
        out.append(m.group(2))
    if len(out) < 2:
        raise ValueError(f"bad options: {len(out)} option(s) read")
    return out


def _question(text: str) -> str:
    """The authors' question as our templates take it: no options, lower-case start (a prefix may come first)."""
    q = " ".join(str(text).split())
    return q[:1].lower() + q[1:] if q[1:2].islower() else q


def _answers(value: Any, options: list[str], style: str) -> list[int]:
    """Option indices of an answer given as labels or option texts (one, or a list)."""
    parts = value if isinstance(value, list) else [value]
    out = []
    for part in parts:
        text = str(part).strip()
        idx = _index(text, style)
        if idx is None:
            norm = [" ".join(o.lower().split()) for o in options]
            idx = norm.index(" ".join(text.lower().split())) if " ".join(text.lower().split()) in norm else None
        if idx is None or not 0 <= idx < len(options):
            raise ValueError(f"{value!r} is none of the options {options}")
        out.append(idx)
    return sorted(set(out))


def read_human(path: str | Path | None) -> dict[str, Any]:
    """``{image name: answer}`` from a human-answer file (JSON object or JSONL lines); {} when none is given."""
    if not path:
        return {}
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"{HUMAN_VAR}={str(path)!r}: no such file (a JSON object or JSONL of human answers)")
    with named_input(path, "human-answer file"):
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
    if isinstance(data, dict):
        return {Path(str(k)).name: v for k, v in data.items()}
    out = {}
    for line in numbered(text.split("\n"), str(path), what="human-answer file"):
        row = line.value
        if not (isinstance(row, dict) and "image" in row and "human" in row):
            raise ValueError(
                f"{line.where}: expected a JSON line {{'image': NAME, 'human': ANSWER}} (or one JSON object)"
            )
        out[Path(str(row["image"])).name] = row["human"]
    return out


def _entries(path: Path) -> list:
    """(index, entry or None, why it cannot be read) for each entry: one nested too deeply is a bad row, the others
    are read (:mod:`ambi_plugin.benchmarks.rows`)."""
    try:
        with named_input(path, "entries file"):
            return list(iter_array(path.read_text(encoding="utf-8"), check_text=False))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError as exc:
        raise ValueError(
            f"{path}: {exc}; expected a list of entries (as the authors' construction code writes it)"
        ) from None


def convert_authors(folder: Path, out: Path, report, *, human_file: str | Path | None = None) -> dict:
    """The authors' ``questions.json`` / ``train_results.json`` below ``folder`` -> a canonical copy in ``out``."""
    folder = Path(folder)
    images = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith("._"):
            images.setdefault(p.name, p)
    human = read_human(human_file)
    items: list[RcidItem] = []
    skipped: list[dict] = []
    used_humans: set[str] = set()
    for ttype, name, key in (("contrast", CONTRAST_FILE, "image_id"), ("stripe", STRIPE_FILE, "image_name")):
        for path in sorted(folder.rglob(name)):
            first: dict[str, str] = {}
            for n, entry, unreadable in _entries(path):
                report.read()
                image = short_id(entry.get(key), "") if isinstance(entry, dict) else ""
                rid = f"{ttype}_{Path(image).stem}" if image else f"{ttype}_entry{n}"
                try:
                    if unreadable is not None:
                        raise BadRow(unreadable)
                    check_row(entry)  # a text field over AMBI_MAX_TEXT_CHARS
                except BadRow as exc:
                    report.skip(rid, str(exc), task=P.task_name(ttype, "pixel"))
                    skipped.append({"id": rid, "reason": str(exc)})
                    continue
                content = json.dumps(entry, sort_keys=True, default=str)
                if image in first:
                    if first[image] == content:
                        report.merge(rid, f"duplicate row: entry {n} of {name} repeats an earlier entry")
                    else:
                        report.skip(rid, f"duplicate id: entry {n} of {name} is a second, different entry for {image}")
                    continue
                first[image] = content
                try:
                    item = _item(ttype, entry, image, rid, images, human)
                except ValueError as exc:
                    report.skip(rid, str(exc), task=P.task_name(ttype, "pixel"))
                    skipped.append({"id": rid, "reason": str(exc)})
                    continue
                rel = f"images/{ttype}/{image}"
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(images[image], out / rel)
                item.image = rel
                used_humans.add(image)
                items.append(item)
                report.load()
    if not items and not report.skipped:
        raise FileNotFoundError(f"{folder}: neither {CONTRAST_FILE} nor {STRIPE_FILE} holds an entry")
    unused = sorted(set(human) - used_humans)
    if unused:
        report.note(f"{len(unused)} human answers name no item of the copy: {', '.join(unused[:10])}")
    pixel_only = sum(1 for it in items if it.pixel_only)
    if pixel_only:
        report.note(
            f"{pixel_only} items have no human answer ({HUMAN_VAR} names none for them): pixel-only, asked in the "
            "pixel family alone"
        )
    manifest = write_copy(out, items, skipped=skipped, source=SOURCE)
    for nm, k in manifest["counts"].items():
        report.wrote(f"ambi_{nm}", k)
        if not k:
            report.lacks(nm, _why_empty(nm, manifest))
    return manifest


def _why_empty(name: str, manifest: dict) -> str:
    ttype = name.split("_")[1]
    if not (manifest.get("images") or {}).get(ttype):
        return (
            "the authors' construction code writes no filter file with acceptable color lists"
            if ttype == "filter"
            else f"the copy holds no usable {ttype} entry"
        )
    if not name.endswith(("_pixel", "_fewshot_ni")):
        return "no item of this type has a human answer (pixel-only items: give a human-answer file, AMBI_RCID_HUMAN)"
    return "too few items of this type for three few-shot examples besides the query"


def _item(ttype: str, entry: Any, image: str, rid: str, images: dict, human: dict) -> RcidItem:
    if not isinstance(entry, dict):
        raise ValueError("bad entry: not a JSON object")
    if not image or Path(image).name != image:
        raise ValueError(f"no image: the entry names {image!r}")
    if image not in images:
        raise ValueError(f"missing image: {image} is not below the copy's folder")
    extra: dict[str, Any] = {"image_name": image}
    breakdown: dict[str, str] = {}
    if ttype == "contrast":
        text = str(entry.get("question") or "")
        m = _OPTIONS_AT.search(text)
        if not m:
            raise ValueError("bad options: the question holds no 'Here are the options you can choose from:' block")
        question = text[: m.start()]
        style = "letter"
        options = _labelled([ln for ln in text[m.end() :].splitlines() if ln.strip()], style)
        pixel = _answers(entry.get("correct_answer"), options, style)
    else:
        question = str(entry.get("question") or "")
        style = "roman"
        options = _labelled([str(o) for o in entry.get("options") or []], style)
        pixel = _answers(entry.get("result"), options, style)
        from .hub import stripe_direction

        direction = stripe_direction(image)
        if direction:
            breakdown["direction"] = "diagonal" if direction.startswith("diagonal") else direction
        bars = entry.get("num_bars")
        if isinstance(bars, int):
            breakdown["stripe_count"] = "few" if bars < P.FEW_STRIPES else "many"
            extra["n_stripes"] = bars
    if not question.strip():
        raise ValueError("empty question")
    humans: list[int] = []
    if image in human:
        try:
            humans = _answers(human[image], options, style)
        except ValueError as exc:
            raise ValueError(f"bad human answer: {exc}") from None
    return RcidItem(
        id=rid,
        illusion_type=ttype,
        image="",
        is_illusion=True,  # the construction makes the two areas the same in pixels
        question=_question(question),
        pixel=pixel,
        human=humans,
        options=options,
        option_style=style,
        breakdown=breakdown,
        source=SOURCE,
        extra=extra,
    )


def materialize_authors(folder: str | Path, *, human_file: str | Path | None = None) -> Path:
    """Data built with the authors' code (``questions.json`` / ``train_results.json`` + images) converted once."""
    import os

    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key
    from ambi_plugin.benchmarks.release import LoadReport
    from ambi_plugin.config import strict_mode

    folder = Path(folder).expanduser().resolve()
    human_file = human_file or os.environ.get(HUMAN_VAR) or None
    read = [folder] + ([Path(human_file).expanduser().resolve()] if human_file else [])
    out = benchmark_cache("rcid", "authors-" + source_key("1", str(folder), str(human_file or ""), read=read))
    if (out / ".complete").is_file():
        return out

    def build(tmp: Path) -> None:
        report = LoadReport("rcid", str(folder), strict=strict_mode())
        convert_authors(folder, tmp, report, human_file=human_file)
        report.emit(tmp)

    return materialize(out, build)


__all__ = ["CONTRAST_FILE", "HUMAN_VAR", "STRIPE_FILE", "convert_authors", "is_authors_copy", "materialize_authors"]
