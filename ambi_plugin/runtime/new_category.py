"""``ambi new-category``: a task YAML and a records file for a new category, from a few answers.

The YAML includes the task type's template (hooks, parser, base metrics), reads its records through
``dataset_path: ambi://local`` (``$AMBI_DATA_DIR/<category>.jsonl``), lists no metrics (they are derived from the
task type and the data's views, :mod:`ambi_plugin.lmms.category_hooks`) and, with a group, joins it through
``metadata.join_groups``. The records file holds one example record of the task type to edit and copy.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from ambi_plugin.core.schema import TASK_TYPES, validate_record

QUESTIONS = {
    "benchmark": "Benchmark the category belongs to (e.g. ambibench)",
    "category": "Category name (lower case, e.g. ducks)",
    "task_type": f"Task type ({', '.join(TASK_TYPES)})",
    "prompt": "Prompt template ({question}, {options}, {width}, {height} ... are filled per record)",
}

_EXAMPLE_ANSWER: dict[str, dict[str, Any]] = {
    "choice": {"options": ["a cat", "a dog"], "answer_index": 0, "option_style": "letter"},
    "multi_choice": {"options": ["a cat", "a dog", "None"], "answer_indices": [0, 1], "option_style": "letter"},
    "true_false": {"question": "There is a visual illusion in this image.", "answer_bool": True},
    "yes_no": {"question": "Is the left line longer?", "answer_bool": False},
    "localization": {"prompt_vars": {"object": "duck"}, "boxes": [{"label": "duck", "box": [0, 0, 8, 8]}]},
    "description": {"description": "A duck that is also a rabbit.", "key_terms": ["duck", "rabbit"]},
    "perception": {
        "options": ["A is darker", "B is darker", "Both are the same"],
        "pixel_answer_index": 2,
        "human_answer_index": 0,
        "is_illusion": True,
        "prompt_kind": "human",
    },
    "color_naming": {
        "question": "What color is the star?",
        "pixel_colors": ["green"],
        "human_colors": ["blue"],
        "is_illusion": True,
        "prompt_kind": "human",
    },
}


def _slug(text: str) -> str:
    out = re.sub(r"[^a-z0-9]+", "_", str(text).strip().lower()).strip("_")
    if not out:
        raise ValueError(f"{text!r} gives an empty name; use letters and digits")
    return out


def example_record(benchmark: str, category: str, task_type: str, views: list[str]) -> dict:
    """One record of the task type, valid for the schema, for the user to edit."""
    rec: dict[str, Any] = {
        "id": "0",
        "benchmark": benchmark,
        "category": category,
        "task_type": task_type,
        "image": "images/0.png",
    }
    if task_type in ("open", "region"):
        names = views or ["answer"]
        rec["views"] = [{"name": n, "labels": [f"<{n} label>"]} for n in names]
        if task_type == "region":
            rec["region"] = [0, 0, 8, 8]
    else:
        rec.update(_EXAMPLE_ANSWER[task_type])
    return validate_record(rec)


def _yaml_string(text: str) -> str:
    """``text`` as a double-quoted YAML scalar that loads back as ``text``: JSON's quoting when YAML reads it
    back unchanged, else YAML's own escapes (a control character such as DEL or U+0085 is not allowed raw)."""
    quoted = json.dumps(text, ensure_ascii=False)
    try:
        if yaml.safe_load(f"k: {quoted}") == {"k": text}:
            return quoted
    except yaml.YAMLError:
        pass
    return yaml.safe_dump(text, default_style='"', allow_unicode=True, width=float("inf")).rstrip("\n")


def _template_lines(tasks: Path, name: str, depth: int = 0) -> list[str]:
    """The task-type template's keys, its own ``include:`` chain first, without comments: the generated YAML then
    names no path (an ``include:`` of the installed template would hold this machine's absolute path)."""
    text = (tasks / "_templates" / name).read_text(encoding="utf-8").splitlines()
    lines: list[str] = []
    for line in text:
        if line.startswith("include:") and depth < 4:
            lines = _template_lines(tasks, line.split(":", 1)[1].strip(), depth + 1) + lines
        elif line.strip() and not line.lstrip().startswith("#"):
            lines.append(line)
    return lines


