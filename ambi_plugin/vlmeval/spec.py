"""What a VLMEvalKit dataset class needs to know about one of our tasks, read from its task YAML.

The task YAMLs (``task_yamls/<benchmark>/*.yaml``) are the one description of every task: records
(``dataset_path`` / ``dataset_name``), prompt (``lmms_eval_specific_kwargs``), whether images are
interleaved with the text (``doc_to_messages``), the per-item scorer (``process_results``) and the
metrics with their aggregations (``metric_list``). This module reads them without lmms-eval or
VLMEvalKit, so a new benchmark or category that ships a YAML is covered without new code.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from ambi_plugin.core.jsonl import read_jsonl
from ambi_plugin.runtime.taskindex import TaskInfo, index

FUNCTION_TAG = "!function "
DEFAULT_PROCESS = "ambi_plugin.runtime.hooks.process_results"
DEFAULT_HOOKS = {
    "doc_to_visual": "ambi_plugin.runtime.hooks.doc_to_visual",
    "doc_to_text": "ambi_plugin.runtime.hooks.doc_to_text",
    "doc_to_target": "ambi_plugin.runtime.hooks.doc_to_target",
}


class TaskSpecError(ValueError):
    """A task YAML cannot drive a VLMEvalKit dataset class (the message names the file and key)."""


@dataclass(frozen=True)
class MetricSpec:
    name: str
    aggregation: str  # dotted path of the aggregation function
    higher_is_better: bool = True


@dataclass(frozen=True)
class VlmevalTask:
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
    source: str = ""  # the YAML file

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


def spec_from_info(info: TaskInfo) -> VlmevalTask:
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
                aggregation=_dotted(entry.get("aggregation"), key=f"metric_list[{name}].aggregation", source=source),
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
    return VlmevalTask(
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
        source=source,
    )


def read_docs(spec: VlmevalTask) -> list[dict]:
    """The task's harness rows (one per record, in order), as lmms-eval loads them."""
    from ambi_plugin.data.sources import resolve_jsonl

    return read_jsonl(resolve_jsonl(spec.dataset_path, spec.dataset_name), what="harness rows file", objects=True)


def all_specs() -> dict[str, VlmevalTask]:
    """A spec for every task YAML we ship (groups are expanded by the launcher, not turned into classes)."""
    return {name: spec_from_info(info) for name, info in index().items() if info.kind == "task"}


__all__ = [
    "MetricSpec",
    "TaskSpecError",
    "VlmevalTask",
    "all_specs",
    "read_docs",
    "resolve_function",
    "spec_from_info",
]
