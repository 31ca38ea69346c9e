"""IllusionVQA (Shahgir et al., 2024; ``../shared/seeds/002_*``): description, records, importer, Hub loader.

Two tasks, each 0-shot and 4-shot (soft-localization also 4-shot + CoT), all multiple choice with
options labelled ``a.``, ``b.`` ... (2 to 8 options in the released data):

* **Comprehension**: 435 questions over 370 images. The release labels 16 fine classes; the paper's 12
  classes (Table 4) keep eleven of them and fold the five rare ones (counting, perspective, angle
  constancy, occlusion, repeating pattern) into "miscellaneous" (:func:`fold_category`). Records carry
  ``breakdown: {category, question_type}`` (Table 1 rows; Table 5 question types).
* **Soft-Localization**: 1000 questions, four answers (left / right / both / neither), 250 each.

Canonical files (next to ``images/``): ``illusionvqa_comprehension.jsonl``,
``illusionvqa_comprehension_4shot.jsonl``, ``illusionvqa_soft_localization.jsonl``,
``illusionvqa_soft_localization_4shot.jsonl`` (its examples also carry the CoT reasoning, used by the
4-shot + CoT task). A 4-shot record lists the four example images, then its own (``image``), and the
examples' text in ``fewshot`` (see :mod:`ambi_plugin.core.fewshot`). Images are resized when given to a
model (``preprocess``: longest side 512, LANCZOS, downscale only; soft-localization also grayscale).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ambi_plugin.core.fewshot import fewshot_example
from ambi_plugin.core.schema import read_jsonl
from ambi_plugin.core.schema import write_dataset as _write_dataset

BENCHMARK = "illusionvqa"
HUB_COMPREHENSION = "csebuetnlp/illusionVQA-Comprehension"
HUB_SOFT_LOCALIZATION = "csebuetnlp/illusionVQA-Soft-Localization"
CONVERTER_VERSION = "4"  # of the Hub loader (materialize_from_hub): a new version converts cached copies again

# Table 1 / Table 8 rows, in the paper's order, with the paper's labels.
CATEGORIES: tuple[str, ...] = (
    "impossible object",
    "real-scene",
    "size",
    "hidden",
    "deceptive design",
    "angle illusion",
    "color",
    "edited-scene",
    "upside-down",
    "positive-negative space",
    "circle-spiral",
    "miscellaneous",
)
TITLES: dict[str, str] = {
    "impossible object": "Impossible Object",
    "real-scene": "Real-Scene",
    "size": "Size",
    "hidden": "Hidden",
    "deceptive design": "Deceptive Design",
    "angle illusion": "Angle Illusion",
    "color": "Color",
    "edited-scene": "Edited-Scene",
    "upside-down": "Upside-Down",
    "positive-negative space": "Pos.-Neg. Space",
    "circle-spiral": "Circle-Spiral",
    "miscellaneous": "Miscellaneous",
}
# Table 4's counts (test split), checked against the released data in the tests.
PAPER_COUNTS: dict[str, int] = dict(zip(CATEGORIES, (134, 64, 46, 45, 37, 26, 23, 21, 7, 7, 6, 19)))

# Table 5's major question types; everything else is image specific.
QUESTION_TYPES: dict[str, str] = {
    "what is unusual about this image": "what_is_unusual",
    "describe this image": "describe_this_image",
    "what is hidden in this image": "what_is_hidden",
}
IMAGE_SPECIFIC = "image_specific"
QUESTION_TYPE_TITLES = {
    "what_is_unusual": '"What is unusual about this image?"',
    "describe_this_image": '"Describe this image."',
    "what_is_hidden": '"What is hidden in this image?"',
    IMAGE_SPECIFIC: "Image-specific Questions",
}
PAPER_QUESTION_TYPE_COUNTS = {
    "what_is_unusual": 114,
    "describe_this_image": 80,
    "what_is_hidden": 22,
    IMAGE_SPECIFIC: 219,
}

SOFT_LOCALIZATION_OPTIONS = ("The left object", "The right object", "Both objects", "Neither object")
SOFT_LOCALIZATION_CATEGORY = "soft_localization"

# Appendix E, verbatim. "{few-shot examples}" is where the examples go.
INSTRUCTION_0SHOT = (
    "You'll be given an image, an instruction, and some options. You have to select the correct one. Do not "
    "explain your reasoning. Answer with only the letter that corresponds to the correct option. Do not repeat "
    "the entire answer."
)
INSTRUCTION_4SHOT = INSTRUCTION_0SHOT + " Here are a few examples: {few-shot examples} Now you try it."
INSTRUCTION_4SHOT_COT = (
    "You'll be given an image, an instruction, and some choices. You have to select the correct one. Reason "
    "about the choices in the context of the question and the image. End your answer with 'Answer': "
    "{letter_of_correct_choice} without the curly brackets. Here are a few examples: {few-shot examples} "
    "Now you try it."
)
COT_REASONING_TEMPLATE = (
    "The left object is a {description} which is {possible/impossible}. "
    "The right object is a {description} which is {possible/impossible}."
)
COT_DEFAULT_DESCRIPTION = "geometric figure"  # our choice: the release does not describe the example objects

PREPROCESS_COMPREHENSION = {"max_side": 512}
PREPROCESS_SOFT_LOCALIZATION = {"max_side": 512, "grayscale": True}

FILES = {
    ("comprehension", 0): "illusionvqa_comprehension",
    ("comprehension", 4): "illusionvqa_comprehension_4shot",
    ("soft_localization", 0): "illusionvqa_soft_localization",
    ("soft_localization", 4): "illusionvqa_soft_localization_4shot",
}
TASKS = ("comprehension", "soft_localization")


def _words(value: Any) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", str(value).lower().replace("\u2019", "'")).split())


_FOLD = {_words(c): c for c in CATEGORIES}


def fold_category(fine: Any) -> str:
    """A released (fine) class -> one of the paper's 12 classes; rare classes -> "miscellaneous"."""
    return _FOLD.get(_words(fine), "miscellaneous")


