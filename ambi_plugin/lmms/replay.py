"""``ambi_replay``: an lmms-eval model that answers from saved responses.

Use it to re-score saved predictions with the current parsers and metrics, or to feed exact
answers in tests::

    lmms-eval --model ambi_replay --model_args predictions=answers.jsonl --tasks ambi_synth_all

``check_visuals=true`` also loads every request's images (a dry run of the inputs).
``answers.jsonl`` holds one object per line: ``{"task": ..., "id": <record id>, "response": ...}``
(``doc_id`` may stand in for ``id``). Lines of lmms-eval's own ``--log_samples`` files are read
too when they carry ``task``. Every request is looked up before any is answered: missing keys
stop the run with one message naming the file and the first missing task / record ids.
"""

from __future__ import annotations

import json
from pathlib import Path

from lmms_eval.api.model import lmms


class ReplayError(KeyError):
    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0])


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
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"ambi_replay: predictions file {str(path)!r} does not exist")
    table: dict[tuple[str, str], str] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            raw = raw.strip()
            if not raw:
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"ambi_replay: {path}:{lineno} is not valid JSON ({exc.msg})") from None
            task, response = row.get("task"), _response_of(row)
            if not task or response is None:
                raise ValueError(f"ambi_replay: {path}:{lineno} needs 'task' and 'response' fields")
            if row.get("id") is not None:
                table[(task, str(row["id"]))] = response
            if row.get("doc_id") is not None:
                table[(task, f"doc:{int(row['doc_id'])}")] = response
    return table


class AmbiReplay(lmms):
    """Answers each request with the saved response for its (task, record id)."""

    is_simple = True

    def __init__(self, predictions: str = "", check_visuals: bool | str = False, **kwargs) -> None:
        super().__init__()
        if not predictions:
            raise ValueError("ambi_replay needs --model_args predictions=/path/to/answers.jsonl")
        self.path = str(predictions)
        self.table = load_predictions(predictions)
        # check_visuals=true loads every request's images, as a real model would: a dry run of the inputs
        self.check_visuals = str(check_visuals).strip().lower() in ("1", "true", "yes")

    def _key(self, doc_id: int, task: str, split: str) -> list[tuple[str, str]]:
        keys = []
        task_dict = getattr(self, "task_dict", None) or {}
        try:
            doc = task_dict[task][split][doc_id]
            if isinstance(doc, dict) and doc.get("id") is not None:
                keys.append((task, str(doc["id"])))
        except (KeyError, IndexError, TypeError):
            pass
        keys.append((task, f"doc:{int(doc_id)}"))
        return keys

    def generate_until(self, requests) -> list[str]:
        answers: list[str | None] = []
        missing: list[str] = []
        for req in requests:
            _ctx, _gen, doc_to_visual, doc_id, task, split = req.args
            if self.check_visuals:
                doc_to_visual(self.task_dict[task][split][doc_id])
            keys = self._key(doc_id, task, split)
            hit = next((self.table[k] for k in keys if k in self.table), None)
            if hit is None:
                missing.append(f"task {task!r} record id {keys[0][1]!r} (doc_id {doc_id})")
            answers.append(hit)
        if missing:
            shown = "; ".join(missing[:5]) + (f"; ... {len(missing) - 5} more" if len(missing) > 5 else "")
            raise ReplayError(f"ambi_replay: {self.path} has no saved response for {len(missing)} request(s): {shown}")
        return [a for a in answers if a is not None]

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("ambi_replay only replays generated answers (output_type: generate_until)")
