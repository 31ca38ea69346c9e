"""What lets a new category be a YAML file alone: derived metrics and joining a group of ours by a key.

Both are the logic of two patches of :mod:`ambi_plugin.lmms.patches` (``ConfigurableTask.download`` and
``TaskManager._get_config``); each touches only tasks that are ours (``dataset_path: ambi://...``) or groups that are
ours (their YAML lies in our ``task_yamls/``), and never raises into lmms-eval.

* **Derived metrics.** After a task of ours has loaded its rows, every metric its ``process_results`` reports for
  them (the task type's metrics, ``acc_<view>`` for each positional view in the data, breakdowns) that the YAML's
  ``metric_list`` does not name is added, with the matching ``ambi_plugin.runtime.aggregate`` function. A YAML that
  includes a task-type template therefore needs no ``metric_list`` at all.
* **Joining a group.** A task YAML (anywhere on the include path) that sets ``metadata: {join_groups: [G, ...]}``
  becomes a member of each group ``G`` of ours (``ambibench_all``, ``ambibench_color`` ...) whenever lmms-eval
  loads that group. lmms-eval 0.7.3 reads a group's members from the group's YAML when it loads the group
  (``TaskManager._get_config``); the wrapper adds the joining tasks to that list, for our groups only.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("ambi_plugin")

JOIN_KEY = "join_groups"


# ----------------------------------------------------------------------------- derived metrics


_VIEW_TYPES = frozenset({"open", "region"})  # their metric names also follow each record's views


def _names_follow_task_type(process) -> bool:
    """Whether ``process`` (a task's process_results) reports the metric names of the record's task type alone."""
    return not callable(getattr(process, "metric_names", None)) and not getattr(process, "breakdown_fields", ())


def derived_metrics(task) -> list[str]:
    """Metric names the task's rows report that its metric list lacks (in first-seen order)."""
    from ambi_plugin.data.no_records import no_records_reason
    from ambi_plugin.runtime.hooks import expected_metrics

    if no_records_reason(task) is not None:  # a stand-in row, no records (data/sources.py)
        return []
    cfg = task.config
    split = cfg.test_split or "test"
    dataset = getattr(task, "dataset", None)
    if dataset is None or split not in dataset:
        return []
    have = set(getattr(task, "_metric_fn_list", {}) or {})
    names: dict[str, None] = {}
    rows = dataset[split]
    # our harness rows carry the record as JSON: read that one column straight from Arrow (row dicts, or iterating
    # the datasets column, cost far more)
    if "record" in rows.column_names:
        column = rows.with_format("arrow")
        raws = column["record"].to_pylist()
        if _names_follow_task_type(cfg.process_results) and "task_type" in rows.column_names:
            # without breakdown fields, a closed-answer record's metric names are its task type's (core/scoring.py
            # metric_names): one record of each task type says them all
            first: dict[str, int] = {}
            for i, ttype in enumerate(column["task_type"].to_pylist()):
                first.setdefault(ttype, i)
            if not first.keys() & _VIEW_TYPES:
                raws = [raws[i] for i in first.values()]
        docs = ({"record": raw} for raw in raws)
    else:
        docs = rows
    for doc in docs:
        for name in expected_metrics(doc, cfg.process_results):
            if name not in have:
                names.setdefault(name)
    return list(names)


def add_derived_metrics(task) -> list[str]:
    """Add the derived metrics to a task of ours (aggregation from ``ambi_plugin.runtime.aggregate``)."""
    from ambi_plugin.core.scoring import HIGHER_IS_BETTER, _split_name
    from ambi_plugin.runtime import aggregate

    added = derived_metrics(task)
    for name in added:
        base = name if name in HIGHER_IS_BETTER else (_split_name(name) or (name, ""))[0]
        higher = HIGHER_IS_BETTER.get(base, True)
        agg = getattr(aggregate, name)
        task._metric_fn_list[name] = None
        task._metric_fn_kwargs[name] = {}
        task._aggregation_list[name] = agg
        task._higher_is_better[name] = higher
        if task.config.metric_list is not None:
            task.config.metric_list.append({"metric": name, "aggregation": agg, "higher_is_better": higher})
    return added


def derive_metrics(task) -> None:
    """After ``download``: the derived metrics of a task reading ``ambi://`` (never raises: a warning says why not)."""
    if not str(getattr(task.config, "dataset_path", "") or "").startswith("ambi://"):
        return
    try:
        add_derived_metrics(task)
    except Exception as exc:  # noqa: BLE001 - never break a run over an optional convenience
        log.warning("ambi-plugin: could not derive metrics of %s (%s: %s)", task.config.task, type(exc).__name__, exc)


# ----------------------------------------------------------------------------- joining a group


def _is_ours(yaml_path) -> bool:
    from ambi_plugin.paths import tasks_dir

    if not isinstance(yaml_path, str):
        return False
    ours = os.path.realpath(tasks_dir())
    return os.path.realpath(yaml_path).startswith(ours + os.sep)


def joining_tasks(manager, group: str) -> list[str]:
    """Tasks of the manager's index outside lmms-eval's own folder that declare ``metadata.join_groups: group``."""
    from lmms_eval import utils

    builtin = os.path.realpath(os.path.dirname(utils.__file__)) + os.sep + "tasks" + os.sep
    cache = manager.__dict__.setdefault("_ambi_joins", None)
    if cache is None:
        cache = {}
        for name, entry in manager.task_index.items():
            path = entry.get("yaml_path")
            if entry.get("type") != "task" or not isinstance(path, str) or os.path.realpath(path).startswith(builtin):
                continue
            try:
                meta = utils.load_yaml_config(path, mode="simple").get("metadata") or {}
            except Exception:  # noqa: BLE001 - a YAML lmms-eval indexed but we cannot read is not ours to judge
                continue
            joins = meta.get(JOIN_KEY) if isinstance(meta, dict) else None
            for g in [joins] if isinstance(joins, str) else list(joins or []):
                cache.setdefault(str(g), []).append(name)
        manager._ambi_joins = cache
    inner = _groups_inside(group)  # a task that also joins a group nested in this one arrives through it
    return sorted(t for t in cache.get(group, []) if not any(t in cache.get(g, ()) for g in inner))


def _groups_inside(group: str) -> set[str]:
    """Our groups nested (at any depth) in one of our groups, from our own task index."""
    from ambi_plugin.runtime.taskindex import index

    try:
        idx = index()
    except Exception:  # noqa: BLE001 - an unreadable index of ours disables our tasks elsewhere
        return set()
    found: set[str] = set()
    todo = [group]
    while todo:
        info = idx.get(todo.pop())
        for member in info.members if info is not None and info.kind == "group" else ():
            if member not in found and member in idx and idx[member].kind == "group":
                found.add(member)
                todo.append(member)
    return found


def is_our_group(manager, name) -> bool:
    """``name`` is a group in the manager's index whose YAML lies in our ``task_yamls/``."""
    entry = manager.task_index.get(name) or {}
    return entry.get("type") == "group" and _is_ours(entry.get("yaml_path"))


def with_joining_tasks(manager, name: str, config):
    """A group of ours as lmms-eval's ``TaskManager._get_config`` read it, with the tasks that join it by
    ``metadata.join_groups`` added to its ``task`` list (a new dict; ``config`` itself is left as it is). Never
    raises: on a problem the group keeps its own members and a warning says why."""
    try:
        if isinstance(config.get("task"), list):
            extra = [t for t in joining_tasks(manager, name) if t not in config["task"]]
            if extra:
                return {**config, "task": [*config["task"], *extra]}
    except Exception as exc:  # noqa: BLE001 - never break task loading
        log.warning("ambi-plugin: group %s: could not add joining tasks (%s: %s)", name, type(exc).__name__, exc)
    return config


__all__ = [
    "JOIN_KEY",
    "add_derived_metrics",
    "derive_metrics",
    "derived_metrics",
    "joining_tasks",
    "is_our_group",
    "with_joining_tasks",
]
