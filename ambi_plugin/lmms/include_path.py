"""Our task folders on lmms-eval's include path: ``task_yamls/`` and the user's folders in ``$AMBI_TASKS_PATH``.

The ``TaskManager.initialize_tasks`` patch (:mod:`ambi_plugin.lmms.patches`) hands lmms-eval's ``include_path``
through :func:`with_our_path`, so ``lmms-eval --tasks ambi_synth_all`` works in a fresh process, under
``python -m lmms_eval`` and ``accelerate launch -m lmms_eval`` alike; ``--include_path "$(ambi tasks-path)"`` keeps
working (a folder already given is not added twice).
"""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger("ambi_plugin")


def tasks_path() -> str:
    from ambi_plugin.paths import tasks_dir

    return str(tasks_dir())


def our_yamls_are_readable(ours: str) -> bool:
    """One malformed YAML under an include path breaks lmms-eval's whole task index: check ours first."""
    from pathlib import Path

    from ambi_plugin.runtime.taskindex import TaskYamlError, index

    try:
        idx = index(Path(ours))
    except TaskYamlError as exc:
        log.error("ambi-plugin: our tasks are disabled until this is fixed: %s", exc)
        print(f"ambi-plugin: our tasks are disabled until this is fixed: {exc}", file=sys.stderr)
        return False
    try:  # a key lmms-eval rejects breaks that task only: name file, task and key (lmms-eval names the key alone)
        from ambi_plugin.lmms.config_keys import lmms_eval_keys
        from ambi_plugin.runtime.taskindex import unknown_keys

        for problem in unknown_keys(idx, *lmms_eval_keys()):
            log.error("ambi-plugin: %s", problem)
            print(f"ambi-plugin: {problem}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - a check must not break lmms-eval's task index
        log.warning("ambi-plugin: could not check our task YAMLs' keys (%s: %s)", type(exc).__name__, exc)
    return True


def with_our_path(include_path):
    """lmms-eval's ``include_path`` (None, a folder or a list; kept first, as given) with our folders after it."""
    ours = tasks_path()
    if not our_yamls_are_readable(ours):
        return include_path
    from ambi_plugin.runtime.taskindex import user_task_dirs

    extra = [ours, *(str(d) for d in user_task_dirs())]  # $AMBI_TASKS_PATH: the user's own categories
    paths = [] if include_path is None else [include_path] if isinstance(include_path, str) else list(include_path)
    norm = {os.path.realpath(p) for p in paths}
    for path in extra:
        if os.path.realpath(path) not in norm:
            paths.append(path)
            norm.add(os.path.realpath(path))
    return paths


__all__ = ["our_yamls_are_readable", "tasks_path", "with_our_path"]
