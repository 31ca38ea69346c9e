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
    from ambi_plugin.taskindex import benchmark_of, index, members_summary

    idx = index()
    rows = [("name", "kind", "benchmark", "category", "task type", "members")]
    for info in sorted(idx.values(), key=lambda i: (i.kind != "group", benchmark_of(idx, i.name), i.name)):
        group = info.kind == "group"
        rows.append(
            (
                info.name,
                info.kind,
                benchmark_of(idx, info.name),
                info.category or "-",
                info.task_type or "-",
                members_summary(idx, info.name) if group else "-",
            )
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

    without: dict[str, str] = {}
    n = write_reference_predictions(
        Path(args.out), tasks=args.tasks, mode=args.mode, data_dir=args.data_dir, without=without
    )
    print(f"wrote {n} {args.mode} responses to {args.out}")
    for task, reason in without.items():
        print(f"  no rows for {task} (an lmms-eval run reports it NaN): {reason}")
    return 0


def _cmd_validate_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.taskindex import check_keys

    skipped: list[str] = []
    if args.paths:  # a user's include path: every YAML read, every top-level key checked against lmms-eval's fields
        problems = [p for path in args.paths for p in check_keys(Path(path))]
    else:
        from ambi_plugin.lmms.validate import validate_tasks

        problems = check_keys() + validate_tasks(load=not args.no_load, skipped=skipped)
    for p in problems:  # one line each; the whole text with --verbose
        text = str(p).strip()
        print(f"- {text if args.verbose else (text.splitlines() or [''])[0]}", file=sys.stderr)
    for s in skipped:
        print(f"- skipped (data not available here) {s}", file=sys.stderr)
    summary = "all task YAMLs valid" if not problems else f"{len(problems)} problem(s)"
    if skipped:
        summary += f"; {len(skipped)} task(s) not loaded (their data is not available here)"
    if problems and not args.verbose:
        summary += " (details: --verbose)"
    print(summary)
    return 1 if problems else 0


def _harness_ready(harness: str) -> bool:
    """Import what ``harness`` needs for a run before anything else; a failure is one line on stderr."""
    from ambi_plugin.installcheck import require_harness

    return require_harness(harness, echo=lambda msg: print(msg, file=sys.stderr))


def _cmd_demo(args: argparse.Namespace) -> int:
    from ambi_plugin.demo import run_demo

    if not _harness_ready("lmms-eval"):
        return 2
    return run_demo(output=Path(args.output) if args.output else None, limit=args.limit)


def _cmd_lmms_eval(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.discovery import install_hooks

    install_hooks()
    from lmms_eval.cli.dispatch import main as lmms_main

    sys.argv = ["lmms-eval", *args.rest]
    lmms_main()
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.eval_run import run_eval

    if not args.rest:  # nothing to run is a mistake: the help, and a non-zero exit
        sub = build_parser().parse_known_args([])[0]._subparsers["eval"]
        print(sub.format_help(), file=sys.stderr)
        print("ambi eval: error: no arguments (at least --model and --tasks)", file=sys.stderr)
        return 2
    if not _harness_ready("lmms-eval"):
        return 2
    return run_eval(args.rest, echo=lambda msg: print(msg, file=sys.stderr))


RESULTS_EXPECTED = (
    "expected the results JSON lmms-eval writes (<output_path>/.../<date>_results.json) or the output folder "
    "holding it; per-item samples (*.jsonl) are not results: re-score them with 'ambi score'"
)


def _cmd_results_table(args: argparse.Namespace) -> int:
    from ambi_plugin.report import find_results_json, format_results_table

    path = find_results_json(Path(args.path))
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(f"{path} is not a JSON file: {RESULTS_EXPECTED}") from None
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise ValueError(f"{path} has no 'results' table: {RESULTS_EXPECTED}")
    from ambi_plugin.report import format_run_header

    header = format_run_header(results)
    if header:
        print(header + "\n")
    print(format_results_table(results))
    unread = (results.get("ambi_plugin") or {}).get("unparsed")
    if isinstance(unread, dict) and unread and "error" not in unread:
        from ambi_plugin.lmms.unparsed import format_examples

        print("\nUnparsed answers (the model's style is not read; full list: the results JSON's ambi_plugin.unparsed):")
        print(format_examples(unread))
    from ambi_plugin.benchmarks.ambibench.tables import format_tables as ambibench_tables

    extra = ambibench_tables(results)  # the paper's columns and AVG, when AmbiBench tasks ran
    if extra:
        print("\n" + extra)
    return 0


def _judge_from_arg(spec: str | None):
    """``--judge BACKEND[:MODEL]`` -> a judge (None: the configured one)."""
    if not spec:
        return None
    from ambi_plugin.judge import make_judge

    backend, _, model = spec.partition(":")
    return make_judge(backend=backend, **({"model": model} if model else {}))


def _cmd_score(args: argparse.Namespace) -> int:
    from ambi_plugin.scorefile import score_answers, tables_from_results

    if args.results:
        from ambi_plugin.core.inputfiles import named_input
        from ambi_plugin.report import find_results_json

        path = find_results_json(Path(args.results))
        with named_input(path, "results JSON"):
            print(tables_from_results(json.loads(path.read_text(encoding="utf-8"))))
        return 0
    if not (args.task and args.answers):
        raise ValueError("ambi score needs --task and --answers (or --results PATH)")
    split = lambda text: [c.strip() for c in text.split(",") if c.strip()] if text else None  # noqa: E731
    if args.explain:
        from ambi_plugin.scorefile import explain_answer

        print(explain_answer(args.task, args.answers, args.explain, columns=split(args.column), records=args.records,
                             data_dir=args.data_dir, judge=_judge_from_arg(args.judge)))  # fmt: skip
        return 0
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
        judge=_judge_from_arg(args.judge),
    )
    print(report.text)
    for line in report.note.splitlines():  # duplicate answer ids: also on stderr, where scripts look for warnings
        if line.startswith("warning: "):
            print(f"ambi score: {line}", file=sys.stderr)
    if args.json:
        out = {"task": report.task, "values": report.values, "judge": report.judge}
        Path(args.json).write_text(json.dumps(out, indent=1, default=str) + "\n")
    if args.review_queue:
        rows = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in report.review)
        Path(args.review_queue).write_text(rows, encoding="utf-8")
        print(f"wrote {len(report.review)} item(s) for review to {args.review_queue}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from ambi_plugin.reports import build_report, write_report

    formats = [f.strip() for chunk in args.format for f in chunk.split(",") if f.strip()]
    bad = [a for a in args.paper_name or [] if "=" not in a or not all(x.strip() for x in a.split("=", 1))]
    if bad:
        raise ValueError(
            f"--paper-name {bad[0]!r}: expected MODEL=PAPER ROW NAME (e.g. --paper-name 'qwen=Qwen2.5-VL-7B')"
        )
    aliases = dict(a.split("=", 1) for a in args.paper_name or [])
    report = build_report(args.results, names=args.name, compare_paper=args.compare_paper, aliases=aliases,
                          n_boot=args.bootstrap, seed=args.seed, test=args.test)  # fmt: skip
    write_report(report, args.out, formats=formats, plots=not args.no_plots)
    for fmt, path in report.written.items():
        print(f"wrote {fmt}: {path}")
    if "md" in report.written and not args.quiet:
        print("\n" + report.written["md"].read_text(encoding="utf-8"))
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


def _cmd_data(args: argparse.Namespace) -> int:
    from ambi_plugin.benchmarks.status import GROUPS, report_lines

    wanted = args.check or None
    unknown = [b for b in wanted or [] if b not in GROUPS]
    if unknown:
        print(
            f"ambi data: error: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(GROUPS)}", file=sys.stderr
        )
        return 2
    verdicts: dict[str, bool] = {}
    print("\n".join(report_lines(wanted, verdicts)))
    if wanted is None:
        return 0
    bad = [b for b in wanted if not verdicts.get(b)]
    if bad:
        print(f"ambi data: not usable here: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0


def _cmd_viabench(args: argparse.Namespace) -> int:
    from ambi_plugin.benchmarks.viabench.__main__ import main as viabench_main

    return viabench_main(args.rest)


def _cmd_rcid_copy(args: argparse.Namespace) -> int:
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.benchmarks.rcid.cli import write_rcid_copy

    try:
        manifest = write_rcid_copy(
            Path(args.out), hub=args.hub, seed=args.seed, n=args.n, default_type=args.type, human=args.human
        )
    except DataUnavailableError as exc:
        print(f"ambi rcid-copy: {exc}", file=sys.stderr)
        return 2
    print(f"wrote an RCID copy to {args.out}: {manifest['counts']}; skipped rows: {manifest['n_skipped']}")
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
        "check every task YAML: keys lmms-eval accepts, lmms-eval's own loader, name clashes, metric lists",
        _cmd_validate_tasks,
    ),
    "results": ("print the table of an lmms-eval results JSON (a file or an output folder)", _cmd_results_table),
    "lmms-eval": (
        "run lmms-eval's CLI with our hooks installed; every argument is lmms-eval's (e.g. 'ambi lmms-eval "
        "--model ... --tasks ...', 'ambi lmms-eval tasks list')",
        _cmd_lmms_eval,
    ),
    "eval": (
        "run an lmms-eval evaluation (same arguments as lmms-eval) and exit non-zero when the run failed or a "
        "requested task has no results (lmms-eval itself exits 0 then)",
        _cmd_eval,
    ),
    "score": (
        "re-score (or re-judge) saved per-item answers or lmms-eval logged samples of any task of ours; "
        "IllusionBench and IllusionVQA in their papers' tables",
        _cmd_score,
    ),
    "report": (
        "tables of every benchmark in its paper's layout from lmms-eval results folders, with the papers' rows, "
        "statistics and plots (md, csv, latex, json, html)",
        _cmd_report,
    ),
    "import": ("convert a released JSONL + image folder into a local copy in the canonical schema", _cmd_import),
    "data": ("which benchmarks are available here (local copy, HF cache) and how to fetch the missing ones", _cmd_data),
    "viabench": (
        "VIA-Bench: import the challenge layout, random baseline, repeated runs (ambi viabench -h)",
        _cmd_viabench,
    ),
    "rcid-copy": (
        "write a local RCID copy: generated offline, or read from a Hub-layout folder / Hub id",
        _cmd_rcid_copy,
    ),
    "judge-cache": ("show or clear the persistent judge cache (replies per backend, model, prompt)", _cmd_judge_cache),
    "judge-agreement": (
        "agreement and Cohen's kappa between two judges' verdicts on the same items (JSONL files)",
        _cmd_judge_agreement,
    ),
}

