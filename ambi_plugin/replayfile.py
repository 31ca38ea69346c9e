"""Write reference predictions (gold / wrong / garbage) for tasks, in ``ambi_replay``'s format."""

from __future__ import annotations

import json
from pathlib import Path

from ambi_plugin.core.answers import reference_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.taskindex import TaskInfo, index


def expand_tasks(names: str | list[str], idx: dict[str, TaskInfo] | None = None) -> list[TaskInfo]:
    """Tasks named directly or through groups of ours; unknown names fail with suggestions."""
    import difflib

    idx = idx or index()
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    out: list[TaskInfo] = []
    for name in wanted:
        if name not in idx:
            close = difflib.get_close_matches(name, list(idx), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"no task or group of ours is called {name!r}{hint}")
        info = idx[name]
        if info.kind == "group":
            out.extend(expand_tasks(info.members, idx))
        elif info not in out:
            out.append(info)
    return out


def task_records(info: TaskInfo, data_dir: Path | None = None) -> list[dict]:
    """The records a task evaluates, read from ``data_dir`` or from its ``ambi://`` source."""
    from ambi_plugin.lmms.datasets import source_root

    name = info.config.get("dataset_name") or info.name
    root = Path(data_dir) if data_dir else source_root(str(info.config.get("dataset_path")))
    return read_records(root / f"{name}.jsonl")


def write_reference_predictions(out: Path, *, tasks: str | list[str], mode: str, data_dir: Path | None = None) -> int:
    rows = []
    for info in expand_tasks(tasks):
        for rec in task_records(info, data_dir):
            rows.append({"task": info.name, "id": str(rec["id"]), "response": reference_response(rec, mode)})
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(out)
    return len(rows)
