"""IllusionVQA records: category folding, a release row -> a canonical record, few-shot records, the importer.

Part of :mod:`ambi_plugin.benchmarks.illusionvqa`; import from there."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.illusionvqa.description import (
    BENCHMARK,
    CATEGORIES,
    COT_DEFAULT_DESCRIPTION,
    COT_REASONING_TEMPLATE,
    FILES,
    IMAGE_SPECIFIC,
    PREPROCESS_COMPREHENSION,
    PREPROCESS_SOFT_LOCALIZATION,
    QUESTION_TYPES,
    SOFT_LOCALIZATION_CATEGORY,
    SOFT_LOCALIZATION_OPTIONS,
    TASKS,
)
from ambi_plugin.core.fewshot import fewshot_example
from ambi_plugin.core.jsonl import read_jsonl
from ambi_plugin.core.schema import write_dataset as _write_dataset


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
    rows = read_jsonl(path, objects=True)
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
    test_rows = read_jsonl(jsonl, objects=True)
    shot_rows = read_jsonl(fewshot_jsonl, objects=True) if fewshot_jsonl else None
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