def question_type(question: Any) -> str:
    """Table 5's type of a question ("what's" counts as "what is"); else ``image_specific``."""
    norm = _words(str(question).lower().replace("what's", "what is").replace("what\u2019s", "what is"))
    return QUESTION_TYPES.get(norm, IMAGE_SPECIFIC)


def _gold_index(options: Sequence[str], answer: Any, *, where: str) -> int:
    hits = [i for i, o in enumerate(options) if str(o) == str(answer)]
    if len(hits) != 1:
        hits = [i for i, o in enumerate(options) if _words(o) == _words(answer)]
    if len(hits) != 1:
        state = "matches no option" if not hits else "matches several options"
        raise ValueError(f"{where}: the answer {answer!r} {state} ({list(options)})")
    return hits[0]


def _image_dir(task: str, fewshot: bool = False) -> str:
    return f"images/{task}" + ("_fewshot" if fewshot else "")


def record_from_row(row: Mapping[str, Any], *, task: str, image: str, where: str, source: str = "") -> dict:
    """One released question (``id, image, category, question, options, answer``) -> a canonical record."""
    if task not in TASKS:
        raise ValueError(f"Expected argument `task` to be one of {TASKS} but got {task!r}")
    rid = str(row.get("id"))
    options = [str(o) for o in row.get("options") or []]
    if len(options) < 2:
        raise ValueError(f"{where}: record id={rid!r} needs at least two options, got {options}")
    rec: dict[str, Any] = {
        "id": rid,
        "benchmark": BENCHMARK,
        "task_type": "choice",
        "image": image,
        "image_name": str(row.get("image") if isinstance(row.get("image"), str) else Path(image).name),
        "question": str(row.get("question") or "").strip(),
        "options": options,
        "option_style": "letter_lower",
        "answer_format": "letter",
        "answer_index": _gold_index(options, row.get("answer"), where=f"{where}: record id={rid!r}"),
        "source": source,
    }
    if task == "comprehension":
        fine = row.get("category") or "miscellaneous"
        rec["category"] = fold_category(fine)
        rec["fine_category"] = str(fine)
        rec["breakdown"] = {"category": rec["category"], "question_type": question_type(rec["question"])}
        rec["preprocess"] = dict(PREPROCESS_COMPREHENSION)
    else:
        rec["category"] = SOFT_LOCALIZATION_CATEGORY
        rec["preprocess"] = dict(PREPROCESS_SOFT_LOCALIZATION)
    return rec


