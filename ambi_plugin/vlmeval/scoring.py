"""Score one task's responses exactly as lmms-eval does, through the task YAML's own hooks.

For every doc (a harness row, :mod:`ambi_plugin.data.sources`) the YAML's ``process_results`` gets
the stripped response (lmms-eval strips generated text and turns ``None`` into ``""``) while the
task's prompt kwargs are current (:mod:`ambi_plugin.runtime.task_kwargs`, as the lmms-eval hook does);
each metric the docs report is reduced by the YAML's aggregation function. Nothing here parses or
scores: that is ``core.scoring`` behind the hooks, so both harnesses give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ambi_plugin.vlmeval.spec import VlmevalTask, resolve_function


def clean_response(value: Any) -> str:
    """A prediction as lmms-eval hands it to scoring: text, stripped; missing (None / NaN) is empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


@dataclass
class TaskScores:
    task: str
    metrics: dict[str, float]
    items: list[dict] = field(default_factory=list)  # per doc: the metric-name -> item score map


def score_task(
    spec: VlmevalTask,
    docs: Sequence[dict],
    responses: Sequence[Any],
    *,
    model: str | None = None,
    kwargs: dict | None = None,
    progress: bool = False,
) -> TaskScores:
    """Metrics of ``spec`` over ``docs`` answered by ``responses`` (same order, same length), scored with the
    YAML's prompt kwargs for ``model`` (an lmms-eval model name; ``default`` when None) or with ``kwargs``."""
    from ambi_plugin.runtime import task_kwargs

    if len(docs) != len(responses):
        raise ValueError(f"task {spec.name}: {len(docs)} docs but {len(responses)} responses")
    process = resolve_function(spec.process_results)
    kwargs = spec.prompt_kwargs_for(model) if kwargs is None else kwargs
    collected: dict[str, list] = {}
    items: list[dict] = []
    rows = zip(docs, responses)
    if progress:
        from tqdm import tqdm

        rows = tqdm(rows, total=len(docs), desc=f"score {spec.name}")
    for doc, response in rows:
        with task_kwargs.using(kwargs):
            out = process(doc, [clean_response(response)])
        for value in out.values():  # each item says its task, as under lmms-eval (the unparsed examples' key)
            if isinstance(value, dict):
                value.setdefault("task", spec.name)
        items.append(out)
        for name, value in out.items():
            collected.setdefault(name, []).append(value)
    metrics: dict[str, float] = {}
    for metric in spec.metrics:
        if metric.name in collected:
            metrics[metric.name] = float(resolve_function(metric.aggregation)(collected[metric.name]))
    for metric in spec.metrics:  # after every metric, in lmms-eval's order of keys
        if metric.name in collected:
            stderr = clt_stderr(collected[metric.name])
            if stderr is not None:
                metrics[f"{metric.name}_stderr_clt"] = stderr
    return TaskScores(spec.name, metrics, items)


def clt_stderr(items: Sequence[Any], score_key: str = "score") -> float | None:
    """lmms-eval's naive CLT standard error, reported beside a metric so both harnesses give the same numbers.

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


__all__ = ["TaskScores", "clean_response", "clt_stderr", "score_task"]
