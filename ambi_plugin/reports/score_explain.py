"""``ambi score --explain ID``: how one item's answer was read and scored, stage by stage, for each answer set.

The records, the answers and the scoring are ``ambi score``'s (:mod:`ambi_plugin.reports.rescore`); a benchmark whose
registry entry scores on its own explains its own scoring (``rescore.explain``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.reports.answers import ScoreError, answer_columns, read_rows, samples_in_folder
from ambi_plugin.reports.rescore import load_records, rescore_of, scoring_kwargs, task_spec


def explain_answer(
    task: str,
    answers: str | Path,
    item_id: str,
    *,
    columns: Sequence[str] | None = None,
    records: str | Path | None = None,
    data_dir: str | Path | None = None,
    judge=None,
) -> str:
    """How one item's answer (each answer set's) was read and scored: ``ambi score --explain ID``."""
    info, _, kind, _ = task_spec(task)
    rescore = rescore_of(kind)
    recs = load_records(info, kind, records=records, data_dir=data_dir)
    if rescore is not None and rescore.prepare is not None:
        recs = [rescore.prepare(r) for r in recs]
    rec = next((r for r in recs if str(r["id"]) == str(item_id)), None)
    if rec is None:
        shown = ", ".join(str(r["id"]) for r in recs[:5])
        raise ScoreError(f"task {task!r} has no record id {item_id!r} (ids look like: {shown} ...)")
    if Path(answers).is_dir():
        answers = samples_in_folder(Path(answers), task)
    rows = read_rows(answers)
    table = answer_columns(rows, task=task, name=Path(answers).stem, columns=columns, source=str(answers))
    parts = []
    for col, got in table.items():
        if str(item_id) not in got:
            raise ScoreError(f"{answers}: answer set {col!r} has no answer for record id {item_id!r}")
        response = got[str(item_id)]
        lines = [f"answers: {col}"]
        if rescore is not None and rescore.explain is not None:  # the benchmark's own scoring, explained
            lines += rescore.explain(rec, response, judge=judge)
        else:
            from ambi_plugin.core.explain import explain_item
            from ambi_plugin.runtime.hooks import scoring_record
            from ambi_plugin.runtime.run_state import current

            lines += explain_item(
                scoring_record(rec, scoring_kwargs(info)), response, judge=judge, judge_provider=current().judge_for
            )
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
