"""``ambi_replay``: an lmms-eval model that answers from saved responses.

Use it to re-score saved predictions with the current parsers and metrics, or to feed exact
answers in tests::

    lmms-eval --model ambi_replay --model_args predictions=answers.jsonl --tasks ambi_synth_all

``check_visuals=true`` also loads every request's images (a dry run of the inputs).
``answers.jsonl`` holds one object per line: ``{"task": ..., "id": <record id>, "response": ...}``
(``doc_id`` may stand in for ``id``). Lines of lmms-eval's own ``--log_samples`` files are read
too when they carry ``task``. A line without ``id`` or ``doc_id`` stops the run, naming file and line.
Every request is looked up before any is answered: missing keys stop the run with one message naming
the file and the first missing task / record ids. Lines of a task in the run whose id matches none of
its records are reported (file, line, id) on stderr; they do not stop the run.
"""

from __future__ import annotations

import sys

from lmms_eval.api.model import lmms

from ambi_plugin.data.replayfiles import (  # noqa: F401 - shared with the VLMEvalKit replay model
    load_prediction_lines,
    load_predictions,
    unmatched_lines,
)


class ReplayError(KeyError):
    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0])


def _doc_ids(docs) -> list[str]:
    try:
        column = docs["id"]  # a datasets.Dataset: one column, without decoding the rows
    except (KeyError, TypeError, IndexError):
        column = [d.get("id") if isinstance(d, dict) else None for d in docs]
    return [str(v) for v in column]


class AmbiReplay(lmms):
    """Answers each request with the saved response for its (task, record id)."""

    is_simple = True

    def __init__(self, predictions: str = "", check_visuals: bool | str = False, **kwargs) -> None:
        super().__init__()
        if not predictions:
            raise ValueError("ambi_replay needs --model_args predictions=/path/to/answers.jsonl")
        self.path = str(predictions)
        self.table, self.lines = load_prediction_lines(predictions)
        # check_visuals=true loads every request's images, as a real model would: a dry run of the inputs
        self.check_visuals = str(check_visuals).strip().lower() in ("1", "true", "yes")

    def _ids(self, task: str, split: str) -> list[str | None] | None:
        """The split's record ids as strings, in doc order, read once per task (a row lookup per request was the
        hot spot); None when the split has no ``id`` column."""
        cache = self.__dict__.setdefault("_id_columns", {})
        if (task, split) not in cache:
            task_dict = getattr(self, "task_dict", None) or {}
            try:
                docs = task_dict[task][split]
                column = docs["id"] if "id" in getattr(docs, "column_names", ()) else None
            except (KeyError, TypeError):
                column = None
            cache[(task, split)] = None if column is None else [None if v is None else str(v) for v in column]
        return cache[(task, split)]

    def _record_id(self, doc_id: int, task: str, split: str) -> str | None:
        """The record id of a request's document (None when it has none)."""
        ids = self._ids(task, split)
        if ids is not None and 0 <= doc_id < len(ids):
            return ids[doc_id]
        task_dict = getattr(self, "task_dict", None) or {}
        try:
            doc = task_dict[task][split][doc_id]
        except (KeyError, IndexError, TypeError):
            return None
        return str(doc["id"]) if isinstance(doc, dict) and doc.get("id") is not None else None

    def generate_until(self, requests) -> list[str]:
        answers: list[str | None] = []
        missing: list[str] = []
        table = self.table
        for req in requests:
            _ctx, _gen, doc_to_visual, doc_id, task, split = req.args
            if self.check_visuals:
                doc_to_visual(self.task_dict[task][split][doc_id])
            rid = self._record_id(doc_id, task, split)
            hit = table.get((task, rid)) if rid is not None else None
            if hit is None:
                hit = table.get((task, f"doc:{int(doc_id)}"))
            if hit is None:
                shown = rid if rid is not None else f"doc:{int(doc_id)}"
                missing.append(f"task {task!r} record id {shown!r} (doc_id {doc_id})")
            answers.append(hit)
        if missing:
            shown = "; ".join(missing[:5]) + (f"; ... {len(missing) - 5} more" if len(missing) > 5 else "")
            raise ReplayError(f"ambi_replay: {self.path} has no saved response for {len(missing)} request(s): {shown}")
        self._report_unmatched({(req.args[4], req.args[5]) for req in requests})
        return [a for a in answers if a is not None]

    def _report_unmatched(self, task_splits: set[tuple[str, str]]) -> None:
        """Name, on stderr, the predictions lines of the run's tasks whose id matches no record."""
        task_dict = getattr(self, "task_dict", None) or {}
        with_lines = {task for task, _ in self.lines}
        ids = {}
        for task, split in task_splits:
            if task in with_lines:
                column = self._ids(task, split)
                if column is not None:
                    ids[task] = column
                    continue
                try:
                    ids[task] = _doc_ids(task_dict[task][split])
                except (KeyError, TypeError):
                    continue
        found = unmatched_lines(self.lines, ids)
        if not found:
            return
        shown = "; ".join(f"{self.path}:{line} task {task!r} id {key!r}" for line, task, key in found[:10])
        more = f"; ... {len(found) - 10} more" if len(found) > 10 else ""
        print(
            f"ambi_replay: warning: {len(found)} predictions line(s) match no record of their task "
            f"(stale or from another dataset?): {shown}{more}",
            file=sys.stderr,
        )

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("ambi_replay only replays generated answers (output_type: generate_until)")
