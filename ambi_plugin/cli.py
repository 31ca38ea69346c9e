"""The ``ambi`` command: one thin subcommand per library function.

Run ``ambi --help`` for the list, ``ambi <command> --help`` for each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def _cmd_tasks_path(args: argparse.Namespace) -> int:
    from ambi_plugin.paths import tasks_dir

    print(tasks_dir())
    return 0


def _cmd_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.taskindex import index

    idx = index()
    rows = [("name", "kind", "benchmark", "category", "task type")]
    for info in sorted(idx.values(), key=lambda i: (i.kind != "group", i.benchmark, i.name)):
        rows.append(
            (info.name, info.kind, info.benchmark, info.category or "-", info.task_type or f"{len(info.members)} tasks")
        )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from ambi_plugin.data.synth import build_suite

    out = build_suite(Path(args.out), seed=args.seed, n=args.n, progress=True)
    manifest = json.loads((out / "manifest.json").read_text())
    print(f"wrote {sum(manifest['tasks'].values())} records in {len(manifest['tasks'])} tasks to {out}")
    return 0


def _cmd_make_tiny_model(args: argparse.Namespace) -> int:
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    out = make_tiny_qwen2_5_vl(Path(args.dir), seed=args.seed)
    from ambi_plugin.demo import TINY_MODEL_ARGS

    print(f"wrote a RANDOM-WEIGHT tiny Qwen2.5-VL to {out} (it proves the pipeline, not a score)")
    print(
        f"use it with: lmms-eval --model qwen2_5_vl --model_args pretrained={out},{TINY_MODEL_ARGS} --batch_size 1 ..."
    )
    return 0


def _cmd_replay_file(args: argparse.Namespace) -> int:
    from ambi_plugin.replayfile import write_reference_predictions

    n = write_reference_predictions(Path(args.out), tasks=args.tasks, mode=args.mode, data_dir=args.data_dir)
    print(f"wrote {n} {args.mode} responses to {args.out}")
    return 0


def _cmd_validate_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.validate import validate_tasks

    skipped: list[str] = []
    problems = validate_tasks(load=not args.no_load, skipped=skipped)
    for p in problems:
        print(f"- {p}", file=sys.stderr)
    for s in skipped:
        print(f"- skipped (data not available here) {s}", file=sys.stderr)
    print("all task YAMLs valid" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ambi_plugin.demo import run_demo

    return run_demo(output=Path(args.output) if args.output else None, limit=args.limit)


def _cmd_lmms_eval(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.discovery import install_hooks

    install_hooks()
    from lmms_eval.cli.dispatch import main as lmms_main

    sys.argv = ["lmms-eval", *args.rest]
    lmms_main()
    return 0


def _cmd_results_table(args: argparse.Namespace) -> int:
    from ambi_plugin.report import find_results_json, format_results_table

    path = find_results_json(Path(args.path))
    results = json.loads(path.read_text())
    print(format_results_table(results))
    from ambi_plugin.benchmarks.ambibench_tables import format_tables as ambibench_tables

    extra = ambibench_tables(results)  # the paper's columns and AVG, when AmbiBench tasks ran
    if extra:
        print("\n" + extra)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from ambi_plugin.scorefile import score_answers, tables_from_results

    if args.results:
        from ambi_plugin.report import find_results_json

        print(tables_from_results(json.loads(find_results_json(Path(args.results)).read_text())))
        return 0
    if not (args.task and args.answers):
        raise ValueError("ambi score needs --task and --answers (or --results PATH)")
    split = lambda text: [c.strip() for c in text.split(",") if c.strip()] if text else None  # noqa: E731
    report = score_answers(
        args.task,
        args.answers,
        columns=split(args.column),
        vote=split(args.vote),
        vote_name=args.vote_name,
        seed=args.seed,
        records=args.records,
        data_dir=args.data_dir,
        protocol=args.protocol,
        overrides=args.overrides,
        allow_missing=args.allow_missing,
    )
    print(report.text)
    if args.json:
        out = {"task": report.task, "values": report.values, "judge": report.judge}
        Path(args.json).write_text(json.dumps(out, indent=1, default=str) + "\n")
    if args.review_queue:
        rows = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in report.review)
        Path(args.review_queue).write_text(rows, encoding="utf-8")
        print(f"wrote {len(report.review)} item(s) for review to {args.review_queue}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    import importlib

    module = importlib.import_module(f"ambi_plugin.benchmarks.{args.benchmark}")
    kwargs = {"shuffle_seed": args.shuffle_seed} if args.benchmark == "illusionbench" else {"task": args.task}
    if args.benchmark == "ambibench":
        kwargs = {"layout": args.layout}
    if args.benchmark == "illusionvqa":
        kwargs.update(fewshot_jsonl=args.fewshot_jsonl, fewshot_images=args.fewshot_images)
    counts = module.import_jsonl(Path(args.jsonl), Path(args.images), Path(args.out), **kwargs)
    print(f"wrote {sum(counts.values())} records to {args.out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def _cmd_judge_cache(args: argparse.Namespace) -> int:
    from ambi_plugin.judge.cache import JudgeCache, format_stats

    cache = JudgeCache(args.path)
    if args.action == "clear":
        n = cache.clear(backend=args.backend, model=args.model, errors_only=args.errors)
        print(f"removed {n} cached judge replies from {cache.path}")
        return 0
    print(format_stats(cache))
    return 0


def _cmd_judge_agreement(args: argparse.Namespace) -> int:
    from ambi_plugin.judge.agreement import agreement_files, format_agreement

    res = agreement_files(args.a, args.b)
    print(json.dumps(res, indent=1) if args.json else format_agreement(res))
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "demo": (
        "run the offline demo: lmms-eval on ambi_synth_all with a tiny random model, then print the table",
        _cmd_demo,
    ),
    "tasks": ("list our tasks and groups with benchmark, category and task type", _cmd_tasks),
    "tasks-path": ("print the folder of our task YAMLs (for lmms-eval --include_path)", _cmd_tasks_path),
    "synth": ("build the procedurally generated suite (exact ground truth) into a folder", _cmd_synth),
    "make-tiny-model": (
        "write a tiny RANDOM-WEIGHT Qwen2.5-VL that lmms-eval's qwen2_5_vl loads on CPU",
        _cmd_make_tiny_model,
    ),
    "replay-file": ("write gold / wrong / garbage responses for tasks, for the ambi_replay model", _cmd_replay_file),
    "validate-tasks": (
        "check every task YAML: lmms-eval's own loader, name clashes, metric lists",
        _cmd_validate_tasks,
    ),
    "results": ("print the table of an lmms-eval results JSON (a file or an output folder)", _cmd_results_table),
    "lmms-eval": ("run lmms-eval's CLI with our hooks installed (also covers 'tasks list')", _cmd_lmms_eval),
    "score": (
        "re-score saved per-item answers (IllusionBench, IllusionVQA) and print the paper's per-category tables",
        _cmd_score,
    ),
    "import": ("convert a released JSONL + image folder into a local copy in the canonical schema", _cmd_import),
    "judge-cache": ("show or clear the persistent judge cache (replies per backend, model, prompt)", _cmd_judge_cache),
    "judge-agreement": (
        "agreement and Cohen's kappa between two judges' verdicts on the same items (JSONL files)",
        _cmd_judge_agreement,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ambi",
        description="ambi-plugin: perception benchmarks for vision-language models, for lmms-eval.",
    )
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    p = {name: sub.add_parser(name, help=desc, description=desc) for name, (desc, _) in COMMANDS.items()}

    p["synth"].add_argument("--out", required=True, help="folder to write (replaced atomically)")
    p["synth"].add_argument("--seed", type=int, default=0)
    p["synth"].add_argument("--n", type=int, default=None, help="items per task (default: the suite's default)")
    p["make-tiny-model"].add_argument("dir", help="folder to write the model into")
    p["make-tiny-model"].add_argument("--seed", type=int, default=0)
    p["replay-file"].add_argument("--out", required=True, help="JSONL file to write")
    p["replay-file"].add_argument("--tasks", default="ambi_synth_all", help="comma-separated tasks or groups of ours")
    p["replay-file"].add_argument("--mode", choices=("gold", "wrong", "garbage"), default="gold")
    p["replay-file"].add_argument(
        "--data-dir", default=None, help="read records from this folder instead of the synth suite"
    )
    p["validate-tasks"].add_argument("--no-load", action="store_true", help="skip building each task through lmms-eval")
    p["demo"].add_argument("--output", default=None, help="lmms-eval output folder (default: a folder in the cache)")
    p["demo"].add_argument("--limit", type=int, default=None, help="items per task (default: all)")
    p["results"].add_argument("path", help="results JSON or lmms-eval output folder")
    p["lmms-eval"].add_argument("rest", nargs=argparse.REMAINDER, help="arguments passed to lmms-eval")
    sc = p["score"]
    sc.add_argument("--task", help="one task of ours, e.g. ambi_illusionvqa_comprehension")
    sc.add_argument("--answers", help="JSONL {id, response} / ambi_replay / lmms-eval samples, or a JSON list")
    sc.add_argument("--column", default=None, help="comma-separated answer columns of a JSON list (e.g. GPT_0_SHOT)")
    sc.add_argument("--vote", default=None, help="comma-separated columns to add a majority vote of (human row)")
    sc.add_argument("--vote-name", default="majority vote", help="name of the majority-vote column")
    sc.add_argument("--seed", type=int, default=0, help="seed of the vote's random tie-break")
    sc.add_argument("--records", default=None, help="records file (canonical, or IllusionVQA's released JSONL)")
    sc.add_argument("--data-dir", default=None, help="folder with the task's <dataset_name>.jsonl")
    sc.add_argument("--protocol", choices=("rule", "llm"), default="rule", help="IllusionBench: add the LLM judge")
    sc.add_argument("--overrides", default=None, help="reviewed judge decisions (a filled review queue, JSONL)")
    sc.add_argument("--review-queue", default=None, help="write the items the judge marked wrong here (JSONL)")
    sc.add_argument("--allow-missing", action="store_true", help="score a missing answer as empty (wrong)")
    sc.add_argument("--json", default=None, help="also write every metric value to this JSON file")
    sc.add_argument("--results", default=None, help="instead: the paper tables of an lmms-eval results JSON / folder")
    im = p["import"]
    im.add_argument("benchmark", choices=("illusionbench", "illusionvqa", "ambibench"))
    im.add_argument("--jsonl", required=True, help="the released questions (see hf_dataset_cards/<benchmark>.md)")
    im.add_argument("--images", required=True, help="folder holding the images the JSONL names")
    im.add_argument("--out", required=True, help="folder to write the canonical records and images to")
    im.add_argument("--shuffle-seed", type=int, default=0, help="illusionbench: seed of the MC option shuffle")
    im.add_argument("--task", choices=("comprehension", "soft_localization"), default="comprehension")
    im.add_argument("--fewshot-jsonl", default=None, help="illusionvqa: the 4 few-shot examples (train split)")
    im.add_argument("--fewshot-images", default=None, help="illusionvqa: their image folder (default: --images)")
    im.add_argument(
        "--layout",
        choices=("release", "visual_anagrams"),
        default="release",
        help="ambibench: the release's rows (--jsonl a file or folder of JSONL, --images the folder media paths are "
        "relative to), or the visual-anagrams gallery as multi-view items (--jsonl labels.json)",
    )
    jc = p["judge-cache"]
    jc.add_argument("action", nargs="?", choices=("show", "clear"), default="show")
    jc.add_argument("--path", default=None, help="cache file (default: $AMBI_CACHE/judge/judge.sqlite)")
    jc.add_argument("--backend", default=None, help="clear: only this backend's replies")
    jc.add_argument("--model", default=None, help="clear: only this judge model's replies")
    jc.add_argument("--errors", action="store_true", help="clear: only unreadable replies (asked again next run)")
    ja = p["judge-agreement"]
    ja.add_argument("a", help="verdicts of judge A: JSONL {id, value} lines or lmms-eval logged samples")
    ja.add_argument("b", help="verdicts of judge B on the same items")
    ja.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    if args.command == "synth" and args.n is None:
        from ambi_plugin.data.synth import DEFAULT_N

        args.n = DEFAULT_N
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return COMMANDS[args.command][1](args)
    except (ValueError, FileNotFoundError, OSError, KeyError) as exc:
        print(f"ambi {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
