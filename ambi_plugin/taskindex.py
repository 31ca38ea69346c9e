"""Read our task YAMLs without lmms-eval: names, groups, benchmark, category, task type.

Used by ``ambi tasks`` and by the checks that no name of ours collides with an lmms-eval
built-in. ``!function`` tags are kept as their dotted names; ``include:`` is followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ambi_plugin.paths import tasks_dir


class TaskYamlError(ValueError):
    """A task YAML of ours cannot be read. The message names the file."""


class _Loader(yaml.SafeLoader):
    pass


def _function_tag(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return "!function " + str(loader.construct_scalar(node))


_Loader.add_constructor("!function", _function_tag)


def load_yaml(path: Path, _depth: int = 0) -> dict:
    """Load a task YAML with its ``include:`` chain merged (the including file wins)."""
    if _depth > 8:
        raise TaskYamlError(f"{path}: include chain deeper than 8 (a cycle?)")
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_Loader) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise TaskYamlError(f"{path}: cannot read task YAML ({exc})") from None
    if not isinstance(data, dict):
        raise TaskYamlError(f"{path}: a task YAML must be a mapping, got {type(data).__name__}")
    inc = data.pop("include", None)
    if inc is None:
        return data
    merged: dict = {}
    for name in [inc] if isinstance(inc, str) else list(inc):
        merged.update(load_yaml(path.parent / name, _depth + 1))
    merged.update(data)
    return merged


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


def index(root: Path | None = None) -> dict[str, TaskInfo]:
    """Every task and group under ``root`` (default: our shipped ``task_yamls``)."""
    root = root or tasks_dir()
    out: dict[str, TaskInfo] = {}
    for path in sorted(root.rglob("*.yaml")):
        cfg = load_yaml(path)
        meta = cfg.get("metadata") or {}
        if "group" in cfg and "task" in cfg and isinstance(cfg["task"], list):
            name = cfg["group"]
            members = [t if isinstance(t, str) else t.get("task", "") for t in cfg["task"]]
            info = TaskInfo(
                name, "group", path, benchmark=str(meta.get("benchmark", path.parent.name)), members=members
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