# dataset commands (build / validate / push / new-category) live in ambi_plugin.data.commands
from ambi_plugin.data.commands import COMMANDS as _DATASET_COMMANDS  # noqa: E402
from ambi_plugin.data.commands import add_arguments as _add_dataset_arguments  # noqa: E402

COMMANDS.update(_DATASET_COMMANDS)


# --- switch-heads (ambi_plugin.analysis.cli): perceptual-switch-head analysis, AmbiBench 4.3-4.4
def _cmd_switch_heads(args: argparse.Namespace) -> int:
    from ambi_plugin.analysis.cli import run

    return run(args)


def _switch_heads_arguments(parser: argparse.ArgumentParser) -> None:
    from ambi_plugin.analysis.cli import add_arguments

    add_arguments(parser)


COMMANDS["switch-heads"] = (
    "perceptual-switch heads: capture, scores, heatmap, fit-iti, intervene, visualize, all",
    _cmd_switch_heads,
)
# --- end switch-heads


PASSTHROUGH = ("lmms-eval", "eval")  # subcommands whose arguments all belong to lmms-eval


# --- VLMEvalKit (ambi_plugin.vlmeval): `ambi vlmeval ...` runs VLMEvalKit's run.py with our tasks registered,
# `ambi export-tsv BENCH` writes LMUData TSV files.
def _cmd_vlmeval(args: argparse.Namespace) -> int:
    from ambi_plugin.vlmeval.launcher import main as vlmeval_main
    from ambi_plugin.vlmeval.launcher import quiet_missing_env

    quiet_missing_env()

    given = {a.split("=", 1)[0] for a in args.rest if a.startswith("--") and len(a.split("=", 1)[0]) >= 4}
    if not any(opt.startswith(g) for g in given for opt in ("--data", "--config", "--help")) and "-h" not in args.rest:
        raise ValueError(
            "ambi vlmeval needs --data TASK [TASK ...] and --model MODEL (or --config FILE), as VLMEvalKit's run.py "
            "does; e.g. 'ambi vlmeval --data ambi_synth_all --model ambi_replay' ('ambi vlmeval --help' for run.py's)"
        )
    if args.rest not in ([], ["-h"], ["--help"]) and not _harness_ready("VLMEvalKit"):
        return 2
    return vlmeval_main(args.rest)


