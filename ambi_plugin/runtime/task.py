"""One task, harness-neutral: what its YAML says, its prompt, and its evaluation. The one task route.

The task YAMLs (``task_yamls/<benchmark>/*.yaml``) are the one description of every task: records
(``dataset_path`` / ``dataset_name``), prompt (``lmms_eval_specific_kwargs``), whether images are interleaved with
the text (``doc_to_messages``), the per-item scorer (``process_results``) and the metrics with their aggregations
(``metric_list``). :class:`Task` is that description, read once from the task index (no lmms-eval, no VLMEvalKit):

* :meth:`Task.prompt` gives the YAML's own ``doc_to_*`` functions called the way lmms-eval 0.7 calls them;
* :meth:`Task.evaluate` scores docs answered by responses as lmms-eval does: each response cleaned as lmms-eval
  cleans it, the YAML's ``process_results`` per doc while the task's kwargs (and a judge handed in) are current
  (:mod:`ambi_plugin.runtime.task_kwargs`), the YAML's aggregation of each metric, and lmms-eval's CLT stderr.

lmms-eval calls the same functions through the YAML itself; the VLMEvalKit adapter (:mod:`ambi_plugin.vlmeval`) and
``ambi score`` (:mod:`ambi_plugin.reports.rescore`) call them through this module, so a task scores the same in all
three. A doc is a harness row (:func:`ambi_plugin.data.sources.harness_rows`); ``ambi_plugin.data.taskdocs`` reads
a task's docs or turns records in hand into docs.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ambi_plugin.runtime.taskindex import TaskInfo, index

FUNCTION_TAG = "!function "
DEFAULT_PROCESS = "ambi_plugin.runtime.hooks.process_results"
DEFAULT_HOOKS = {
    "doc_to_visual": "ambi_plugin.runtime.hooks.doc_to_visual",
    "doc_to_text": "ambi_plugin.runtime.hooks.doc_to_text",
    "doc_to_target": "ambi_plugin.runtime.hooks.doc_to_target",
}


class TaskSpecError(ValueError):
    """A task YAML that cannot drive a task outside lmms-eval (the message names the file and key)."""


@dataclass(frozen=True)
class MetricSpec:
    name: str
    aggregation: str  # dotted path of the aggregation function
    higher_is_better: bool = True


@dataclass(frozen=True)
class Task:
    name: str
    benchmark: str
    dataset_path: str
    dataset_name: str
    prompt_kwargs: dict[str, Any] = field(default_factory=dict)
    process_results: str = DEFAULT_PROCESS
    metrics: tuple[MetricSpec, ...] = ()
    interleaved: bool = False  # the YAML sets doc_to_messages: images go where the prompt places them
    hooks: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_HOOKS))  # doc_to_* -> dotted path
    generation_kwargs: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # the YAML file

    @classmethod
    def from_info(cls, info: TaskInfo) -> Task:
        """The task of one index entry (its YAML with its ``include:`` chain merged)."""
        cfg, source = info.config, str(info.path)
        path = cfg.get("dataset_path")
        if not isinstance(path, str) or not path.startswith("ambi://"):
            raise TaskSpecError(f"{source}: dataset_path must be an ambi:// source, got {path!r}")
        metrics = []
        for entry in cfg.get("metric_list") or []:
            name = entry.get("metric")
            metrics.append(
                MetricSpec(
                    name=str(name),
                    aggregation=_dotted(
                        entry.get("aggregation"), key=f"metric_list[{name}].aggregation", source=source
                    ),
                    higher_is_better=bool(entry.get("higher_is_better", True)),
                )
            )
        if not metrics:
            raise TaskSpecError(f"{source}: the task has no metric_list")
        process = cfg.get("process_results")
        hooks = dict(DEFAULT_HOOKS)
        for key in (*DEFAULT_HOOKS, "doc_to_messages"):
            if cfg.get(key) is not None:
                hooks[key] = _dotted(cfg[key], key=key, source=source)
        return cls(
            name=info.name,
            benchmark=info.benchmark,
            dataset_path=path,
            dataset_name=str(cfg.get("dataset_name") or info.name),
            prompt_kwargs=dict(cfg.get("lmms_eval_specific_kwargs") or {}),
            process_results=_dotted(process, key="process_results", source=source) if process else DEFAULT_PROCESS,
            metrics=tuple(metrics),
            interleaved="doc_to_messages" in hooks,
            hooks=hooks,
            generation_kwargs=dict(cfg.get("generation_kwargs") or {}),
            metadata=dict(cfg.get("metadata") or {}),
            source=source,
        )

    # -- prompt -------------------------------------------------------------------------------------------
    def prompt_kwargs_for(self, model: str | None = None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
        """The YAML's prompt settings for ``model`` (an lmms-eval model name) when the YAML has an entry for it,
        updated with ``settings``; else ``default``, unchanged (what lmms-eval uses for any other model)."""
        own = self.prompt_kwargs.get(model) if model else None
        if own:
            return {**own, **(settings or {})}
        return dict(self.prompt_kwargs.get("default") or {})

    def has_entry(self, model: str | None) -> bool:
        """Whether the YAML has a per-model entry for ``model`` (other than ``default``)."""
        return bool(model) and model != "default" and bool(self.prompt_kwargs.get(model))

    def prompt(self, kwargs: dict[str, Any] | None = None, *, model: str | None = None) -> TaskPrompt:
        """The YAML's prompt hooks bound to ``kwargs`` (else the entry for ``model``, else ``default``)."""
        return TaskPrompt(self, self.prompt_kwargs_for(model) if kwargs is None else kwargs)

    @property
    def own_visuals(self) -> bool:
        """The YAML names a ``doc_to_visual`` of its own (not the runtime's: the record's images, in order)."""
        return self.hooks["doc_to_visual"] != DEFAULT_HOOKS["doc_to_visual"]

    # -- evaluation ---------------------------------------------------------------------------------------
    @property
    def metric_names(self) -> list[str]:
        """The metrics the YAML's ``metric_list`` declares, in its order."""
        return [m.name for m in self.metrics]

    def process_function(self):
        """The YAML's ``process_results`` function."""
        return resolve_function(self.process_results)

    def evaluate(
        self,
        docs: Sequence[dict],
        responses: Sequence[Any],
        *,
        model: str | None = None,
        kwargs: dict | None = None,
        judge=None,
        progress: bool | str = False,
    ) -> Evaluation:
        """Metrics of this task over ``docs`` answered by ``responses`` (same order, same length), scored with the
        YAML's prompt kwargs for ``model`` (an lmms-eval model name; ``default`` when None) or with ``kwargs``, and
        with ``judge`` where an item needs one (None: the judge layer's default, as in a run). ``progress``: a
        progress bar on stderr, labelled ``score <task>`` (True) or with the text given."""
        from ambi_plugin.runtime import task_kwargs

        if len(docs) != len(responses):
            raise ValueError(f"task {self.name}: {len(docs)} docs but {len(responses)} responses")
        process = self.process_function()
        kwargs = self.prompt_kwargs_for(model) if kwargs is None else kwargs
        collected: dict[str, list] = {}
        items: list[dict] = []
        rows = zip(docs, responses)
        if progress:
            from tqdm import tqdm

            label = progress if isinstance(progress, str) else f"score {self.name}"
            rows = tqdm(rows, total=len(docs), desc=label, unit="item")
        with task_kwargs.using(kwargs, judge=judge):
            for doc, response in rows:
                out = process(doc, [clean_response(response)])
                for value in out.values():  # each item says its task, as under lmms-eval (the unparsed examples' key)
                    if isinstance(value, dict):
                        value.setdefault("task", self.name)
                items.append(out)
                for name, value in out.items():
                    collected.setdefault(name, []).append(value)
        aggregated: dict[str, float] = {}
        for metric in self.metrics:
            if metric.name in collected:
                aggregated[metric.name] = float(resolve_function(metric.aggregation)(collected[metric.name]))
        stderr: dict[str, float] = {}
        for metric in self.metrics:  # after every metric, in lmms-eval's order of keys
            if metric.name in collected:
                value = clt_stderr(collected[metric.name])
                if value is not None:
                    stderr[f"{metric.name}_stderr_clt"] = value
        return Evaluation(self.name, aggregated, stderr, items)


