"""``ambi score --samples-out DIR``: what ``ambi score`` scored, in the shape of an lmms-eval output folder, so that
``ambi report DIR/<answer set>`` shows it like a run (its tables, and every item in the HTML page's item browser).

One folder per answer set, ``DIR/<answer set>/``, holding ``ambi_score_results.json`` (lmms-eval's results shape:
``results``, ``n-samples``, ``config`` with ``model_args: predictions=<answer set>``, and an ``ambi_plugin``
section saying it was written by ``ambi score`` and where the records are) and one ``ambi_score_samples_<task>.jsonl``
per task (a line per record: ``doc_id``, ``input`` the prompt, ``target`` the gold answer, ``filtered_resps`` the
answer, ``item`` our item score). Scoring another task into the same folder adds it to the same results JSON.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

STEM = "ambi_score"


def _records_file(task: str, *, records: str | Path | None, data_dir: str | Path | None) -> str | None:
    if records:
        return str(Path(records).resolve())
    try:
        from ambi_plugin.reports.rescore import task_spec

        spec = task_spec(task)[1]
        if data_dir:
            return str((Path(data_dir) / f"{spec.dataset_name}.jsonl").resolve())
        from ambi_plugin.data.sources import source_root

        return str(source_root(spec.dataset_path) / f"{spec.dataset_name}.jsonl")
    except Exception:  # noqa: BLE001 - no images in the report then; the scores are written all the same
        return None


def _number(v):
    return v if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)) else None


def write_samples(
    report, out_dir: str | Path, *, records: str | Path | None = None, data_dir: str | Path | None = None
) -> list[Path]:
    """Write each answer set of ``report`` (a :class:`~ambi_plugin.reports.rescore.ScoreReport`); the folders."""
    from ambi_plugin.core.answers import gold_response
    from ambi_plugin.reports.rescore import scoring_kwargs, task_spec
    from ambi_plugin.runtime.hooks import build_prompt

    task = report.task
    kwargs = scoring_kwargs(task_spec(task)[0])
    recs_file = _records_file(task, records=records, data_dir=data_dir)
    prompts, golds = [], []
    for rec in report.records:
        try:
            prompts.append(build_prompt(rec, kwargs))
        except Exception:  # noqa: BLE001 - a record the task's prompt cannot be built for (IllusionVQA --records)
            prompts.append(str(rec.get("question") or ""))
        try:
            golds.append(gold_response(rec))
        except (KeyError, TypeError, ValueError, IndexError):
            golds.append("")
    folders = []
    for col, items in report.items.items():
        folder = Path(out_dir) / (re.sub(r"[^A-Za-z0-9._-]+", "_", col).strip("._") or "answers")
        folder.mkdir(parents=True, exist_ok=True)
        answers = report.answers.get(col, {})
        lines = []
        for i, (rec, item) in enumerate(zip(report.records, items)):
            response = answers.get(str(rec["id"]), "")
            row = {"doc_id": i, "input": prompts[i], "target": golds[i], "filtered_resps": [response],
                   "item": {**item, "response": response, "task": task}}  # fmt: skip
            lines.append(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        (folder / f"{STEM}_samples_{task}.jsonl").write_text("".join(lines), encoding="utf-8")
        path = folder / f"{STEM}_results.json"
        body = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        body.setdefault("results", {})[task] = {f"{k},none": _number(v) for k, v in report.values[col].items()}
        body.setdefault("n-samples", {})[task] = {"original": len(report.records), "effective": len(items)}
        body["config"] = {"model": "ambi score", "model_args": f"predictions={col}"}
        meta = body.setdefault("ambi_plugin", {"written_by": "ambi score"})
        meta.setdefault("data", {})[task] = {"records": recs_file, "source": str(Path(recs_file).parent) if recs_file
                                             else None, "judge": report.judge or None}  # fmt: skip
        path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        folders.append(folder)
    return folders
