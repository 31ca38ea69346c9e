"""The answer files ``ambi score`` reads: every supported shape -> {answer set: {record id: response}}.

Answer files (``--answers``), by shape:

* JSONL, one ``{"id": <record id>, "response": "<model output>"}`` per line; ``"task"`` may be present
  (``ambi_replay``'s format: only the rows of the task being scored are used). One answer set, named
  after the file.
* lmms-eval ``--log_samples`` JSONL (``filtered_resps``; the record id from ``doc`` or from our logged item).
  Exactly the logged records are scored (the run's own subset, e.g. under ``--limit``), and the output says so.
* A JSON list (or JSONL) of objects with ``id`` and one column per answer set, as the IllusionVQA authors
  release them (``GPT_0_SHOT``, ``GEM_4_SHOT``, ``HUMAN_ANSWER_1`` ...): ``--column`` picks the columns
  (default: every text column that is not a dataset field). ``--vote C1,C2,C3`` adds their majority vote
  (PROTOCOL: a seeded random tie-break, ``--seed``), as the paper's human row.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import json_error, numbered
from ambi_plugin.core.parsing import option_label, parse_answer, response_text
from ambi_plugin.core.scoring import answer_format
from ambi_plugin.inputfiles import named_input

DATASET_FIELDS = frozenset(
    {"id", "question", "options", "answer", "image", "category", "source", "answer_letter", "image_path_in_hf_zip",
     # fields of the IllusionVQA authors' later answer files that are not answers
     "correct_option_letter", "mcq", "image_path", "image_name", "file_name", "question_type", "split"}
)  # fmt: skip


def is_answer_column(name: str) -> bool:
    """A column the default picker treats as an answer set: not a dataset field, a path / URL, or a gold field."""
    low = name.lower()
    return not (
        name in DATASET_FIELDS or low.endswith(("_path", "_url", "_letter")) or low.startswith(("correct", "gold"))
    )


class ScoreError(ValueError):
    """Answers or records that cannot be scored; the message names the file, task and record ids."""


def read_rows(path: str | Path) -> list[dict]:
    """A JSON list or a JSONL file of objects."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"answers file {str(path)!r} does not exist")
    with named_input(path, "answers file"):
        return _rows_of(path, path.read_text(encoding="utf-8"))


MAX_BAD_LINES = 20  # bad lines named in the error; the rest are counted


def _rows_of(path: Path, text: str) -> list[dict]:
    """Every row, or a :class:`ScoreError` naming every bad line (the first ``MAX_BAD_LINES``, then a count): a
    file is scored whole or not at all, so a bad line is never an answer silently missing from the scores."""
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScoreError(
                f"{path}:{exc.lineno}: not valid JSON: {json_error(exc)} (a JSON list is read up to its first "
                "error; fix it, or write one JSON object per line)"
            ) from None
        what = "item(s) of the list"
        bad = [f"{path}: item {k} of the list is a JSON {type(r).__name__}, not an object"
               for k, r in enumerate(rows, start=1) if not isinstance(r, dict)]  # fmt: skip
    else:
        rows, bad, what = [], [], "line(s)"
        for line in numbered(text.split("\n"), str(path), what="answers file", objects=True):
            if line.bad:
                bad.append(f"{line.where}: {line.error}")
            else:
                rows.append(line.value)
    if bad:
        shown = bad[:MAX_BAD_LINES]
        more = [f"and {len(bad) - len(shown)} more"] if len(bad) > len(shown) else []
        raise ScoreError(
            f"{path}: {len(bad)} bad {what}, nothing scored (each must be one JSON object); fix or delete them "
            "and run again:\n  " + "\n  ".join(shown + more)
        )
    return rows


def _first_text(val: Any) -> str | None:
    """lmms-eval's ``resps`` / ``filtered_resps``: the first (nested) string, else None."""
    return response_text(val, first_of_lists=True, strings_only=True, missing=None)


def _row_id(row: dict) -> str | None:
    if row.get("id") is not None:
        return str(row["id"])
    doc = row.get("doc")
    if isinstance(doc, dict) and doc.get("id") is not None:
        return str(doc["id"])
    from ambi_plugin.reports.runs import logged_item

    item = logged_item(row)  # lmms-eval 0.7 samples: our item score, logged under each metric name
    return str(item["id"]) if item and item.get("id") is not None else None


def is_logged_samples(rows: Sequence[dict]) -> bool:
    """Rows of an lmms-eval ``--log_samples`` file (each has ``doc_id`` and ``filtered_resps`` or ``resps``)."""
    return bool(rows) and all("doc_id" in r and ("filtered_resps" in r or "resps" in r) for r in rows)


def logged_subset(recs: Sequence[dict], got: Mapping[str, str], rows: Sequence[dict], *, task: str, source: str):
    """(the records a run logged, in record order; a note saying so): lmms-eval scores the first ``--limit``
    records, and so does a re-score of its samples."""
    no_id = [r.get("doc_id") for r in rows if _row_id(r) is None]
    if no_id:
        raise ScoreError(f"{source}: logged sample(s) with doc_id {no_id[:5]} carry no record id (no item score of "
                         f"ours); was it written by a run of task {task!r}?")  # fmt: skip
    known = {str(r["id"]) for r in recs}
    unknown = sorted(i for i in got if i not in known)
    if unknown:
        raise ScoreError(f"{source}: logged record id(s) {', '.join(unknown[:5])} are not records of task {task!r} "
                         f"({len(unknown)} in all): the records given (--records / --data-dir) are not the run's")  # fmt: skip
    subset = [r for r in recs if str(r["id"]) in got]
    note = f"scored the {len(subset)} record(s) the run logged"
    if len(subset) < len(recs):
        note += f", of {len(recs)} in the task (the run's own subset, e.g. lmms-eval --limit)"
    return subset, note