def _cmd_export_tsv(args: argparse.Namespace) -> int:
    from ambi_plugin.vlmeval.tsv import export_tsv

    refused = 0
    for done in export_tsv(args.bench, args.out):
        skipped = f"; skipped {len(done.skipped)}: {'; '.join(done.skipped[:5])}" if done.skipped else ""
        if done.refused:
            refused += 1
            print(f"ambi export-tsv: refused {done.refused}{skipped}", file=sys.stderr)
        else:
            print(f"wrote {done.rows} rows to {done.path}{skipped}")
    return 1 if refused else 0


def _cmd_vlmeval_hook(args: argparse.Namespace) -> int:
    from ambi_plugin.vlmeval import plainrun

    path = Path(args.site or plainrun.site_dir()) / plainrun.PTH_NAME
    if args.action == "install":
        plainrun.install_pth(args.site)
        print(f"wrote {path}: VLMEvalKit's own run.py now runs our tasks (ambi vlmeval-hook remove undoes it)")
    elif args.action == "remove":
        gone = plainrun.remove_pth(args.site)
        print(f"removed {gone}" if gone else f"nothing to remove: {path} does not exist")
    else:
        print(f"installed: {path}" if path.exists() else f"not installed ({path} does not exist)")
    return 0


def _vlmeval_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    p["vlmeval"].add_argument("rest", nargs=argparse.REMAINDER, help="arguments passed to VLMEvalKit's run.py")
    p["vlmeval"].prefix_chars = "+"  # every --option (also --help) goes to run.py, none is parsed here
    p["export-tsv"].add_argument("bench", help="a benchmark (ambibench, illusionvqa ...), a group or tasks (a,b)")
    p["export-tsv"].add_argument("--out", default=None, help="folder to write (default: $LMUData or ~/LMUData)")
    hook = p["vlmeval-hook"]
    hook.add_argument(
        "action", nargs="?", choices=("install", "remove", "status"), default="status", help="default: status"
    )
    hook.add_argument(
        "--site", default=None, help="folder for the .pth file (default: this environment's site-packages)"
    )


