"""``ambi_replay`` for VLMEvalKit: a model that answers our tasks from saved responses.

The same predictions file as lmms-eval's ``ambi_replay`` (``{"task", "id", "response"}`` lines), so one
file replays through both harnesses. VLMEvalKit hands a model only the message and the dataset name;
the model finds the record by rebuilding the dataset's messages with its own ``build_prompt`` (the
dataset run.py built: same text, same image files), in data order and only as far as needed, and matching. Identical messages of
different records are answered in data order. A message with no saved response stops the run naming task and record.

    AMBI_REPLAY_PREDICTIONS=answers.jsonl python -m ambi_plugin.vlmeval --model ambi_replay --data ...
"""

from __future__ import annotations

import json
import os
from collections import defaultdict, deque

from vlmeval.vlm.base import BaseModel

ENV = "AMBI_REPLAY_PREDICTIONS"


def fingerprint(message: list[dict]) -> str:
    return json.dumps([[m.get("type"), str(m.get("value"))] for m in message], ensure_ascii=False)


class AmbiReplayVLM(BaseModel):
    """Answers each message with the saved response of its (task, record id)."""

    INTERLEAVE = True
    allowed_types = ["text", "image", "video"]

    def __init__(self, predictions: str | None = None, **kwargs) -> None:
        super().__init__()
        from ambi_plugin.data.replayfiles import load_predictions

        path = predictions or os.environ.get(ENV)
        if not path:
            raise ValueError(f"ambi_replay needs a predictions file: set {ENV}=/path/to/answers.jsonl")
        self.path = str(path)
        self.table = load_predictions(path)
        self._queues: dict[str, dict[str, deque]] = {}
        self._rows: dict[str, tuple] = {}

    def _dataset(self, dataset: str):
        if dataset not in self._queues:
            import vlmeval.dataset as vd

            from ambi_plugin.vlmeval.dataset import class_name, live_dataset

            cls = getattr(vd, class_name(dataset), None)
            if cls is None or dataset not in cls.supported_datasets():
                raise KeyError(f"ambi_replay answers only tasks of ambi-plugin; {dataset!r} is not one")
            ds = live_dataset(dataset) or cls(dataset)  # the one run.py built (same prompt_model)
            self._queues[dataset] = defaultdict(deque)
            self._rows[dataset] = (ds, iter(range(len(ds.data))))
        return self._queues[dataset]

    def _find(self, dataset: str, key: str) -> str | None:
        """The record id of the message ``key``: rows are fingerprinted in data order, only as far as needed
        (run.py asks in data order, so a --limit run builds only the messages it asks for)."""
        queues = self._dataset(dataset)
        ds, rows = self._rows[dataset]
        while not queues.get(key):
            i = next(rows, None)
            if i is None:
                return None
            line = ds.data.iloc[i]
            queues[fingerprint(ds.build_prompt(line))].append(str(line["ambi_id"]))
        return queues[key].popleft()  # each record is asked once; a later identical message is the next record

    def generate_inner(self, message, dataset=None) -> str:
        rid = self._find(str(dataset), fingerprint(message))
        if rid is None:
            raise KeyError(f"ambi_replay: task {dataset!r}: no record of the task has this message: {message!r}")
        if (str(dataset), rid) not in self.table:
            raise KeyError(f"ambi_replay: {self.path} has no saved response for task {dataset!r} record id {rid!r}")
        return self.table[(str(dataset), rid)]


__all__ = ["ENV", "AmbiReplayVLM", "fingerprint"]
