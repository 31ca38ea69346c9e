"""IllusionBench releases, the pieces of one row: repo ids, option counts, categories, the image index of a folder,
one question -> a record, and writing the records.

Part of :mod:`ambi_plugin.benchmarks.illusionbench.release` (its docstring describes the layouts); import from there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks.release import LoadReport, zip_members

AUTHORS_REPO = "MingZhangSJTU/IllusionBench"
LMMS_REPO = IB.HUB_ID
ANNOTATIONS = "Image_properties.json"
IMAGES_ZIP = "IllusionDataset.zip"
CONVERTER_VERSION = "3"
# The letter codes of the published copies (lmms-eval's converter and its pull request: Classic Cognitive (A),
# Real Scene (B), Trap (C)).
LETTER_CATEGORIES = {"A": "classic", "B": "real_scene", "C": "trap"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif")

NOTE_LETTERS = (
    "categories are published as letters A (Classic Cognitive), B (Real Scene), C (Trap): Ishihara and no-illusion "
    "images are not told apart, so acc_ishihara / acc_no_illusion (and their fp_ratio / score) are NaN"
)

_MARKER = re.compile(r"(?:(?<=\s)|^)\(?(viii|vii|vi|iv|v|i{1,3})[.)]\s+", re.IGNORECASE)
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii"]


def option_count(text: str) -> int:
    """The length of the longest run of option markers i., ii., iii., ... in order (0 when none)."""
    marks = [m.group(1).lower() for m in _MARKER.finditer(str(text))]
    best = 0
    for start, mark in enumerate(marks):
        if mark != "i":
            continue
        k = 1
        for later in marks[start + 1 :]:
            if k < len(_ROMAN) and later == _ROMAN[k]:
                k += 1
        best = max(best, k)
    return best


NOTE_UNKNOWN = (
    "rows whose category or difficulty the release does not give (missing, 'Unknown', level 0) are kept with the "
    "breakdown value 'unknown': they count in the overall metrics and in no per-category / per-difficulty subset "
    "(ids under 'flagged')"
)
FLAG_CATEGORY = "unknown category: kept, in no per-category subset"
FLAG_DIFFICULTY = "unknown difficulty: kept, in no per-difficulty subset"
FLAG_FFFD = "U+FFFD characters: kept as published"
FLAG_SAME_IMAGE = "an image listed again with other questions: its rows kept under distinct ids (<image>#<entry>)"


def category_of(value: Any, mapping: dict[str, str]) -> str:
    """A published category (a letter, or a name) -> one of ``illusionbench.CATEGORIES``; raises when unreadable."""
    if value is None or str(value).strip() == "":
        raise ValueError("no category")
    raw = str(value).strip()
    if raw in mapping:
        return IB.normalize_category(mapping[raw], where="")
    if raw.upper() in LETTER_CATEGORIES:
        return LETTER_CATEGORIES[raw.upper()]
    return IB.normalize_category(raw, where="")


def _images_of(root: Path) -> tuple[dict[str, Path], dict[str, str], Path | None, int]:
    """Images of an authors' folder: ({name: file} extracted, {name: zip member}, the zip, macOS junk count)."""
    files: dict[str, Path] = {}
    junk = 0
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES:
            if p.name.startswith("._") or "__MACOSX" in p.parts:
                junk += 1
            else:
                files.setdefault(p.name, p)
    archive = next(iter(sorted(root.rglob(IMAGES_ZIP))), None)
    members: dict[str, str] = {}
    if archive is not None:
        members, zjunk = zip_members(archive)
        junk += zjunk
    return files, members, archive, junk


def _known(unknown: str, normalize, value: Any, mapping: dict[str, str]) -> str:
    try:
        return normalize(value, mapping=mapping)
    except ValueError:
        return unknown


def _flag_unknown(report: LoadReport, ids: list[str], category: str, difficulty: str) -> None:
    for what, value in ((FLAG_CATEGORY, category), (FLAG_DIFFICULTY, difficulty)):
        if value == IB.UNKNOWN:
            report.note(NOTE_UNKNOWN)
            for rid in ids:
                report.flag(what, rid)


def _write(out: Path, records: dict[str, list[dict]], report: LoadReport) -> dict[str, int]:
    """Declare the paper's breakdown values, write the records, count them; say which files have no rows."""
    _declare_categories(records)
    counts = IB.write_dataset(out, records)
    for name, k in counts.items():
        report.wrote("ambi_illusionbench_" + name.split("_", 1)[1], k)
    for name in IB.FILES.values():
        if not counts.get(name):
            report.lacks(name, "the release gives no usable rows for it (see the skipped rows)")
    return counts


def _is_tf(qa: Any) -> bool:
    return isinstance(qa, dict) and IB._words(qa.get("Question Type")) in ("tf", "true false", "judge", "binary")


def _question_record(rid: str, qa: Any, image: str, category: str, difficulty: str, seed: int) -> dict:
    if not isinstance(qa, dict):
        raise ValueError("bad question: not an object")
    question, answer = str(qa.get("Question") or "").strip(), qa.get("Correct Answer")
    qtype = IB._words(qa.get("Question Type"))
    if not question or answer is None or str(answer).strip() == "":
        raise ValueError("empty question or answer")
    if _is_tf(qa):
        rec = IB._base(rid, "true_false", image, category, difficulty, AUTHORS_REPO)
        try:
            rec.update(question=question, answer_bool=IB._as_bool(answer, where=rid))
        except ValueError:
            raise ValueError(f"bad true/false answer: {answer!r} is neither True nor False") from None
        return rec
    if qtype not in ("select", "mc", "multiple choice", "choice"):
        raise ValueError(f"unknown question type: {qa.get('Question Type')!r}")
    n = option_count(question)
    if n > 4:
        raise ValueError(f"more than four options: {n} option markers (up to {_ROMAN[n - 1]}.)")
    parsed = IB.parse_inline_options(question)
    if parsed is None:
        raise ValueError("no options: cannot find the options i. ii. iii. iv. in the question")
    stem, options = parsed
    try:
        return IB.mc_record(
            rid,
            image=image,
            category=category,
            difficulty=difficulty,
            question=stem,
            options=options,
            answer=answer,
            shuffle_seed=seed,
            source=AUTHORS_REPO,
        )
    except ValueError:
        raise ValueError(f"answer not among the options: {answer!r} is none of {options}") from None


def _declare_categories(records: dict[str, list[dict]]) -> None:
    """Every record reports every category and difficulty of the paper: a breakdown the data cannot make is NaN."""
    for recs in records.values():
        for rec in recs:
            rec["breakdown_declared"] = {"image_category": list(IB.CATEGORIES), "difficulty": list(IB.DIFFICULTIES)}