def answer_columns(
    rows: Sequence[dict],
    *,
    task: str,
    name: str,
    columns: Sequence[str] | None = None,
    source: str = "answers",
    duplicates: dict[str, int] | None = None,
) -> dict[str, dict[str, str]]:
    """{answer set: {record id: response}} from rows of any supported shape (see the module docstring).

    A record id given more than once keeps its **first** answer (a later one never silently wins); the
    answers left out are counted per id in ``duplicates`` when a dict is passed."""
    dups = duplicates if duplicates is not None else {}
    if any("task" in r for r in rows):
        tasks = sorted({str(r.get("task")) for r in rows})
        rows = [r for r in rows if r.get("task") == task]
        if not rows:
            raise ScoreError(f"{source}: no answers for task {task!r} (tasks in the file: {', '.join(tasks)})")
    if columns:
        missing = [c for c in columns if not any(c in r for r in rows)]
        if missing:
            present = sorted({k for r in rows for k in r})
            raise ScoreError(f"{source}: no column {missing} (columns: {', '.join(present)})")
    elif all("response" in r or "filtered_resps" in r or "resps" in r for r in rows):
        out: dict[str, str] = {}
        for r in rows:
            rid = _row_id(r)
            text = r["response"] if "response" in r else _first_text(r.get("filtered_resps") or r.get("resps"))
            if rid is not None and text is not None:
                if rid in out:
                    dups[rid] = dups.get(rid, 0) + 1
                    continue
                out[rid] = str(text)
        return {name: out}
    else:
        columns = sorted({k for r in rows for k, v in r.items() if is_answer_column(k) and isinstance(v, str)})
        if not columns:
            raise ScoreError(f"{source}: no answer column found; rows need 'response' or pass --column")
    table: dict[str, dict[str, str]] = {c: {} for c in columns}
    seen: set[str] = set()
    for r in rows:
        rid = _row_id(r)
        if rid is None:
            raise ScoreError(f"{source}: a row without 'id' ({str(r)[:120]})")
        if rid in seen:
            dups[rid] = dups.get(rid, 0) + 1
            continue
        seen.add(rid)
        for c in columns:
            if r.get(c) is not None:
                table[c][rid] = str(r[c])
    return table


def duplicates_note(duplicates: Mapping[str, int], source: str) -> str:
    """The warning of answers left out because their record id came earlier in the file ("" when none)."""
    if not duplicates:
        return ""
    shown = ", ".join(f"{rid!r} x{n + 1}" for rid, n in list(duplicates.items())[:5])
    more = f" ... ({len(duplicates)} ids in all)" if len(duplicates) > 5 else ""
    return (f"warning: {source}: {sum(duplicates.values())} duplicate answer(s) ignored, {len(duplicates)} record "
            f"id(s) given more than once ({shown}{more}); the first answer of each id was scored")  # fmt: skip


def _parsed_index(rec: dict, response: str | None) -> int | None:
    if response is None:
        return None
    kw = {"n_options": len(rec["options"]), "style": rec.get("option_style"), "options": rec["options"]}
    got = parse_answer(response, answer_format(rec), **kw)
    return got.value if got.ok and isinstance(got.value, int) and got.value >= 0 else None


def majority_vote(rec: dict, responses: Sequence[str | None], *, seed: int = 0) -> str:
    """The option most annotators chose (ties broken at random, seeded by ``seed`` and the record id),
    as its label; "" when nobody's answer can be read."""
    picks = [i for i in (_parsed_index(rec, r) for r in responses) if i is not None]
    if not picks:
        return ""
    counts = Counter(picks)
    best = max(counts.values())
    tied = sorted(i for i, n in counts.items() if n == best)
    winner = tied[0] if len(tied) == 1 else random.Random(f"ambi-vote:{seed}:{rec['id']}").choice(tied)
    return option_label(winner, rec.get("option_style") or "letter")


def add_vote(
    records: Sequence[dict], table: dict[str, dict[str, str]], vote: Sequence[str], *, seed: int, name: str
) -> None:
    missing = [c for c in vote if c not in table]
    if missing:
        raise ScoreError(f"--vote names columns {missing} that the answers do not have ({', '.join(table)})")
    table[name] = {
        str(rec["id"]): majority_vote(rec, [table[c].get(str(rec["id"])) for c in vote], seed=seed) for rec in records
    }


def column_setting(column: str, default: str = "") -> str:
    """The prompt setting an answer column's name states (IllusionVQA authors' files: ``GPT_0_SHOT``,
    ``GEM_4_SHOT``, ``GPT_4_SHOT_COT`` ...), else ``default`` (the task's own setting)."""
    name = column.upper().replace("-", "_").replace(" ", "_")
    if "HUMAN" in name:
        return "human"
    if "COT" in name and ("4_SHOT" in name or "4SHOT" in name or "FEW" in name):
        return "4-shot + CoT"
    if "4_SHOT" in name or "4SHOT" in name:
        return "4-shot"
    if "0_SHOT" in name or "0SHOT" in name or "ZERO" in name:
        return "0-shot"
    return default


def samples_in_folder(folder: Path, task: str) -> Path:
    """The lmms-eval ``--log_samples`` file of ``task`` below an output folder (the newest one)."""
    found = sorted(Path(folder).rglob(f"*_samples_{task}.jsonl"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise ScoreError(f"no logged samples of task {task!r} (*_samples_{task}.jsonl) below {folder}; "
                         "run lmms-eval with --log_samples")  # fmt: skip
    return found[-1]
