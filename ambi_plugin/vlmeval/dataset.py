"""A VLMEvalKit dataset class for one of our tasks, generated from its :class:`~ambi_plugin.runtime.task.Task`.

The class is an ``ImageBaseDataset`` with ``force_use_dataset_prompt = True`` (a model's own prompt
would replace the paper's), type ``VQA`` (run.py then names no default judge, see
:mod:`ambi_plugin.vlmeval.judges`) and one dataset name, the task's. It reads the same harness rows
lmms-eval reads (:func:`ambi_plugin.data.sources.resolve_jsonl`: records validated, image paths made
absolute; :func:`ambi_plugin.data.taskdocs.read_docs`), builds each message with the task's prompt hooks
(:mod:`ambi_plugin.vlmeval.messages`) and scores through the one task route,
:meth:`ambi_plugin.runtime.task.Task.evaluate` (the YAML's own ``process_results`` and aggregations, lmms-eval's CLT
stderr).
``evaluate`` writes ``<prediction file>_score.json`` (metrics, judge, item count, per-model settings) and
``<prediction file>_items.jsonl`` (every metric's item score per record) next to VLMEvalKit's prediction file.

Kwargs (``--config`` dataset entries): ``prompt_model`` picks the YAML's per-model entry, as lmms-eval's
``--model`` does, and ``prompt_settings`` overrides its scoring settings
(:mod:`ambi_plugin.vlmeval.prompt_model`). An item with several images is refused, naming task, record
and model class, when the model answering it has ``INTERLEAVE = False`` (VLMEvalKit would pass it only
the first image). Importing this module imports VLMEvalKit; :func:`ambi_plugin.vlmeval.register` does it
lazily.
"""

from __future__ import annotations

import json
import sys
import weakref
from pathlib import Path

import pandas as pd
from vlmeval.dataset.image_base import ImageBaseDataset

from ambi_plugin.core.coords import MODEL_SETTING_KEYS
from ambi_plugin.data.taskdocs import read_docs
from ambi_plugin.runtime.task import Task


class AmbiDatasetError(ValueError):
    """A prediction file that does not fit the task (names the file and the rows)."""


class MultiImageRefused(ValueError):
    """An item with several images for a VLMEvalKit model that keeps only the first (``INTERLEAVE = False``)."""


_LIVE: weakref.WeakValueDictionary[str, AmbiTaskDataset] = weakref.WeakValueDictionary()


def live_dataset(task: str) -> AmbiTaskDataset | None:
    """The dataset of ``task`` built last in this process (the one run.py is running), if any."""
    return _LIVE.get(task)


def class_name(task: str) -> str:
    """``ambi_synth_geometric_tf`` -> ``AmbiSynthGeometricTf``."""
    return "".join(part[:1].upper() + part[1:] for part in task.split("_") if part)


