"""A task's docs (harness rows) for the callers that evaluate a task outside lmms-eval.

A doc is what lmms-eval's loader hands the YAML's hooks: one harness row per record, written by
:func:`ambi_plugin.data.sources.harness_rows` (image paths made absolute, every breakdown value of the task, the full
record as one JSON string). :func:`read_docs` reads a task's rows from its ``ambi://`` source, as lmms-eval loads them
(the VLMEvalKit adapter); :func:`records_as_docs` turns records already in hand (``ambi score``'s) into the same rows
through the same function, so :meth:`ambi_plugin.runtime.task.Task.evaluate` sees the same docs from every caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.core.jsonl import read_jsonl
from ambi_plugin.data.sources import harness_rows, resolve_jsonl
from ambi_plugin.runtime.task import Task


def read_docs(task: Task) -> list[dict]:
    """The task's harness rows (one per record, in order), as lmms-eval loads them."""
    return read_jsonl(resolve_jsonl(task.dataset_path, task.dataset_name), what="harness rows file", objects=True)


def records_as_docs(records: Sequence[dict], root: str | Path) -> list[dict]:
    """``records`` (canonical, in order) as the harness rows the data source writes for them; relative image paths
    are read against ``root`` (the folder the records file is in)."""
    return harness_rows(list(records), Path(root))


__all__ = ["read_docs", "records_as_docs"]
