"""Reading VIA-Bench releases: the public challenge layout and the canonical records; the importer.

The public challenge split (``val.json`` + ``images/``; DataCV 2026 Task II, MIT) is a JSON list of
``{"image_name": "0.jpg", "Question": "Question:\\nHow many ...?", "option": "Option: \\nA. 5\\nB. 6\\nD. Not Sure\\n"}``
with no answers and no categories. :func:`parse_challenge_rows` reads it as published: a row that cannot be
read (no image name, no question, an option block without labelled options, repeated labels, a missing
image) is reported with its id and reason, skipped and counted, never fatal. Rows that deviate without being
unreadable (an option block without "Not Sure") are kept and listed as notes; "C.3" (no space after the
label) reads as "C. 3".

A row may carry an answer (``answer``: a letter or the option text) and a ``category`` (VA, CI, MI, GI,
GSI, VI), as a full release would; an answer key file (``{"image_name" or "id", "answer", "category"}``
lines) adds them to a release without.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.rows import BadRow, check_row, iter_array, short_id
from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.core.jsonl import json_error, numbered, strict
from ambi_plugin.inputfiles import named_input

_OPTION_LINE = re.compile(r"^\s*([A-Z])\s*[.)\uff0e:]\s*(.*?)\s*$")
_HEADER = re.compile(r"^\s*(question|option|options)\s*:\s*", re.IGNORECASE)


@dataclass
class ReadReport:
    """What reading a release did: records kept, rows skipped (id + reason), notes on kept rows."""

    records: list[dict] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    merged: list[tuple[str, str]] = field(default_factory=list)  # rows identical to an earlier row: kept once

    def summary(self) -> str:
        lines = [f"read {len(self.records)} question(s), skipped {len(self.skipped)}, merged {len(self.merged)}"]
        lines += [f"  skipped id={rid!r}: {why}" for rid, why in self.skipped]
        lines += [f"  merged id={rid!r}: {why}" for rid, why in self.merged]
        lines += [f"  note id={rid!r}: {why}" for rid, why in self.notes]
        return "\n".join(lines)


def strip_header(text: Any) -> str:
    """``"Question:\\nHow many ...?"`` -> ``"How many ...?"`` (the release adds the header to some rows only)."""
    return _HEADER.sub("", str(text or ""), count=1).strip()


def parse_option_block(block: Any) -> tuple[list[str], list[str]]:
    """``"Option: \\nA. 5\\nB. 6\\nC. Not Sure\\n"`` -> (options, problems). Labels must run A, B, C ..."""
    lines = [ln for ln in strip_header(block).splitlines() if ln.strip()]
    options, problems = [], []
    for k, line in enumerate(lines):
        m = _OPTION_LINE.match(line)
        if not m:
            problems.append(f"option line {line!r} has no label 'X.'")
            continue
        want = chr(ord("A") + len(options))
        if m.group(1) != want:
            problems.append(f"option label {m.group(1)!r} where {want!r} was expected (line {k + 1})")
        options.append(m.group(2))
    if len(options) < 2:
        problems.append(f"fewer than two options ({len(options)})")
    return options, problems


def _gold_index(answer: Any, options: list[str]) -> int | None:
    text = str(answer).strip()
    m = re.fullmatch(r"\[?\(?([A-Za-z])\)?\]?\.?", text)
    if m:
        idx = ord(m.group(1).upper()) - ord("A")
        return idx if 0 <= idx < len(options) else None
    hits = [i for i, o in enumerate(options) if o.strip().lower() == text.lower()]
    return hits[0] if len(hits) == 1 else None


def _category(value: Any) -> str | None:
    cat = str(value or "").strip().lower()
    return cat if cat in S.CATEGORIES else None


def _skip(report: ReadReport, rid: str, line: int, kind: str, detail: str) -> None:
    """A bad row: ``<kind>: <detail> (row <line>)``; the kind alone is what the load report counts by."""
    report.skipped.append((rid, f"{kind}: {detail} (row {line})"))


def record_from_row(row: Mapping[str, Any], *, line: int, image_dir: Path | None, report: ReadReport) -> dict | None:
    """One challenge row -> a canonical record, or None (reported in ``report.skipped``)."""
    name = str(row.get("image_name") or "").strip()
    rid = Path(name).stem if name else f"row{line}"
    if not name:
        _skip(report, rid, line, "no image name", "the row has no 'image_name'")
        return None
    question = strip_header(row.get("Question", row.get("question")))
    if not question:
        _skip(report, rid, line, "empty question", "the row has an empty 'Question'")
        return None
    raw_options = row.get("option", row.get("options"))
    options, problems = (
        ([str(o) for o in raw_options], []) if isinstance(raw_options, list) else parse_option_block(raw_options)
    )
    if problems:
        _skip(report, rid, line, "bad options", "field 'option': " + "; ".join(problems))
        return None
    if image_dir is not None and not (image_dir / name).is_file():
        _skip(report, rid, line, "missing image", f"{name} is not in {image_dir}")
        return None
    not_sure = [i for i, o in enumerate(options) if o.strip().lower() == S.NOT_SURE.lower()]
    if not not_sure:
        report.notes.append((rid, f"row {line}: no 'Not Sure' option (kept; its options: {options})"))
    rec: dict[str, Any] = {
        "id": rid,
        "benchmark": S.BENCHMARK,
        "task_type": "choice",
        "image": f"images/{name}",
        "image_name": name,
        "question": question,
        "options": options,
        "option_style": "letter",
        "answer_format": "letter",
        "not_sure_index": not_sure[-1] if not_sure else None,
        "source": "DataCV 2026 Task II challenge layout",
    }
    cat = _category(row.get("category"))
    rec["category"] = cat or S.UNCATEGORIZED
    if cat:
        rec["breakdown"] = {"category": cat}
    if row.get("question_negated"):
        rec["question_negated"] = str(row["question_negated"])
    answer = row.get("answer")
    if answer is None or str(answer).strip() == "":
        rec["gold_unknown"] = True
        return rec
    gold = _gold_index(answer, options)
    if gold is None:
        _skip(report, rid, line, "answer not among the options", f"answer {answer!r} names no option of {options}")
        return None
    if gold == rec["not_sure_index"]:
        _skip(report, rid, line, "answer is Not Sure", "the paper says 'Not Sure' is never the answer")
        return None
    rec["answer_index"] = gold
    return rec


def read_answer_key(path: Path) -> dict[str, dict]:
    """{id (image stem): {"answer", "category"}} from a JSONL or JSON-list answer key."""
    with named_input(path, "answer key"):  # a file of the user's: unreadable, it stops the import, named
        text = Path(path).read_text(encoding="utf-8")
        if text.lstrip().startswith("["):
            try:
                rows = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{exc.lineno}: not valid JSON: {json_error(exc)}") from None
        else:
            lines = numbered(text.split("\n"), str(path), what="answer key", objects=True)
            rows = [row for _, row in strict(lines, ValueError)]
    key = {}
    for k, row in enumerate(rows, start=1):
        rid = row.get("id") if row.get("id") is not None else Path(str(row.get("image_name") or "")).stem
        if not str(rid or ""):
            raise ValueError(f"{path}: entry {k} names neither 'id' nor 'image_name'")
        key[str(rid)] = row
    return key


def parse_challenge_rows(
    rows: Iterable[Mapping[str, Any]], *, image_dir: Path | None = None, answers: Mapping[str, Mapping] | None = None
) -> ReadReport:
    """Rows of the challenge layout (optionally with an answer key) -> records, skipped rows, notes."""
    report = ReadReport()
    seen: set[str] = set()
    first: dict[str, tuple[int, str]] = {}  # a row's content -> its line, for identical rows
    for line, row in enumerate(rows, start=1):
        if isinstance(row, BadRow):  # nested too deeply to read (benchmarks/rows.py)
            _skip(report, f"row{line}", line, *str(row).split(": ", 1))
            continue
        if not isinstance(row, Mapping):
            _skip(report, f"row{line}", line, "not an object", "the row is not a JSON object")
            continue
        name = short_id(row.get("image_name"), "")
        rid = Path(name).stem if name else f"row{line}"
        try:
            check_row(row)  # a text field over AMBI_MAX_TEXT_CHARS
        except BadRow as exc:
            _skip(report, rid, line, *str(exc).split(": ", 1))
            continue
        content = json.dumps(dict(row), sort_keys=True, default=str)
        if content in first:
            report.merged.append((rid, f"duplicate row: row {line} is identical to row {first[content][0]}"))
            continue
        first[content] = (line, rid)
        extra = dict((answers or {}).get(rid) or {})
        merged = {**row, **{k: v for k, v in extra.items() if k in ("answer", "category", "question_negated")}}
        rec = record_from_row(merged, line=line, image_dir=image_dir, report=report)
        if rec is None:
            continue
        if rec["id"] in seen:
            _skip(report, rec["id"], line, "duplicate id", f"a second, different row for image {rec['image_name']!r}")
            continue
        seen.add(rec["id"])
        report.records.append(rec)
    return report


def read_challenge_json(path: Path, *, image_dir: Path | None = None, answers: Path | None = None) -> ReadReport:
    """``val.json`` (a JSON list, the published layout) -> a :class:`ReadReport`."""
    path = Path(path)
    try:  # row by row: one nested too deeply is a bad row, the others are read (benchmarks/rows.py)
        with named_input(path, "VIA-Bench questions"):
            entries = iter_array(path.read_text(encoding="utf-8"), check_text=False)
            rows = [value if why is None else BadRow(why) for _, value, why in entries]
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError as exc:
        raise ValueError(f"{path}: {exc} (expected a JSON list of questions)") from None
    return parse_challenge_rows(rows, image_dir=image_dir, answers=read_answer_key(answers) if answers else None)


def split_by_category(records: list[dict]) -> dict[str, list[dict]]:
    """Records -> {records name: records}: ``viabench_<cat>`` for labelled categories, ``viabench_val`` for all."""
    out: dict[str, list[dict]] = {S.VAL_NAME: list(records)}
    for cat in S.CATEGORIES:
        sub = [r for r in records if r["category"] == cat]
        if sub:
            out[S.records_name(cat)] = sub
    return out


def import_challenge(
    json_path: Path, images: Path, out: Path, *, answers: Path | None = None
) -> tuple[dict[str, int], ReadReport]:
    """The challenge layout (+ optional answer key) -> a local copy in the canonical schema."""
    from tqdm import tqdm

    from ambi_plugin.core.schema import write_dataset

    json_path, images, out = Path(json_path), Path(images), Path(out)
    report = read_challenge_json(json_path, image_dir=images, answers=answers)
    (out / "images").mkdir(parents=True, exist_ok=True)
    for rec in tqdm(report.records, desc="VIA-Bench: copying images", unit="image"):
        dst = out / rec["image"]
        if not dst.exists():
            shutil.copyfile(images / rec["image_name"], dst)
    counts = write_dataset(out, split_by_category(report.records))
    (out / "import_report.json").write_text(
        json.dumps({"source": str(json_path), "counts": counts, "skipped": report.skipped, "notes": report.notes},
                   indent=1) + "\n", encoding="utf-8")  # fmt: skip
    return counts, report


def materialize_from_hub() -> Path:
    """VIA-Bench has no Hub release: always raises ``DataUnavailableError`` saying how to use a local copy."""
    from ambi_plugin.benchmarks.hub import DataUnavailableError

    raise DataUnavailableError(
        "viabench: VIA-Bench is not on the HF Hub (only the challenge's validation split is public, without "
        "answers, on GitHub: Houwenjin/DataCV-2026-Challenge-CVPR-Task-II-Competition, val/). Build a local copy "
        "with `ambi viabench import --json val/val.json --images val/images --out DIR [--answers KEY.jsonl]` "
        "and point AMBI_VIABENCH_DIR (or data.viabench in the ambi config) at DIR."
    )


def to_load_report(report: ReadReport, source: str) -> Any:
    """The shared :class:`~ambi_plugin.benchmarks.release.LoadReport` of a read (rows, records per task, skipped)."""
    from ambi_plugin.benchmarks.release import LoadReport

    load = LoadReport(S.BENCHMARK, source)
    load.read(len(report.records) + len(report.skipped) + len(report.merged))
    load.load(len(report.records))
    val = f"ambi_{S.VAL_NAME}"
    variants = tuple(f"{val}_{v}" for v in ("zs_cot", "manual_cot", "blind"))
    for rid, why in report.skipped:  # "<kind>: <detail> (row n)": counted by kind
        load.skip(rid, why, task=val, also=variants)
    for rid, why in report.merged:
        load.merge(rid, why, task=val)
    for name, recs in split_by_category(report.records).items():
        load.wrote(f"ambi_{name}", len(recs))
    for rid, text in report.notes:
        load.note(f"{rid}: {text}")
    return load


def materialize_local(path: str | Path) -> Path:
    """A configured local copy (``$AMBI_VIABENCH_DIR``): canonical records are used as they are; the challenge
    layout as downloaded (a folder with ``val.json`` and ``images/``, the ``val.json`` itself, or a zip of the
    folder) is converted once into the cache; ``$AMBI_VIABENCH_ANSWERS`` names an optional answer key."""
    import os

    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key
    from ambi_plugin.benchmarks.release import unpack_zip

    path = Path(path).expanduser()
    if path.is_file() and path.suffix.lower() == ".zip":
        path = unpack_zip(path, benchmark=S.BENCHMARK)
    if path.is_dir() and any(path.glob("viabench_*.jsonl")):
        return path
    if path.is_file() and path.suffix.lower() == ".json":
        json_path = path
    else:
        found = sorted(path.rglob("val.json")) if path.is_dir() else []
        if not found:
            raise FileNotFoundError(
                f"the local copy of viabench is configured as {str(path)!r}: neither canonical records "
                "(viabench_*.jsonl) nor the challenge layout (val.json + images/)"
            )
        json_path = found[0]
    images = json_path.parent / "images"
    answers = os.environ.get("AMBI_VIABENCH_ANSWERS")
    folder = json_path.parent.resolve()
    read = [folder] + ([Path(answers).expanduser().resolve()] if answers else [])
    out = benchmark_cache(S.BENCHMARK, "local-" + source_key("2", str(folder), answers or "", read=read))
    if (out / ".complete").is_file():
        return out

    def build(tmp: Path) -> None:
        _, report = import_challenge(json_path, images, tmp, answers=Path(answers) if answers else None)
        to_load_report(report, str(json_path)).emit(tmp)

    return materialize(out, build)
