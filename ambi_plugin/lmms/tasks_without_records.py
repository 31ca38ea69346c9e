"""lmms-eval tasks whose release has no rows (:data:`ambi_plugin.data.no_records.NO_RECORDS`): built on the one-row
stand-in of :func:`ambi_plugin.data.sources.resolve_jsonl`, they make no request and read no document.

For such a task (:func:`ambi_plugin.data.no_records.no_records_reason` names why), the patches of
``ConfigurableTask.doc_to_text`` / ``doc_to_target`` (:mod:`ambi_plugin.lmms.patches`; read once on the stand-in row
when the task is built) answer ``""`` and the one of ``build_all_requests`` calls :func:`no_documents`; every other
task is lmms-eval's.
"""

from __future__ import annotations


def no_documents(task) -> None:
    """``build_all_requests`` of a task without records: drop the stand-in row, make no request."""
    split = task.config.test_split or "test"
    for attr in ("dataset", "dataset_no_image"):
        data = getattr(task, attr, None)
        if data is not None and split in data:
            data[split] = data[split].select([])
    task.task_docs = task.dataset[split]
    task._instances = []


__all__ = ["no_documents"]
