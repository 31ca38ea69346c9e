"""A VLMEvalKit dataset class for one of our tasks, generated from its :class:`~ambi_plugin.vlmeval.spec.TaskSpec`.

The class is an ``ImageBaseDataset`` with ``force_use_dataset_prompt = True`` (a model's own prompt
would replace the paper's), type ``VQA`` (run.py then names no default judge, see
:mod:`ambi_plugin.vlmeval.judges`) and one dataset name, the task's. It reads the same harness rows
lmms-eval reads (:func:`ambi_plugin.lmms.datasets.resolve_jsonl`: records validated, image paths made
absolute), builds each message with the lmms-eval hooks (:mod:`ambi_plugin.vlmeval.messages`) and
scores with the YAML's own ``process_results`` and aggregations (:mod:`ambi_plugin.vlmeval.scoring`).
``evaluate`` writes ``<prediction file>_score.json`` (metrics, judge, item count) and
``<prediction file>_items.jsonl`` (every item score) next to VLMEvalKit's prediction file.
Importing this module imports VLMEvalKit; :func:`ambi_plugin.vlmeval.register` does it lazily.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from vlmeval.dataset.image_base import ImageBaseDataset
from vlmeval.smp import load

from ambi_plugin.vlmeval.spec import TaskSpec, read_docs


class AmbiDatasetError(ValueError):
    """A prediction file that does not fit the task (names the file and the rows)."""


def class_name(task: str) -> str:
    """``ambi_synth_geometric_tf`` -> ``AmbiSynthGeometricTf``."""
    return "".join(part[:1].upper() + part[1:] for part in task.split("_") if part)


class AmbiTaskDataset(ImageBaseDataset):
    """Base of the generated classes; each subclass sets ``AMBI_SPEC``."""

    TYPE = "VQA"
    MODALITY = "IMAGE"
    force_use_dataset_prompt = True
    AMBI_SPEC: TaskSpec

    @classmethod
    def supported_datasets(cls) -> list[str]:
        spec = getattr(cls, "AMBI_SPEC", None)
        return [spec.name] if spec is not None else []

    def __init__(self, dataset: str | None = None, skip_noimg: bool = False) -> None:
        name = dataset or self.AMBI_SPEC.name
        if name != self.AMBI_SPEC.name:
            raise ValueError(f"{type(self).__name__} holds the task {self.AMBI_SPEC.name!r}, not {name!r}")
        super().__init__(dataset=name, skip_noimg=False)

    # -- data ---------------------------------------------------------------------------------------------
    def prompt_kwargs(self) -> dict:
        return self.AMBI_SPEC.prompt_kwargs_for(None)

    def load_data(self, dataset: str) -> pd.DataFrame:
        from ambi_plugin.lmms import hooks
        from ambi_plugin.vlmeval.taskhooks import TaskHooks

        self.docs = read_docs(self.AMBI_SPEC)
        self.hooks = TaskHooks(self.AMBI_SPEC, self.prompt_kwargs())
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

        return build(self.hooks, self.doc_of(line))

    def dump_image(self, line) -> list[str]:
        return [m["value"] for m in self.build_prompt(line) if m["type"] == "image"]

    # -- scoring ------------------------------------------------------------------------------------------
    def predictions(self, eval_file: str) -> tuple[list[dict], list]:
        """The docs the prediction file answers (in index order) and their predictions."""
        data = load(eval_file)
        if "index" not in data or "prediction" not in data:
            raise AmbiDatasetError(f"{eval_file}: a VLMEvalKit prediction file needs 'index' and 'prediction' columns")
        pairs = sorted((int(i), p) for i, p in zip(data["index"], data["prediction"]))
        bad = [i for i, _ in pairs if not 0 <= i < len(self.docs)]
        if bad:
            raise AmbiDatasetError(
                f"{eval_file}: index {bad[:5]} not among the {len(self.docs)} records of {self.AMBI_SPEC.name} "
                "(was the file written for another version of the task's data?)"
            )
        return [self.docs[i] for i, _ in pairs], [p for _, p in pairs]

    def evaluate(self, eval_file: str, **judge_kwargs) -> dict[str, float]:
        from ambi_plugin.vlmeval.judges import judge_for
        from ambi_plugin.vlmeval.scoring import score_task

        docs, preds = self.predictions(eval_file)
        with judge_for(judge_kwargs) as judge:
            scores = score_task(self.AMBI_SPEC, docs, preds, progress=True)
            info = judge.info()
        stem = str(Path(eval_file).with_suffix(""))
        out = {"task": self.AMBI_SPEC.name, "n": len(docs), "metrics": scores.metrics, "judge": info}
        Path(f"{stem}_score.json").write_text(json.dumps(out, indent=1, default=str) + "\n", encoding="utf-8")
        with open(f"{stem}_items.jsonl", "w", encoding="utf-8") as fh:
            for doc, item in zip(docs, scores.items):
                row = {"id": json.loads(doc["record"])["id"], "scores": next(iter(item.values()), None)}
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        return dict(scores.metrics)


def make_dataset_class(spec: TaskSpec) -> type[AmbiTaskDataset]:
    """A subclass of :class:`AmbiTaskDataset` for ``spec``, named after the task (PascalCase)."""
    name = class_name(spec.name)
    doc = f"VLMEvalKit dataset {spec.name!r} ({spec.benchmark}), generated from {spec.source}."
    return type(name, (AmbiTaskDataset,), {"AMBI_SPEC": spec, "__doc__": doc, "__module__": __name__})


__all__ = ["AmbiDatasetError", "AmbiTaskDataset", "class_name", "make_dataset_class"]