def cot_reasoning(rec: dict, *, left: str | None = None, right: str | None = None) -> str:
    """Appendix E's CoT template filled in for a soft-localization example (which side is impossible
    follows from its answer; object descriptions default to :data:`COT_DEFAULT_DESCRIPTION`)."""
    answer = rec["options"][rec["answer_index"]]
    left_bad = _words(answer) in ("the left object", "both objects")
    right_bad = _words(answer) in ("the right object", "both objects")
    return (
        COT_REASONING_TEMPLATE.replace("{description}", left or COT_DEFAULT_DESCRIPTION, 1)
        .replace("{possible/impossible}", "impossible" if left_bad else "possible", 1)
        .replace("{description}", right or COT_DEFAULT_DESCRIPTION, 1)
        .replace("{possible/impossible}", "impossible" if right_bad else "possible", 1)
    )


def check_fewshot(task: str, examples: Sequence[dict]) -> None:
    """The paper's selection: comprehension, one example from each of four categories; soft-localization,
    one example per answer. Raises naming what is wrong."""
    if len(examples) != 4:
        raise ValueError(f"IllusionVQA {task}: 4-shot needs exactly 4 examples, got {len(examples)}")
    if task == "soft_localization":
        answers = sorted(_words(e["options"][e["answer_index"]]) for e in examples)
        want = sorted(_words(o) for o in SOFT_LOCALIZATION_OPTIONS)
        if answers != want:
            raise ValueError(
                f"IllusionVQA soft_localization: the 4 examples must cover each answer once, got {answers}"
            )
    else:
        cats = [e.get("category") for e in examples]
        if all(cats) and len(set(cats)) != 4:
            raise ValueError(f"IllusionVQA comprehension: the 4 examples must come from 4 categories, got {cats}")


def fewshot_records(task: str, test: Sequence[dict], examples: Sequence[dict]) -> list[dict]:
    """4-shot records: each test record with the examples' images first and their text in ``fewshot``."""
    check_fewshot(task, examples)
    shots = []
    for ex in examples:
        reasoning = ex.get("reasoning") or (cot_reasoning(ex) if task == "soft_localization" else None)
        shots.append(fewshot_example(ex, reasoning=reasoning))
    images = [ex["image"] for ex in examples]
    out = []
    for rec in test:
        r = dict(rec)
        r["image"] = [*images, rec["image"]]
        r["fewshot"] = shots
        r["fewshot_ids"] = [str(ex["id"]) for ex in examples]
        out.append(r)
    return out


def harness_tasks(task: str) -> tuple[str, ...]:
    """The lmms-eval tasks built from one IllusionVQA task's test rows (0-shot first)."""
    names = [f"ambi_{FILES[(task, 0)]}", f"ambi_{FILES[(task, 4)]}"]
    if task == "soft_localization":
        names.append(f"ambi_{FILES[(task, 4)]}_cot")
    return tuple(names)