def render_yaml(
    *, tasks: Path, benchmark: str, category: str, task_type: str, prompt: str, group: str | None
) -> tuple[str, str]:
    task = f"{benchmark}_{category}_{task_type}"
    meta = {"version": 1, "benchmark": benchmark, "category": category, "task_type": task_type}
    if group:
        meta["join_groups"] = [group]
    lines = [
        f"# A new category, no Python: {task}. Metrics come from the task type and the records' views.",
        f"# The task type '{task_type}' (hooks, parser, base metrics): ambi-plugin's _templates/_{task_type}, inlined",
        *_template_lines(tasks, f"_{task_type}"),
        "# This category:",
        f"task: {task}",
        "dataset_path: ambi://local   # $AMBI_DATA_DIR/<dataset_name>.jsonl",
        f"dataset_name: {category}",
        "lmms_eval_specific_kwargs:",
        "  default:",
        f"    prompt: {_yaml_string(prompt)}",
        "metadata: " + json.dumps(meta, ensure_ascii=False),
    ]
    return task, "\n".join(lines) + "\n"


def scaffold(
    *,
    benchmark: str,
    category: str,
    task_type: str,
    prompt: str,
    views: str | list[str] | None = None,
    group: str | None = None,
    yaml_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
) -> list[Path]:
    """Write the YAML and the records file; returns [yaml path, records path]. Refuses to overwrite."""
    from ambi_plugin.paths import tasks_dir

    if task_type not in TASK_TYPES:
        raise ValueError(f"Expected task type to be one of ({', '.join(TASK_TYPES)}) but got {task_type!r}")
    benchmark, category = _slug(benchmark), _slug(category)
    names = [_slug(v) for v in (views.split(",") if isinstance(views, str) else views or []) if str(v).strip()]
    if group:
        from ambi_plugin.runtime.taskindex import index

        groups = sorted(n for n, i in index().items() if i.kind == "group")
        if group not in groups:
            raise ValueError(f"unknown group {group!r}; groups of ours: {', '.join(groups)}")
    task, text = render_yaml(
        tasks=tasks_dir(), benchmark=benchmark, category=category, task_type=task_type, prompt=prompt, group=group
    )
    ydir, ddir = Path(yaml_dir or "my_tasks"), Path(data_dir or "my_records")
    ypath, rpath = ydir / f"{task}.yaml", ddir / f"{category}.jsonl"
    for p in (ypath, rpath):
        if p.exists():
            raise FileExistsError(f"{p} exists; remove it or choose another --yaml-dir / --data-dir")
    ydir.mkdir(parents=True, exist_ok=True)
    (ddir / "images").mkdir(parents=True, exist_ok=True)
    ypath.write_text(text, encoding="utf-8")
    rec = example_record(benchmark, category, task_type, names)
    rpath.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    return [ypath, rpath]


def ask_missing(values: dict[str, Any], *, ask=input) -> dict[str, Any]:
    """The scaffold's arguments; a missing required one is asked for on a terminal, else named in an error."""
    keys = ("benchmark", "category", "task_type", "prompt", "views", "group", "yaml_dir", "data_dir")
    out = {k: values.get(k) for k in keys}
    for key, question in QUESTIONS.items():
        if out[key]:
            continue
        if not sys.stdin.isatty():
            raise ValueError(f"ambi new-category needs --{key.replace('_', '-')} ({question})")
        out[key] = ask(f"{question}: ").strip()
    if out["task_type"] in ("open", "region") and not out["views"] and sys.stdin.isatty():
        out["views"] = ask("View names, comma-separated (e.g. near,far; empty = one answer): ").strip() or None
    return out


__all__ = ["ask_missing", "example_record", "render_yaml", "scaffold"]