COMMANDS.update(
    {
        "vlmeval": ("run VLMEvalKit's run.py with our tasks and the ambi_replay model registered", _cmd_vlmeval),
        "export-tsv": ("write a benchmark's tasks as VLMEvalKit TSV files (LMUData layout)", _cmd_export_tsv),
        "vlmeval-hook": (
            "install / remove / show the .pth hook that lets VLMEvalKit's own run.py run our tasks",
            _cmd_vlmeval_hook,
        ),
    }
)
# --- end VLMEvalKit


def _version_text() -> str:
    from importlib import metadata

    import ambi_plugin

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    return (
        f"ambi-plugin {ambi_plugin.__version__} (lmms-eval {version('lmms-eval')}, VLMEvalKit {version('ms-vlmeval')})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ambi",
        description="ambi-plugin: perception benchmarks for vision-language models, for lmms-eval.",
    )
    parser.add_argument("--version", action="version", version=_version_text())
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    p = {name: sub.add_parser(name, help=desc, description=desc) for name, (desc, _) in COMMANDS.items()}
    parser.set_defaults(_subparsers=p)

    p["synth"].add_argument("--out", required=True, help="folder to write (replaced atomically)")
    p["synth"].add_argument("--seed", type=int, default=0, help="random seed: same seed and n, same suite (default 0)")
    p["synth"].add_argument("--n", type=int, default=None, help="items per task (default: the suite's default)")
    p["make-tiny-model"].add_argument("dir", help="folder to write the model into")
    p["make-tiny-model"].add_argument("--seed", type=int, default=0, help="seed of the random weights (default 0)")
    p["replay-file"].add_argument("--out", required=True, help="JSONL file to write")
    p["replay-file"].add_argument("--tasks", default="ambi_synth_all", help="comma-separated tasks or groups of ours")
    p["replay-file"].add_argument(
        "--mode",
        choices=("gold", "wrong", "garbage"),
        default="gold",
        help="gold: the correct answers; wrong: deliberately wrong ones; garbage: unparseable text (default gold)",
    )
    p["replay-file"].add_argument(
        "--data-dir", default=None, help="read records from this folder instead of the synth suite"
    )
    p["validate-tasks"].add_argument(
        "paths",
        nargs="*",
        help="task YAML folders or files to check instead of ours (e.g. your --include_path): each YAML is read and "
        "its top-level keys checked against lmms-eval's, naming file, task and key",
    )
    p["validate-tasks"].add_argument("--no-load", action="store_true", help="skip building each task through lmms-eval")
    p["validate-tasks"].add_argument("--verbose", action="store_true", help="each problem in full (default: one line)")
    p["demo"].add_argument("--output", default=None, help="lmms-eval output folder (default: a folder in the cache)")
    p["demo"].add_argument("--limit", type=int, default=None, help="items per task (default: all)")
    p["results"].add_argument("path", help="results JSON or lmms-eval output folder")
    p["data"].add_argument(
        "--check",
        nargs="+",
        metavar="BENCHMARK",
        default=None,
        help="only these benchmarks; exit 0 when every one is usable here, 1 otherwise",
    )
    for name in PASSTHROUGH:
        p[name].add_argument("rest", nargs=argparse.REMAINDER, help="lmms-eval's own arguments, passed unchanged")
    sc = p["score"]
    sc.add_argument("--task", help="one task of ours, e.g. ambi_illusionvqa_comprehension")
    sc.add_argument(
        "--answers",
        help="JSONL {id, response} / ambi_replay / lmms-eval samples (or its output folder), or a JSON list",
    )
    sc.add_argument("--judge", default=None, help="re-judge with BACKEND[:MODEL] (offline, openai, lmms_eval, hf)")
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
    sc.add_argument(
        "--explain", default=None, metavar="ID",
        help="instead: for the record ID, print the raw answer, what each parser stage saw, the reading, gold, score",
    )  # fmt: skip
    rp = p["report"]
    rp.add_argument("results", nargs="+", help="lmms-eval output folders or results JSON files (one model or run each)")
    rp.add_argument(
        "--format", action="append", default=None, help="md, csv, latex, json, html (comma list; default md)"
    )
    rp.add_argument("--out", default="ambi-report", help="folder to write report.<ext> and plots/ into")
    rp.add_argument("--name", action="append", default=None, help="model name per results path (in order)")
    rp.add_argument("--compare-paper", action="store_true", help="add the papers' rows and the differences")
    rp.add_argument("--paper-name", action="append", default=None, help="MODEL=PAPER ROW NAME, to match a paper row")
    rp.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for 95%% intervals (0: none)")
    rp.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    rp.add_argument("--test", choices=("welch", "paired"), default="welch", help="significance test (default Welch)")
    rp.add_argument("--no-plots", action="store_true", help="skip the charts (no matplotlib needed)")
    rp.add_argument("--quiet", action="store_true", help="do not print the Markdown report")
    im = p["import"]
    im.add_argument(
        "benchmark", choices=("illusionbench", "illusionvqa", "ambibench"), help="the benchmark the release is of"
    )
    im.add_argument("--jsonl", required=True, help="the released questions (see hf_dataset_cards/<benchmark>.md)")
    im.add_argument("--images", required=True, help="folder holding the images the JSONL names")
    im.add_argument("--out", required=True, help="folder to write the canonical records and images to")
    im.add_argument("--shuffle-seed", type=int, default=0, help="illusionbench: seed of the MC option shuffle")
    im.add_argument(
        "--task",
        choices=("comprehension", "soft_localization"),
        default="comprehension",
        help="illusionvqa: which of its two releases the JSONL is (default comprehension)",
    )
    im.add_argument("--fewshot-jsonl", default=None, help="illusionvqa: the 4 few-shot examples (train split)")
    im.add_argument("--fewshot-images", default=None, help="illusionvqa: their image folder (default: --images)")
    im.add_argument(
        "--layout",
        choices=("release", "visual_anagrams"),
        default="release",
        help="ambibench: 'release' is our own annotation layout (--jsonl a file or folder of JSONL, --images the "
        "folder media paths are relative to; see docs/ambibench.md), 'visual_anagrams' the gallery as multi-view items "
        "(--jsonl labels.json). The authors' published BLNL/AmbiBench needs no import: point AMBI_AMBIBENCH_DIR at it",
    )
    p["viabench"].add_argument("rest", nargs=argparse.REMAINDER, help="import | baseline | runs, and their arguments")
    rc = p["rcid-copy"]
    rc.add_argument("--out", required=True, help="folder to write (then: export AMBI_RCID_DIR=<out>)")
    rc.add_argument(
        "--hub",
        default=None,
        help="a Hub id (mao1207/RCID), a folder laid out like it, or a folder of data built with the authors' code "
        "(questions.json / train_results.json); default: generate",
    )
    rc.add_argument("--human", default=None, help="the authors' data: a file of human answers (docs/rcid.md)")
    rc.add_argument("--n", type=int, default=8, help="generated images per illusion type (at least 8)")
    rc.add_argument("--seed", type=int, default=0, help="seed of the generated copy")
    rc.add_argument("--type", default=None, choices=("contrast", "stripe", "filter"), help="--hub: type of every row")
    jc = p["judge-cache"]
    jc.add_argument(
        "action", nargs="?", choices=("show", "clear"), default="show", help="show counts (default) or clear replies"
    )
    jc.add_argument("--path", default=None, help="cache file (default: $AMBI_CACHE/judge/judge.sqlite)")
    jc.add_argument("--backend", default=None, help="clear: only this backend's replies")
    jc.add_argument("--model", default=None, help="clear: only this judge model's replies")
    jc.add_argument("--errors", action="store_true", help="clear: only unreadable replies (asked again next run)")
    ja = p["judge-agreement"]
    ja.add_argument("a", help="verdicts of judge A: JSONL {id, value} lines or lmms-eval logged samples")
    ja.add_argument("b", help="verdicts of judge B on the same items")
    ja.add_argument("--json", action="store_true", help="print the result as JSON")
    _switch_heads_arguments(p["switch-heads"])
    _add_dataset_arguments(p)
    _vlmeval_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in PASSTHROUGH and argv[1:] not in (["-h"], ["--help"]):
        args = argparse.Namespace(command=argv[0], rest=argv[1:])  # lmms-eval's arguments, untouched by argparse
    else:
        args, extra = parser.parse_known_args(argv)
        if extra:  # the subcommand's own usage, not the top-level one
            subparsers = getattr(args, "_subparsers", {}) or {}
            target = subparsers.get(args.command) or parser
            target.error(f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        parser.print_help()
        return 0
    if args.command == "report" and not args.format:
        args.format = ["md"]
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
