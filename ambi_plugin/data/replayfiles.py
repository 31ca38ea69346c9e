"""Replay files: write reference predictions (gold / wrong / garbage) for tasks, and read saved predictions
({task, id, response} lines) for the replay models of both harnesses."""

from __future__ import annotations

import json
from pathlib import Path

from ambi_plugin.core.answers import reference_response
from ambi_plugin.core.jsonl import iter_jsonl
from ambi_plugin.core.schema import read_records
from ambi_plugin.runtime.taskindex import TaskInfo, expand_tasks


class NoRecords(LookupError):
    """A converted release gives no rows for a task (its reason in ``args[0]``)."""


def task_records(info: TaskInfo, data_dir: Path | None = None) -> list[dict]:
    """The records a task evaluates, read from ``data_dir`` or from its ``ambi://`` source. Raises
    :class:`NoRecords` with the release's reason when a converted release has no rows for the task."""
    from ambi_plugin.data.no_records import rows_absent
    from ambi_plugin.data.sources import source_root

    name = info.config.get("dataset_name") or info.name
    root = Path(data_dir) if data_dir else source_root(str(info.config.get("dataset_path")))
    reason = rows_absent(root, name)
    if reason is not None:
        raise NoRecords(reason)
    return read_records(root / f"{name}.jsonl")


def write_reference_predictions(
    out: Path,
    *,
    tasks: str | list[str],
    mode: str,
    data_dir: Path | None = None,
    without: dict[str, str] | None = None,
) -> int:
    """Reference responses for every record of ``tasks``; a task its release has no rows for is left out and
    named in ``without`` (task -> reason), as an lmms-eval run reports it NaN with that reason."""
    rows = []
    for info in expand_tasks(tasks):
        try:
            recs = task_records(info, data_dir)
        except NoRecords as exc:
            if without is not None:
                without[info.name] = str(exc)
            continue
        for rec in recs:
            rows.append({"task": info.name, "id": str(rec["id"]), "response": reference_response(rec, mode)})
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(out)
    return len(rows)


def _response_of(row: dict) -> str | None:
    if "response" in row:
        return row["response"]
    for key in ("filtered_resps", "resps"):
        val = row.get(key)
        while isinstance(val, list) and val:
            val = val[0]
        if isinstance(val, str):
            return val
    return None


def load_predictions(path: str | Path) -> dict[tuple[str, str], str]:
    """Read a predictions file into {(task, key): response}; key is the record id or 'doc:<doc_id>'."""
    return load_prediction_lines(path)[0]


def _replay_error(message: str) -> ValueError:
    return ValueError(f"ambi_replay: {message}")


def load_prediction_lines(path: str | Path) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], int]]:
    """:func:`load_predictions` and the line number of each key."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"ambi_replay: predictions file {str(path)!r} does not exist")
    table: dict[tuple[str, str], str] = {}
    lines: dict[tuple[str, str], int] = {}
    for lineno, row in iter_jsonl(path, what="predictions file", objects=True, error=_replay_error):
        task, response = row.get("task"), _response_of(row)
        if not task or response is None:
            raise ValueError(f"ambi_replay: {path}:{lineno} needs 'task' and 'response' fields")
        keys = []
        if row.get("id") is not None:
            keys.append((task, str(row["id"])))
        if row.get("doc_id") is not None:
            try:
                keys.append((task, f"doc:{int(row['doc_id'])}"))
            except (TypeError, ValueError):
                raise ValueError(f"ambi_replay: {path}:{lineno}: doc_id {row['doc_id']!r} is not an integer") from None
        if not keys:
            raise ValueError(
                f"ambi_replay: {path}:{lineno} (task {task!r}) has no 'id' (the record id) or 'doc_id': "
                "its response cannot be matched to a record"
            )
        for key in keys:
            table[key] = response
            lines[key] = lineno
    return table, lines


def unmatched_lines(lines: dict[tuple[str, str], int], task_ids: dict[str, list]) -> list[tuple[int, str, str]]:
    """(line, task, id) of the predictions of tasks in ``task_ids`` (task -> its records' ids, in doc order)
    whose id, or doc_id, matches none of the task's records."""
    known = {task: set(ids) for task, ids in task_ids.items()}
    out = set()
    for (task, key), lineno in lines.items():
        if task not in known:
            continue
        if key.startswith("doc:"):
            if not 0 <= int(key[4:]) < len(task_ids[task]):
                out.add((lineno, task, key))
        elif key not in known[task]:
            out.add((lineno, task, key))
    return sorted(out)