class AmbiTaskDataset(ImageBaseDataset):
    """Base of the generated classes; each subclass sets ``AMBI_TASK``."""

    TYPE = "VQA"
    MODALITY = "IMAGE"
    force_use_dataset_prompt = True
    AMBI_TASK: Task

    @classmethod
    def supported_datasets(cls) -> list[str]:
        task = getattr(cls, "AMBI_TASK", None)
        return [task.name] if task is not None else []

    def __init__(
        self,
        dataset: str | None = None,
        skip_noimg: bool = False,
        prompt_model: str | None = None,
        prompt_settings: dict | None = None,
    ) -> None:
        from ambi_plugin.vlmeval import prompt_model as pm

        name = dataset or self.AMBI_TASK.name
        if name != self.AMBI_TASK.name:
            raise ValueError(f"{type(self).__name__} holds the task {self.AMBI_TASK.name!r}, not {name!r}")
        where = f"task {self.AMBI_TASK.name}"
        if prompt_model is None:
            self.prompt_model, self.prompt_settings = pm.default()  # the launcher's choice for the run's model
            self.prompt_settings.update(pm.check_settings(prompt_settings, where=where))
        else:
            self.prompt_model, self.prompt_settings = str(prompt_model), pm.check_settings(prompt_settings, where=where)
        self.model_class: str | None = None  # the VLMEvalKit model class answering (see serve)
        self.model_interleaves = True
        super().__init__(dataset=name, skip_noimg=False)
        _LIVE[name] = self

    # -- data ---------------------------------------------------------------------------------------------
    def prompt_kwargs(self) -> dict:
        """The YAML's entry for ``prompt_model`` (updated with ``prompt_settings``), else its ``default``."""
        return self.AMBI_TASK.prompt_kwargs_for(self.prompt_model, self.prompt_settings)

    def load_data(self, dataset: str) -> pd.DataFrame:
        from ambi_plugin.runtime import hooks

        self.docs = read_docs(self.AMBI_TASK)
        self.hooks = self.AMBI_TASK.prompt(self.prompt_kwargs())
        rows = []
        for i, doc in enumerate(self.docs):
            rec = hooks.record_of(doc)
            images = rec.get("image") or []
            rows.append(
                {
                    "index": i,
                    "ambi_id": str(rec["id"]),
                    "category": rec.get("category", ""),
                    "task_type": rec["task_type"],
                    "question": self.hooks.text(doc),
                    "answer": self.hooks.target(doc),
                    "image_path": [images] if isinstance(images, str) else list(images),
                }
            )
        return pd.DataFrame(rows)

    def doc_of(self, line) -> dict:
        if isinstance(line, int):
            line = self.data.iloc[line]
        return self.docs[int(line["index"])]

    def build_prompt(self, line) -> list[dict]:
        from ambi_plugin.vlmeval.messages import build

        doc = self.doc_of(line)
        msg = build(self.hooks, doc)
        n_images = sum(m["type"] == "image" for m in msg)
        if n_images > 1 and not self.model_interleaves:
            raise MultiImageRefused(
                f"task {self.AMBI_TASK.name}, record id={json.loads(doc['record'])['id']!r}: the item has {n_images} "
                f"images but the model (VLMEvalKit class {self.model_class}) has INTERLEAVE = False, so VLMEvalKit "
                "would pass it only the first image and the text. Use a model that takes several images "
                "(INTERLEAVE = True), or tasks of ours with one image per item."
            )
        return msg

    def serve(self, model) -> None:
        """Called when a VLMEvalKit model is about to answer this dataset (``set_dump_image``, see
        :mod:`ambi_plugin.vlmeval.registry`): items with several images are refused for a model that
        does not take interleaved images."""
        self.model_class = type(model).__name__
        self.model_interleaves = bool(getattr(model, "INTERLEAVE", True))

    def dump_image(self, line) -> list[str]:
        return [m["value"] for m in self.build_prompt(line) if m["type"] == "image"]

    # -- scoring ------------------------------------------------------------------------------------------
    def predictions(self, eval_file: str) -> tuple[list[int], list[dict], list, dict[int, str]]:
        """The indices the prediction file answers (in order), their docs, their predictions (as the file holds
        them: text, no NA conversion, :mod:`ambi_plugin.vlmeval.predfile`) and the damaged ones {index: reason}."""
        from ambi_plugin.vlmeval.predfile import PredictionFileError, read_predictions

        try:
            read = read_predictions(eval_file)
        except PredictionFileError as exc:
            raise AmbiDatasetError(str(exc)) from None
        pairs = sorted(first_per_index(zip(read.index, read.prediction), source=eval_file), key=lambda pair: pair[0])
        bad = [i for i, _ in pairs if not 0 <= i < len(self.docs)]
        if bad:
            raise AmbiDatasetError(
                f"{eval_file}: index {bad[:5]} not among the {len(self.docs)} records of {self.AMBI_TASK.name} "
                "(was the file written for another version of the task's data?)"
            )
        return [i for i, _ in pairs], [self.docs[i] for i, _ in pairs], [p for _, p in pairs], read.damaged

    def evaluate(self, eval_file: str, **judge_kwargs) -> dict[str, float]:
        from ambi_plugin.runtime.run_state import run_state
        from ambi_plugin.vlmeval.judges import judge_for

        indices, docs, preds, damaged = self.predictions(eval_file)
        if damaged:
            warn_damaged(self.AMBI_TASK.name, eval_file, damaged)
        kwargs = self.prompt_kwargs()
        judge = judge_for(judge_kwargs)
        with run_state(judge=judge):  # this evaluation's judge and by-products, handed in, not installed
            scores = self.AMBI_TASK.evaluate(docs, preds, kwargs=kwargs, judge=judge, progress=True)
        info = judge.info()
        stem = str(Path(eval_file).with_suffix(""))
        entry = self.prompt_model if self.AMBI_TASK.has_entry(self.prompt_model) else "default"
        settings = {k: kwargs[k] for k in MODEL_SETTING_KEYS if k in kwargs}
        out = {
            "task": self.AMBI_TASK.name,
            "n": len(docs),
            "metrics": scores.metrics,
            "judge": info,
            "prompt_model": self.prompt_model,
            "prompt_entry": entry,
            "model_settings": settings,
            "prediction_format": Path(eval_file).suffix.lstrip(".").lower(),
            "damaged_answers": len(damaged),
        }
        Path(f"{stem}_score.json").write_text(json.dumps(out, indent=1, default=str) + "\n", encoding="utf-8")
        with open(f"{stem}_items.jsonl", "w", encoding="utf-8") as fh:
            for index, doc, item in zip(indices, docs, scores.items):
                row = {"index": index, "id": json.loads(doc["record"])["id"], "scores": item}
                if index in damaged:
                    row["damaged"] = damaged[index]
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        return dict(scores.metrics)


