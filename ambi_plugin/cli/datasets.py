"""The dataset subcommands of ``ambi``: ``build``, ``validate``, ``push``, ``new-category`` (thin wrappers)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def _cmd_build(args: argparse.Namespace) -> int:
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.data.hub.build import BuildError, build

    try:
        result = build(args.benchmark, args.source, Path(args.out), progress=not args.quiet)
    except DataUnavailableError as exc:
        print(f"ambi build: {exc}", file=sys.stderr)
        return 2
    except BuildError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        print(f"ambi build: {len(exc.problems)} problem(s); nothing was built ({args.out} unchanged)", file=sys.stderr)
        return 1
    rows = sum(n for splits in result.counts.values() for n in splits.values())
    print(f"built {args.benchmark}: {rows} rows, {result.images} images, {len(result.counts)} configs in {result.out}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from ambi_plugin.data.hub.validate import validate_folder

    problems = validate_folder(Path(args.dir))
    for line in problems:
        print(line)
    print(f"{args.dir}: valid" if not problems else f"{len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


def _cmd_push(args: argparse.Namespace) -> int:
    from ambi_plugin.data.hub.push import push, write_push_folder

    if args.to_folder:
        files = write_push_folder(Path(args.dir), Path(args.to_folder))
        print(f"wrote the {len(files)} file(s) an upload would send to {args.to_folder}")
        return 0
    if not args.repo:
        raise ValueError("ambi push needs --repo OWNER/NAME (or --to-folder DIR2 to write the upload locally)")
    url = push(Path(args.dir), args.repo, private=args.private)
    print(f"pushed {args.dir} to the dataset repo {args.repo}: {url}")
    return 0


def _cmd_new_category(args: argparse.Namespace) -> int:
    from ambi_plugin.runtime.new_category import ask_missing, scaffold

    spec = ask_missing(vars(args))
    paths = scaffold(**spec)
    for p in paths:
        print(f"wrote {p}")
    print(next_steps(paths, group=spec.get("group")))
    return 0


def next_steps(paths: list[Path], *, group: str | None = None) -> str:
    """What to do after ``ambi new-category`` (docs/adding-a-category.md shows these lines; a test keeps them equal)."""
    yaml_dir, data = paths[0].parent, paths[1].parent
    lines = [
        f"next: put the images under {data}, edit {paths[1].name}, then run",
        f"  export AMBI_DATA_DIR={data} AMBI_TASKS_PATH={yaml_dir}   # every ambi command and lmms-eval then know it",
        f"  ambi eval --model ... --tasks {paths[0].stem}",
    ]
    if group:
        lines.append(f"  ambi eval --model ... --tasks {group}   # the group, the new task in it")
    return "\n".join(lines)


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "build": ("build a benchmark from its source into a typed HF dataset folder (card + parquet), checked", _cmd_build),
    "validate": ("check every record of a built folder; one line per problem, exit 1 if any", _cmd_validate),
    "push": ("upload a built folder to the HF Hub as a dataset repo (or --to-folder: write the upload)", _cmd_push),
    "new-category": ("scaffold a new category: a task YAML and a records file, no Python", _cmd_new_category),
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    from ambi_plugin.benchmarks.registry import entries
    from ambi_plugin.core.schema import TASK_TYPES

    b = p["build"]
    b.add_argument("benchmark", choices=sorted(entries()), help="the benchmark to build")
    b.add_argument(
        "--source",
        default=None,
        help="the release as published (folder or zip), a Hub repo id, or a canonical folder (<records>.jsonl + "
        "images); default: the benchmark's Hub release (ambi_synth: the default generated suite)",
    )
    b.add_argument("--out", required=True, help="folder to write (replaced atomically; e.g. $AMBI_DATA_ROOT/<bench>)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    p["validate"].add_argument("dir", help="a folder written by ambi build")
    ps = p["push"]
    ps.add_argument("dir", help="a folder written by ambi build")
    ps.add_argument("--repo", default=None, help="OWNER/NAME of the dataset repo")
    ps.add_argument("--private", action="store_true", help="create the repo private")
    ps.add_argument("--to-folder", default=None, help="write exactly what would be uploaded here instead")
    nc = p["new-category"]
    nc.add_argument("--benchmark", default=None, help="benchmark the category belongs to (ambi tasks lists them)")
    nc.add_argument("--category", default=None, help="category name (lower case, e.g. ducks)")
    nc.add_argument("--task-type", default=None, choices=TASK_TYPES, help="the task type (sets template and metrics)")
    nc.add_argument("--prompt", default=None, help="the prompt template ({question}, {options} ... see the docs)")
    nc.add_argument("--views", default=None, help="open/region: comma-separated view names (e.g. near,far)")
    nc.add_argument("--group", default=None, help="a group of ours to join (ambi tasks lists them)")
    nc.add_argument("--yaml-dir", default=None, help="folder for the task YAML (default: ./my_tasks)")
    nc.add_argument("--data-dir", default=None, help="folder for the records file (default: ./my_records)")