def build_records(
    task: str,
    test_rows: Iterable[Mapping[str, Any]],
    fewshot_rows: Iterable[Mapping[str, Any]] | None,
    *,
    source: str,
    report: Any = None,
    split: str = "test",
) -> dict[str, list[dict]]:
    """Released rows -> {file name: records} for one task (0-shot, plus 4-shot when examples are given).

    Rows need ``image`` as a file name (images live in ``images/<task>/`` and ``images/<task>_fewshot/``).
    With a ``report`` (:class:`ambi_plugin.benchmarks.release.LoadReport`) a bad row, of the ``split`` read as
    ``test_rows`` or of the few-shot (``train``) rows, is skipped and counted there (ids of other splits than
    ``test`` read ``<split>:<id>``); when fewer than four usable examples remain, the 4-shot records are left out
    and the report says why. Without a report, a bad row raises.
    """
    first, *rest = harness_tasks(task)
    # a row of a split no task reads (Comprehension's 'select') belongs to no task
    test_tasks: tuple[str | None, ...] = (first, *rest) if split == "test" else (None,)
    test = []
    for r in test_rows:
        rid = r.get("id") if split == "test" else f"{split}:{r.get('id')}"
        try:
            test.append(
                record_from_row(
                    r, task=task, image=f"{_image_dir(task)}/{r['image']}", where=f"{source} {split}", source=source
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            if report is None:
                raise
            report.skip(rid, _reason(str(exc)), task=test_tasks[0], also=tuple(t for t in test_tasks[1:] if t))
            continue
        if report is not None:
            report.load()
    out = {FILES[(task, 0)]: test}
    if fewshot_rows is None:
        if report is not None and split == "test":
            report.lacks(FILES[(task, 4)], f"the {task} release has no 'train' split (the four few-shot examples)")
        return out
    shots = []
    for k, r in enumerate(fewshot_rows):
        rr = {**r, "id": r.get("id", f"train{k}")}
        try:
            rec = record_from_row(
                rr, task=task, image=f"{_image_dir(task, True)}/{r['image']}", where=f"{source} train", source=source
            )
        except (ValueError, KeyError, TypeError) as exc:
            if report is None:
                raise
            report.skip(f"train:{rr['id']}", _reason(str(exc)), task=rest[0], also=tuple(rest[1:]))
            continue
        if report is not None:
            report.load()  # a few-shot example
        if r.get("reasoning"):
            rec["reasoning"] = str(r["reasoning"])
        shots.append(rec)
    try:
        out[FILES[(task, 4)]] = fewshot_records(task, test, shots)
    except ValueError as exc:
        if report is None:
            raise
        report.lacks(FILES[(task, 4)], f"the few-shot ('train') split is not usable: {exc}")
    return out


def _reason(text: str) -> str:
    low = text.lower()
    if "at least two options" in low:
        return f"too few options: {text}"
    if "matches no option" in low or "answer" in low and "option" in low:
        return f"answer not among the options: {text}"
    return text


def write_dataset(out: Path, records: Mapping[str, list[dict]]) -> dict[str, int]:
    """Validate and write each record list to ``out/<name>.jsonl``; returns the counts."""
    return _write_dataset(out, dict(records), skip_empty=False)


def records_from_release(path: Path, *, task: str | None = None) -> list[dict]:
    """Canonical records from a released-question JSONL (``../shared/data/illusionvqa/*.jsonl`` layout), without
    images (paths point at ``images/<task>/<name>``). Scoring saved answers needs no image."""
    rows = read_jsonl(path)
    if task is None:
        task = (
            "soft_localization" if rows and rows[0].get("category") == SOFT_LOCALIZATION_CATEGORY else "comprehension"
        )
    return build_records(task, rows, None, source=Path(path).name)[FILES[(task, 0)]]


def import_jsonl(
    jsonl: Path,
    images: Path,
    out: Path,
    *,
    task: str,
    fewshot_jsonl: Path | None = None,
    fewshot_images: Path | None = None,
) -> dict[str, int]:
    """Released-question JSONL + its image folder (and optionally the 4 few-shot examples) -> a local copy."""
    jsonl, images, out = Path(jsonl), Path(images), Path(out)
    test_rows = read_jsonl(jsonl)
    shot_rows = read_jsonl(fewshot_jsonl) if fewshot_jsonl else None
    records = build_records(task, test_rows, shot_rows, source=jsonl.name)
    for rows, folder, sub in (
        (test_rows, images, _image_dir(task)),
        (shot_rows or [], fewshot_images, _image_dir(task, True)),
    ):
        for line, row in enumerate(rows, start=1):
            src = Path(folder or images) / row["image"]
            if not src.is_file():
                raise FileNotFoundError(
                    f"{jsonl if rows is test_rows else fewshot_jsonl}:{line}: image {row['image']!r} is not in {src.parent}"
                )
            dst = out / sub / row["image"]
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    return write_dataset(out, records)


# ----------------------------------------------------------------------------- Hub loader


def _hub_rows(ds, *, split: str, image_dir: Path, report: Any = None, tasks: tuple[str, ...] = ()) -> list[dict]:
    """A Hub split's rows with their images saved to ``image_dir``; a row without an image is skipped and counted
    (``tasks``: the tasks the row belongs to; none for a split no task reads)."""
    from ambi_plugin.benchmarks.hub import save_image

    rows = []
    contents: dict[str, list[str]] = {}  # id -> the contents of the rows read with it
    names: set[str] = set()
    for k, row in enumerate(ds):
        img = row.get("image")
        name = row.get("image_name") or row.get("file_name")
        if not name and isinstance(img, dict) and img.get("path"):
            name = Path(str(img["path"])).name
        rid = row.get("id", k if split == "test" else f"{split}{k}")
        if report is not None:
            report.read()
        shown = rid if split == "test" else f"{split}:{rid}"
        task = tasks[0] if tasks else None
        if report is not None:  # the same id again: an identical row is kept once, a different one gets a new id
            content = _content(row)
            earlier = contents.setdefault(str(rid), [])
            if content in earlier:
                report.merge(shown, f"duplicate row: identical to the earlier row with id {rid}", task=task)
                continue
            earlier.append(content)
            if len(earlier) > 1:
                rid = f"{rid}#{len(earlier)}"
                report.flag(FLAG_SAME_ID, rid if split == "test" else f"{split}:{rid}")
                name = None
        name = str(name or f"{split}_{str(rid).replace('#', '_')}.png")
        if name in names and report is not None:
            name = f"{Path(name).stem}_{k}{Path(name).suffix}"  # another image published under the same name
        if img is None:
            if report is None:
                raise ValueError(f"{split} row {k} (id={rid!r}): no image")
            shown = rid if split == "test" else f"{split}:{rid}"
            report.skip(shown, "missing image: the row has no image", task=task, also=tasks[1:])
            continue
        names.add(name)
        save_image(img, image_dir / name)
        rows.append({**{key: v for key, v in row.items() if key != "image"}, "id": rid, "image": name})
    return rows


FLAG_SAME_ID = "same id as an earlier row, different content: kept under a distinct id (<id>#n)"


def _content(row: Mapping[str, Any]) -> str:
    """A row's content, its image's pixels included, as one comparable string."""
    import hashlib

    img = row.get("image")
    if isinstance(img, dict):
        blob = img.get("bytes") or (Path(img["path"]).read_bytes() if img.get("path") else b"")
    elif img is not None and hasattr(img, "tobytes"):
        blob = f"{img.mode}{img.size}".encode() + img.tobytes()
    else:
        blob = b""
    rest = {k: v for k, v in row.items() if k != "image"}
    return json.dumps(rest, sort_keys=True, default=str) + hashlib.sha256(blob).hexdigest()


def _convert_task(task: str, dsets, tmp: Path, source: str, report: Any = None) -> dict[str, int]:
    from tqdm import tqdm

    if "test" not in dsets:
        raise ValueError(f"{source}: no 'test' split (splits: {', '.join(dsets)})")
    tasks = harness_tasks(task)
    test = _hub_rows(
        tqdm(dsets["test"], desc=f"IllusionVQA {task}: test", unit="row"),
        split="test",
        image_dir=tmp / _image_dir(task),
        report=report,
        tasks=tasks,
    )
    shots = None
    if "train" in dsets:
        shots = _hub_rows(
            dsets["train"], split="train", image_dir=tmp / _image_dir(task, True), report=report, tasks=tasks[1:]
        )
    records = build_records(task, test, shots, source=source, report=report)
    extra_splits = sorted(set(dsets) - {"test", "train"})
    for split in extra_splits:  # e.g. Comprehension's 'select' split (11 questions)
        folder = f"{_image_dir(task)}_{split}"
        rows = _hub_rows(dsets[split], split=split, image_dir=tmp / folder, report=report)
        extra = build_records(task, rows, None, source=source, report=report, split=split)
        recs = extra[FILES[(task, 0)]]
        for rec in recs:
            rec["image"] = rec["image"].replace(_image_dir(task) + "/", f"{folder}/", 1)
        records[f"{FILES[(task, 0)]}_{split}"] = recs
        if report is not None:
            report.note(
                f"{task}: split '{split}' ({len(recs)} questions) written as {FILES[(task, 0)]}_{split}.jsonl; "
                "no task reads it (the paper's tables use 'test')"
            )
    counts = write_dataset(tmp, records)
    if report is not None:
        for name, n in counts.items():
            if not name.endswith(tuple(f"_{s}" for s in extra_splits)):
                report.wrote(f"ambi_{name}", n)
                if n == 0:
                    report.lacks(name, f"every {task} test row was skipped as bad (see the skipped rows)")
    return counts


def _resolve_source(src: str) -> tuple[str, str]:
    """(what to load, its label): a local folder as it is, a Hub repo id as its snapshot in the HF cache."""
    from ambi_plugin.benchmarks.release import hub_snapshot

    if Path(src).expanduser().exists() or "/" not in src or src.startswith((".", "/", "~")):
        return src, src
    return str(hub_snapshot(src, benchmark=BENCHMARK)), f"hf://datasets/{src}"


def materialize_from_hub(comprehension: str | None = None, soft_localization: str | None = None) -> Path:
    """Both Hub releases (``$AMBI_ILLUSIONVQA_COMPREHENSION_HUB`` / ``$AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB``,
    defaults the csebuetnlp datasets; local folders laid out like the Hub work too) as canonical records in
    the cache; the ``train`` split gives the 4-shot examples, further splits (Comprehension's ``select``) are kept
    beside them. Bad rows are skipped and counted in the load report. Two rows of a split with the same ``id``: an
    identical one (its image included) is kept once and counted as merged; a different one is kept under the id
    ``<id>#2`` and flagged. Every row read is loaded (an item, a few-shot example), skipped or merged. Returns the
    folder."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key
    from ambi_plugin.benchmarks.release import LoadReport, strict_mode

    sources = {
        "comprehension": comprehension or os.environ.get("AMBI_ILLUSIONVQA_COMPREHENSION_HUB") or HUB_COMPREHENSION,
        "soft_localization": soft_localization
        or os.environ.get("AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB")
        or HUB_SOFT_LOCALIZATION,
    }
    resolved = {task: _resolve_source(str(src)) for task, src in sources.items()}
    paths = [path for path, _ in resolved.values()]
    local = [Path(p).expanduser().resolve() for p in paths if Path(p).expanduser().exists()]
    out = benchmark_cache(BENCHMARK, source_key(CONVERTER_VERSION, *paths, read=local))
    if (out / ".complete").is_file():
        return out
    from ambi_plugin.benchmarks.hub import load_hub_dataset

    loaded = {task: (load_hub_dataset(path, benchmark=BENCHMARK), label) for task, (path, label) in resolved.items()}

    def build(tmp: Path) -> None:
        report = LoadReport(BENCHMARK, " + ".join(label for _, label in loaded.values()), strict=strict_mode())
        counts = {}
        for task, (dsets, label) in loaded.items():
            counts.update(_convert_task(task, dsets, tmp, label, report))
        (tmp / "manifest.json").write_text(
            json.dumps({"benchmark": BENCHMARK, "sources": sources, "counts": counts}) + "\n"
        )
        report.emit(tmp)

    return materialize(out, build)


def materialize_local(path: Path) -> Path:
    """A configured local copy (``$AMBI_ILLUSIONVQA_DIR``): a canonical folder is used as it is; a folder holding
    the two Hub repos as downloaded (subfolders named like ``illusionVQA-Comprehension`` and
    ``illusionVQA-Soft-Localization``, e.g. from ``hf download REPO --repo-type dataset --local-dir DIR``) is converted once."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"the local copy of illusionvqa is configured as {str(path)!r}, which is not a folder")
    if any(path.glob("illusionvqa_*.jsonl")):
        return path
    subs = [p for p in sorted(path.iterdir()) if p.is_dir()]
    comp = next((p for p in subs if "comprehension" in p.name.lower()), None)
    soft = next((p for p in subs if "soft" in p.name.lower()), None)
    if comp is None or soft is None:
        raise FileNotFoundError(
            f"{path}: neither canonical records (illusionvqa_*.jsonl) nor the two downloaded Hub repos "
            "(subfolders named like illusionVQA-Comprehension and illusionVQA-Soft-Localization)"
        )
    return materialize_from_hub(str(comp), str(soft))
