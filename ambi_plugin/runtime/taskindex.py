"""Read our task YAMLs without lmms-eval: names, groups, benchmark, category, task type.

Used by ``ambi tasks`` and by the checks that no name of ours collides with an lmms-eval
built-in. ``!function`` tags are kept as their dotted names; ``include:`` is followed, and each top-level
key remembers the file that sets it, so :func:`unknown_keys` (handed lmms-eval's config fields by the lmms
adapter, :func:`ambi_plugin.lmms.validate.check_keys`) names the file, task and key lmms-eval would reject.
:func:`expand_groups` is the one group expander of both harness adapters and the replay tools.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from ambi_plugin.inputfiles import named_input
from ambi_plugin.paths import tasks_dir


class TaskYamlError(ValueError):
    """A task YAML of ours cannot be read. The message names the file."""


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when present: the index is read every run
    pass


def _function_tag(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return "!function " + str(loader.construct_scalar(node))


_Loader.add_constructor("!function", _function_tag)


def load_yaml(path: Path) -> dict:
    """Load a task YAML with its ``include:`` chain merged (the including file wins)."""
    return load_yaml_with_origins(path)[0]


def load_yaml_with_origins(path: Path, _depth: int = 0) -> tuple[dict, dict[str, Path]]:
    """:func:`load_yaml`, and for each top-level key the file that sets it (``path`` or an included file)."""
    if _depth > 8:
        raise TaskYamlError(f"{path}: include chain deeper than 8 (a cycle?)")
    data = _read(path)
    inc = data.pop("include", None)
    merged: dict = {}
    origins: dict[str, Path] = {}
    for name in [] if inc is None else [inc] if isinstance(inc, str) else list(inc):
        sub, sub_origins = load_yaml_with_origins(path.parent / name, _depth + 1)
        merged.update(sub)
        origins.update(sub_origins)
    merged.update(data)
    origins.update(dict.fromkeys(data, path))
    return merged, origins


def _read(path: Path) -> dict:
    """One YAML file as a mapping (a fresh copy: callers change it), parsed once while it stays unchanged."""
    try:
        st = path.stat()
    except OSError as exc:
        raise TaskYamlError(f"{path}: cannot read task YAML ({exc})") from None
    return copy.deepcopy(_parse(str(path), st.st_mtime_ns, st.st_size))


@lru_cache(maxsize=2048)
def _parse(path: str, _mtime_ns: int, _size: int) -> dict:
    try:
        with named_input(path, "task YAML"), open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_Loader) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise TaskYamlError(f"{path}: cannot read task YAML ({exc})") from None
    if not isinstance(data, dict):
        raise TaskYamlError(f"{path}: a task YAML must be a mapping, got {type(data).__name__}")
    return data


@dataclass
class TaskInfo:
    name: str
    kind: str  # "task" | "group"
    path: Path
    benchmark: str = ""
    category: str = ""
    task_type: str = ""
    members: list[str] = field(default_factory=list)
    config: dict = field(default_factory=dict)
    origins: dict[str, Path] = field(default_factory=dict)  # top-level key -> the file that sets it


_index_lock = threading.Lock()
_index_cache: dict[tuple, dict[str, TaskInfo]] = {}


USER_TASKS_ENV = "AMBI_TASKS_PATH"  # folders of the user's own task YAMLs (ambi new-category), os.pathsep-separated


def user_task_dirs() -> list[Path]:
    """The task folders beside ours: those of benchmarks outside ambi-plugin (``$AMBI_BENCHMARKS`` and the
    ``ambi_plugin.benchmarks`` entry points: :func:`ambi_plugin.paths.benchmark_task_dirs`), then the folders of
    ``$AMBI_TASKS_PATH`` that exist (a user's categories). Known to ``ambi tasks`` / ``score`` / ``replay-file`` /
    ``report`` and added to lmms-eval's include paths like ours."""
    import os

    from ambi_plugin.paths import benchmark_task_dirs

    raw = os.environ.get(USER_TASKS_ENV, "")
    users = [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip() and Path(p).expanduser().exists()]
    return list(dict.fromkeys([*benchmark_task_dirs(), *users]))


def index(root: Path | None = None) -> dict[str, TaskInfo]:
    """Every task and group under ``root`` (a folder or one YAML file; default our shipped ``task_yamls`` and the
    user's folders in ``$AMBI_TASKS_PATH``).

    Every lmms-eval run reads our index (discovery checks our YAMLs; the results writer asks whether a task is
    ours), so it is kept per process while no file under ``root`` changes (name, size, modification time)."""
    roots = [Path(root)] if root is not None else [Path(tasks_dir()), *user_task_dirs()]
    files = [f for r in roots for f in (sorted(p for p in r.rglob("*") if p.is_file()) if r.is_dir() else [r])]
    key = (*(str(r) for r in roots), *((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files))
    with _index_lock:
        if key in _index_cache:
            return dict(_index_cache[key])
    out: dict[str, TaskInfo] = {}
    for r in roots:
        part = _build_index(r)
        for name, info in part.items():
            if name in out:
                raise TaskYamlError(f"{info.path}: name {name!r} is also defined in {out[name].path}")
            out[name] = info
    with _index_lock:
        _index_cache.clear()  # one root at a time is all a run needs
        _index_cache[key] = out
    return dict(out)


def _build_index(root: Path) -> dict[str, TaskInfo]:
    out: dict[str, TaskInfo] = {}
    for path in sorted(root.rglob("*.yaml")) if root.is_dir() else [root]:
        cfg, origins = load_yaml_with_origins(path)
        meta = cfg.get("metadata") or {}
        if "group" in cfg and "task" in cfg and isinstance(cfg["task"], list):
            name = cfg["group"]
            members = [t if isinstance(t, str) else t.get("task", "") for t in cfg["task"]]
            info = TaskInfo(
                name,
                "group",
                path,
                benchmark=str(meta.get("benchmark", path.parent.name)),
                members=members,
                origins=origins,
            )
        elif "task" in cfg:
            name = cfg["task"]
            info = TaskInfo(
                name,
                "task",
                path,
                benchmark=str(meta.get("benchmark", path.parent.name)),
                category=str(meta.get("category", "")),
                task_type=str(meta.get("task_type", "")),
                config=cfg,
                origins=origins,
            )
        else:
            continue
        if name in out:
            raise TaskYamlError(f"{path}: name {name!r} is also defined in {out[name].path}")
        out[name] = info
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def members_summary(idx: dict[str, TaskInfo], name: str) -> str:
    """``"16 tasks"``, ``"10 groups"``, ``"1 task"``, ``"2 tasks, 1 group"``: what a group holds directly."""
    members = idx[name].members
    groups = sum(1 for m in members if m in idx and idx[m].kind == "group")
    parts = [_plural(len(members) - groups, "task")] if len(members) > groups else []
    return ", ".join(parts + ([_plural(groups, "group")] if groups else [])) or "empty"


def benchmark_of(idx: dict[str, TaskInfo], name: str, _seen: frozenset[str] = frozenset()) -> str:
    """A task's benchmark; a group's is the one its tasks share (else the group's own folder name)."""
    info = idx[name]
    if info.kind == "task" or name in _seen:
        return info.benchmark
    found = {benchmark_of(idx, m, _seen | {name}) for m in info.members if m in idx}
    return found.pop() if len(found) == 1 else info.benchmark


# ---------------------------------------------------------------------------------------------- groups


def expand_groups(
    names: str | list[str], idx: dict[str, TaskInfo] | None = None, *, keep_unknown: bool = False
) -> list[str]:
    """Task names with our groups replaced by their member tasks (nested groups too), in order, each once.

    ``names``: a list, or one comma-separated string (blank entries dropped, each stripped). A name that is not
    ours fails with suggestions (``KeyError``), or with ``keep_unknown`` passes through unchanged (a harness's
    own dataset, e.g. VLMEvalKit's)."""
    import difflib

    idx = idx or index()
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    out: list[str] = []

    def add(name: str) -> None:
        info = idx.get(name)
        if info is None and not keep_unknown:
            close = difflib.get_close_matches(name, list(idx), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"no task or group of ours is called {name!r}{hint}")
        if info is not None and info.kind == "group":
            for member in info.members:
                add(member)
        elif name not in out:
            out.append(name)

    for name in wanted:
        add(name)
    return out


def expand_tasks(names: str | list[str], idx: dict[str, TaskInfo] | None = None) -> list[TaskInfo]:
    """:func:`expand_groups` as the tasks' :class:`TaskInfo` (unknown names fail with suggestions)."""
    idx = idx or index()
    return [idx[name] for name in expand_groups(names, idx)]


# ---------------------------------------------------------------------------------------------- unknown keys


def unknown_keys(idx: dict[str, TaskInfo], task_keys: frozenset[str], group_keys: frozenset[str]) -> list[str]:
    """One message per top-level key lmms-eval would reject (its config class raises ``TypeError`` naming the key
    only), naming the file that sets it, the task or group, the key and the closest known key."""
    import difflib

    problems = []
    for name, info in sorted(idx.items()):
        if info.kind == "task" and "class" in info.config:  # a Python task class takes whatever it takes
            continue
        allowed = task_keys if info.kind == "task" else group_keys
        for key, origin in sorted(info.origins.items()):
            if key in allowed:
                continue
            close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            where = "" if origin == info.path else f", included by {info.path}"
            problems.append(
                f"{origin}: {info.kind} {name!r}{where}: unknown key {key!r}{hint}; lmms-eval accepts only its "
                f"{'TaskConfig' if info.kind == 'task' else 'GroupConfig'} fields, so this {info.kind} would not "
                f"load: rename or remove the key"
            )
    return problems
