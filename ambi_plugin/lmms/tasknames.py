"""Task names that look like ours: the check ``ambi eval`` makes before it starts lmms-eval, and the one our
``TaskManager.match_tasks`` patch makes inside plain lmms-eval (:func:`stop_on_unknown_names_like_ours`, from
:mod:`ambi_plugin.lmms.patches`).

A name that looks like ours (every task and group of ours starts with ``ambi``: ``ambi_synth_*``,
``ambibench_*`` ...) and is not known gets "did you mean" and exit code 2 instead of lmms-eval's traceback and
exit 0. Known are our tasks and groups, the user's folders in ``$AMBI_TASKS_PATH``, and every folder or YAML file
given to lmms-eval's own ``--include_path`` (``--include_path X`` and ``--include_path=X``, each occurrence).
A name that does not look like ours is never touched: lmms-eval answers it as it always does.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

INCLUDE_OPTION = "--include_path"


def looks_like_ours(name: object) -> bool:
    """``ambi...`` in any case, not a glob pattern, not a file or folder (lmms-eval also takes a YAML path)."""
    return (
        isinstance(name, str)
        and name.lower().startswith("ambi")
        and not any(c in name for c in "*?[")
        and not os.path.exists(name)
    )


def include_paths(argv: Sequence[str]) -> list[str]:
    """Every ``--include_path`` value in ``argv``, in order (both spellings; several occurrences)."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        if arg == INCLUDE_OPTION and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif arg.startswith(INCLUDE_OPTION + "="):
            out.append(arg.split("=", 1)[1])
    return out


def _names_in(cfg: dict) -> list[str]:
    """The names lmms-eval registers from one YAML: its task, group and tags, and inline tasks of a group."""
    names: list[str] = []
    for key in ("task", "group", "tag"):
        value = cfg.get(key)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str):
                names.append(item)
            elif isinstance(item, dict) and isinstance(item.get("task"), str):
                names.append(item["task"])
    return names


def declared_names(path: str | os.PathLike) -> set[str]:
    """Task, group and tag names the YAMLs under ``path`` (a folder or one YAML) declare. A YAML that cannot be read
    is passed over here (lmms-eval names it when it indexes the folder)."""
    from ambi_plugin.runtime.taskindex import TaskYamlError, load_yaml

    root = Path(path).expanduser()
    files = sorted(root.rglob("*.yaml")) if root.is_dir() else [root] if root.is_file() else []
    names: set[str] = set()
    for file in files:
        try:
            names.update(_names_in(load_yaml(file)))
        except (TaskYamlError, OSError, ValueError, TypeError):
            continue
    return names


def known_names(argv: Sequence[str] = ()) -> list[str]:
    """Our tasks and groups (with ``$AMBI_TASKS_PATH``), and the names declared under ``argv``'s include paths."""
    from ambi_plugin.runtime.taskindex import index

    names = set(index())
    for path in include_paths(argv):
        names |= declared_names(path)
    return sorted(names)


def unknown_task_message(name: str, known: Iterable[str]) -> str:
    """``unknown task 'x'; did you mean a, b?`` (the closest names that look like ours), else where to list them."""
    candidates = [n for n in known if isinstance(n, str) and n.lower().startswith("ambi")]
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; list them with: ambi tasks"
    return f"unknown task {name!r}{hint}"


def first_unknown(requested: Iterable[str], known: Iterable[str]) -> str | None:
    """The first requested name that looks like ours and is not known, as :func:`unknown_task_message`."""
    known = list(known)
    names = set(known)
    for name in requested:
        if looks_like_ours(name) and name not in names:
            return unknown_task_message(name, known)
    return None


def stop_on_unknown_names_like_ours(manager, requested, matched) -> None:
    """Inside lmms-eval, after ``TaskManager.match_tasks``: a requested name that looks like ours (``ambi...``) and
    matched nothing stops the run with "did you mean" and exit code 2 (lmms-eval alone prints a traceback and exits
    0); any other name is left to lmms-eval."""
    import sys

    if not isinstance(requested, (list, tuple)):
        return
    try:
        found = set(matched)
    except TypeError:
        return
    for name in requested:
        if looks_like_ours(name) and name not in found:
            known = [n for n in (getattr(manager, "all_tasks", None) or []) if isinstance(n, str)]
            print(f"ambi-plugin: {unknown_task_message(name, known)}", file=sys.stderr, flush=True)
            raise SystemExit(2)


__all__ = [
    "declared_names",
    "first_unknown",
    "include_paths",
    "known_names",
    "looks_like_ours",
    "stop_on_unknown_names_like_ours",
]
