"""``ambi validate-tasks``: check our task YAMLs with lmms-eval's own machinery.

* every YAML parses and its ``include:`` chain resolves;
* no task or group name of ours is also an lmms-eval built-in (built-ins win silently);
* every task builds through lmms-eval's ``TaskManager`` / ``get_task_dict`` (its own config class,
  so unknown keys fail), its dataset resolves, its prompt renders for every doc, and its
  ``metric_list`` names exactly the metrics ``process_results`` returns.
"""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.lmms.config_keys import lmms_eval_keys
from ambi_plugin.paths import tasks_dir
from ambi_plugin.runtime.taskindex import TaskYamlError, index, unknown_keys


def check_keys(root: Path | None = None) -> list[str]:
    """:func:`~ambi_plugin.runtime.taskindex.unknown_keys` of every task and group under ``root`` (default: ours);
    an unreadable YAML is one problem."""
    try:
        idx = index(root)
    except TaskYamlError as exc:
        return [str(exc)]
    return unknown_keys(idx, *lmms_eval_keys())


def builtin_task_names() -> set[str]:
    """Names of every task, group and tag lmms-eval ships (our folder left out)."""
    from ambi_plugin.lmms.patches import install_hooks

    install_hooks()
    from lmms_eval.tasks import TaskManager

    init = TaskManager.initialize_tasks
    original = getattr(init, "__wrapped__", init)
    tm = TaskManager.__new__(TaskManager)
    from lmms_eval.tasks import eval_logger

    tm.logger = eval_logger
    builtin = original(tm, include_path=None, include_defaults=True)
    ours = Path(tasks_dir()).resolve()
    return {name for name, entry in builtin.items() if not str(entry.get("yaml_path", "")).startswith(str(ours))}


def name_collisions() -> list[str]:
    ours = set(index())
    return sorted(ours & builtin_task_names())


def _check_loaded(name: str, task) -> list[str]:
    from ambi_plugin.runtime.hooks import doc_to_text, expected_metrics

    problems = []
    declared = [m["metric"] for m in (task.config.metric_list or [])]
    docs = task.test_docs() if task.has_test_docs() else task.validation_docs()
    if docs is None or len(docs) == 0:
        return [f"{name}: its dataset has no documents"]
    kwargs = task.lmms_eval_specific_kwargs if hasattr(task, "lmms_eval_specific_kwargs") else None
    seen: set[str] = set()
    for doc in docs:
        got = expected_metrics(doc, task.config.process_results)
        seen.update(got)
        extra = sorted(set(got) - set(declared))
        if extra:
            problems.append(
                f"{name}: process_results returns {extra}, which metric_list does not declare (doc id {doc.get('id')})"
            )
            break
        try:
            doc_to_text(doc, kwargs)
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            problems.append(f"{name}: prompt does not render for doc id {doc.get('id')}: {exc}")
            break
    unused = sorted(set(declared) - seen)
    if unused and not problems:
        problems.append(f"{name}: metric_list declares {unused}, which no document reports")
    return problems


def validate_tasks(*, load: bool = True, skipped: list[str] | None = None) -> list[str]:
    """Return a list of problems (empty = all good).

    A task whose benchmark data is not available here (no local copy, Hub release not cached:
    ``DataUnavailableError``) cannot be loaded; it is not a problem of its YAML and is appended to
    ``skipped`` (with the reason) instead.
    """
    try:
        ours = index()
    except TaskYamlError as exc:
        return [str(exc)]
    problems = [f"name {n!r} is also an lmms-eval built-in; rename ours" for n in name_collisions()]
    if not load:
        return problems
    from lmms_eval.tasks import TaskManager, get_task_dict

    tm = TaskManager()
    for name, info in sorted(ours.items()):
        if info.kind != "task":
            continue
        try:
            tdict = get_task_dict([name], tm)
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            from ambi_plugin.benchmarks.hub import DataUnavailableError

            if isinstance(exc, DataUnavailableError):
                if skipped is not None:
                    skipped.append(f"{name}: {exc}")
                continue
            problems.append(f"{name} ({info.path}): lmms-eval cannot build it: {type(exc).__name__}: {exc}")
            continue
        problems.extend(_check_loaded(name, tdict[name]))
    return problems