@dataclass
class Evaluation:
    """What :meth:`Task.evaluate` gives: the YAML's metrics, their CLT stderr, and every doc's ``process_results``."""

    task: str
    aggregated: dict[str, float]  # metric_list name -> its aggregation over the items that reported it
    stderr: dict[str, float] = field(default_factory=dict)  # "<metric>_stderr_clt" -> lmms-eval's CLT stderr
    items: list[dict] = field(default_factory=list)  # per doc: the metric-name -> item score map

    @property
    def metrics(self) -> dict[str, float]:
        """Every number a harness reports for the task: the metrics, then their stderr (lmms-eval's order)."""
        return {**self.aggregated, **self.stderr}

    @property
    def item_scores(self) -> list[dict]:
        """One item score per doc: the first one its ``process_results`` gave (our hooks give every metric of a doc
        the same item score); {} for a doc that gave none."""
        return [next((v for v in out.values() if isinstance(v, dict)), {}) for out in self.items]


@dataclass
class TaskPrompt:
    """A task YAML's own ``doc_to_*`` functions, called the way lmms-eval 0.7 calls them.

    ``doc_to_text(doc, kwargs)``; ``doc_to_visual(doc, kwargs)`` when it takes two parameters, else
    ``doc_to_visual(doc)``; ``doc_to_messages(doc, lmms_eval_specific_kwargs=kwargs)`` when it takes them;
    ``doc_to_target(doc)``. A benchmark with hooks of its own (VIA-Bench's system prompts and blind variant) is
    thus prompted outside lmms-eval exactly as in it, with no code in the caller.
    """

    task: Task
    kwargs: dict[str, Any]

    def _fn(self, name: str):
        return resolve_function(self.task.hooks[name])

    def text(self, doc: dict) -> str:
        return self._fn("doc_to_text")(doc, self.kwargs)

    def visuals(self, doc: dict) -> list:
        fn = self._fn("doc_to_visual")
        return list(fn(doc, self.kwargs) if len(inspect.signature(fn).parameters) == 2 else fn(doc))

    def target(self, doc: dict) -> str:
        return str(self._fn("doc_to_target")(doc))

    def messages(self, doc: dict) -> list[dict]:
        fn = self._fn("doc_to_messages")
        params = inspect.signature(fn).parameters
        takes = "lmms_eval_specific_kwargs" in params or len(params) == 2
        takes = takes or any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())
        return fn(doc, lmms_eval_specific_kwargs=self.kwargs) if takes else fn(doc)