def first_per_index(rows, *, source: str) -> list[tuple[int, object]]:
    """(index, prediction) pairs with each index once, its first row in file order; the rows left out are
    counted in one warning on stderr (an index answered twice would be scored twice)."""
    import sys

    kept: dict[int, object] = {}
    extra: dict[int, int] = {}
    for index, prediction in rows:
        if int(index) in kept:
            extra[int(index)] = extra.get(int(index), 0) + 1
        else:
            kept[int(index)] = prediction
    if extra:
        shown = ", ".join(str(i) for i in list(extra)[:5]) + (" ..." if len(extra) > 5 else "")
        print(f"ambi-plugin: {source}: {sum(extra.values())} duplicate row(s) ignored, {len(extra)} index(es) given "
              f"more than once ({shown}); the first row of each index was scored", file=sys.stderr)  # fmt: skip
    return list(kept.items())


_WARNED: list[str] = []


def warn_damaged(task: str, eval_file: str, damaged: dict[int, str]) -> None:
    """One warning per process (the first task whose prediction file damaged answers); every task's count is
    in its score file (``damaged_answers``) and each damaged item is marked in its items file."""
    from ambi_plugin.vlmeval.predfile import LOSSLESS

    if _WARNED:
        return
    _WARNED.append(task)
    fmt = Path(eval_file).suffix.lstrip(".")
    first = damaged[min(damaged)]
    print(
        f"ambi-plugin: warning: the {fmt} prediction file {eval_file} damaged {len(damaged)} answer(s) of task "
        f"{task} (e.g. index {min(damaged)}: {first}); their scores may differ from lmms-eval's. "
        f"PRED_FORMAT={LOSSLESS} keeps answers exactly (the default of `ambi vlmeval`); every task's count is "
        "'damaged_answers' in its _score.json",
        file=sys.stderr,
        flush=True,
    )


def make_dataset_class(task: Task) -> type[AmbiTaskDataset]:
    """A subclass of :class:`AmbiTaskDataset` for ``task``, named after it (PascalCase)."""
    name = class_name(task.name)
    doc = f"VLMEvalKit dataset {task.name!r} ({task.benchmark}), generated from {task.source}."
    return type(name, (AmbiTaskDataset,), {"AMBI_TASK": task, "__doc__": doc, "__module__": __name__})


__all__ = [
    "AmbiDatasetError",
    "AmbiTaskDataset",
    "MultiImageRefused",
    "class_name",
    "live_dataset",
    "make_dataset_class",
    "warn_damaged",
]
