"""lmms-eval tasks whose release has no rows (:data:`ambi_plugin.data.no_records.NO_RECORDS`): built on the one-row
stand-in of :func:`ambi_plugin.data.sources.resolve_jsonl`, they make no request and read no document."""

from __future__ import annotations

from ambi_plugin.data.no_records import no_records_reason

_WRAPPED = "__ambi_plugin_wrapped__"


def _no_documents(task) -> None:
    """``build_all_requests`` of a task without records: drop the stand-in row, make no request."""
    split = task.config.test_split or "test"
    for attr in ("dataset", "dataset_no_image"):
        data = getattr(task, attr, None)
        if data is not None and split in data:
            data[split] = data[split].select([])
    task.task_docs = task.dataset[split]
    task._instances = []


def patch_tasks_without_records() -> None:
    """Wrap ``ConfigurableTask.doc_to_text`` / ``doc_to_target`` (read once on the stand-in row when the task is
    built) and ``build_all_requests`` (no request) for tasks whose release has no rows; others are untouched."""
    import functools

    from lmms_eval.api.task import ConfigurableTask

    def wrap(name: str, instead) -> None:
        original = getattr(ConfigurableTask, name)
        if getattr(original, _WRAPPED, False):
            return

        @functools.wraps(original)
        def method(self, *args, **kwargs):
            if no_records_reason(self) is None:
                return original(self, *args, **kwargs)
            return instead(self)

        setattr(method, _WRAPPED, True)
        setattr(ConfigurableTask, name, method)

    wrap("doc_to_text", lambda task: "")
    wrap("doc_to_target", lambda task: "")
    wrap("build_all_requests", _no_documents)


__all__ = ["patch_tasks_without_records"]