def _dotted(value: Any, *, key: str, source: str) -> str:
    if not isinstance(value, str) or not value.startswith(FUNCTION_TAG):
        raise TaskSpecError(f"{source}: `{key}` must be a `!function <module>.<name>` reference, got {value!r}")
    return value[len(FUNCTION_TAG) :].strip()


def resolve_function(dotted: str):
    """Import ``package.module.name`` (a YAML's ``!function`` target)."""
    module, _, attr = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise TaskSpecError(f"cannot import {dotted!r} named by a task YAML ({exc})") from None


def all_tasks() -> dict[str, Task]:
    """A task for every task YAML we index (groups are expanded by the callers, not turned into tasks)."""
    return {name: Task.from_info(info) for name, info in index().items() if info.kind == "task"}


def clean_response(value: Any) -> str:
    """A response as lmms-eval hands it to ``process_results``: text, stripped; missing (None / NaN) is empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def clt_stderr(items: Sequence[Any], score_key: str = "score") -> float | None:
    """lmms-eval's naive CLT standard error, reported beside a metric so every caller gives the same numbers.

    lmms-eval 0.7 computes it for every metric from the items that are numbers or dicts with a ``score``
    field (our description items): ``std(ddof=1) / sqrt(n)``; with fewer than two such items it reports
    "N/A" (here: None, nothing reported). Note it measures the spread of that ``score`` field, whatever the
    metric's own aggregation is.
    """
    import numpy as np

    values = [x if isinstance(x, (int, float)) else x[score_key] for x in items if _numeric_or_scored(x, score_key)]
    if len(values) < 2:
        return None
    return float(np.std(values, ddof=1) / np.sqrt(len(values)))


def _numeric_or_scored(x: Any, score_key: str) -> bool:
    return isinstance(x, (int, float)) or (isinstance(x, dict) and score_key in x)


__all__ = [
    "DEFAULT_HOOKS",
    "Evaluation",
    "MetricSpec",
    "Task",
    "TaskPrompt",
    "TaskSpecError",
    "all_tasks",
    "clean_response",
    "clt_stderr",
    "resolve_function",
]
