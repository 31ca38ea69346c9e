"""``ambi results``, ``ambi score``, ``ambi report``: thin commands over :mod:`ambi_plugin.reports`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ambi_plugin.cli.common import judge_from_arg as _judge_from_arg


def _cmd_results_table(args: argparse.Namespace) -> int:
    from ambi_plugin.reports.results import results_sections
    from ambi_plugin.runtime.unparsed import format_examples

    for section in results_sections(args.path, unparsed_examples=format_examples):
        print(section)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from ambi_plugin.reports.rescore import score_answers

    if args.results:
        from ambi_plugin.reports.paper_tables import paper_tables_of_results

        print(paper_tables_of_results(args.results))
        return 0
    if not (args.task and args.answers):
        raise ValueError("ambi score needs --task and --answers (or --results PATH)")
    split = lambda text: [c.strip() for c in text.split(",") if c.strip()] if text else None  # noqa: E731
    if args.extract_with_judge:  # the same switch as plain lmms-eval's (runtime/extraction.py), for this process
        import os

        from ambi_plugin.runtime.extraction import ENV

        os.environ[ENV] = "1"
    if args.explain:
        from ambi_plugin.reports.score_explain import explain_answer

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
    if args.samples_out:
        from ambi_plugin.reports.score_samples import write_samples

        for folder in write_samples(report, args.samples_out, records=args.records, data_dir=args.data_dir):
            print(f"wrote the scored items to {folder} (ambi report {folder} --format html shows them)")
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
    write_report(report, args.out, formats=formats, plots=not args.no_plots, items=not args.no_items,
                 progress=not args.quiet)  # fmt: skip
    for warning in report.warnings:  # also on stderr, where scripts (and --quiet users) look for warnings
        print(f"ambi report: {warning}", file=sys.stderr)
    for fmt, path in report.written.items():
        print(f"wrote {fmt}: {path}")
    if "md" in report.written and not args.quiet:
        print("\n" + report.written["md"].read_text(encoding="utf-8"))
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "results": ("print the table of an lmms-eval results JSON (a file or an output folder)", _cmd_results_table),
    "score": (
        "re-score (or re-judge) saved per-item answers or lmms-eval logged samples of any task of ours; "
        "each benchmark's tasks in its paper's tables",
        _cmd_score,
    ),
    "report": (
        "tables of every benchmark in its paper's layout from lmms-eval results folders, with the papers' rows, "
        "statistics and plots (md, csv, latex, json, html)",
        _cmd_report,
    ),
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    p["results"].add_argument("path", help="results JSON or lmms-eval output folder")
    sc = p["score"]
    sc.add_argument("--task", help="one task of ours (ambi tasks lists them)")
    sc.add_argument(
        "--answers",
        help="JSONL {id, response} / ambi_replay / lmms-eval samples (or its output folder), or a JSON list",
    )
    sc.add_argument("--judge", default=None, help="re-judge with BACKEND[:MODEL] (offline, openai, lmms_eval, hf)")
    sc.add_argument("--extract-with-judge", action="store_true",
                    help="let the judge read the closed-format answers no rule could read (off by default)")  # fmt: skip
    sc.add_argument("--column", default=None, help="comma-separated answer columns of a JSON list (e.g. GPT_0_SHOT)")
    sc.add_argument("--vote", default=None, help="comma-separated columns to add a majority vote of (human row)")
    sc.add_argument("--vote-name", default="majority vote", help="name of the majority-vote column")
    sc.add_argument("--seed", type=int, default=0, help="seed of the vote's random tie-break")
    sc.add_argument("--records", default=None, help="records file (canonical, or a released file its benchmark reads)")
    sc.add_argument("--data-dir", default=None, help="folder with the task's <dataset_name>.jsonl")
    sc.add_argument(
        "--protocol",
        choices=("rule", "llm"),
        default="rule",
        help="llm: add the LLM judge (a benchmark with an LLM-assisted protocol)",
    )
    sc.add_argument("--overrides", default=None, help="reviewed judge decisions (a filled review queue, JSONL)")
    sc.add_argument("--review-queue", default=None, help="write the items the judge marked wrong here (JSONL)")
    sc.add_argument("--allow-missing", action="store_true", help="score a missing answer as empty (wrong)")
    sc.add_argument("--json", default=None, help="also write every metric value to this JSON file")
    sc.add_argument(
        "--samples-out", default=None, metavar="DIR",
        help="also write each answer set's scored items as an lmms-eval output folder under DIR (for ambi report)",
    )  # fmt: skip
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
    rp.add_argument(
        "--bootstrap", type=int, default=1000,
        help="resamples of the bootstrap (95%% intervals of non-proportions, paired bootstrap test); 0: no intervals",
    )  # fmt: skip
    rp.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    rp.add_argument(
        "--test", choices=("welch", "paired"), default="welch",
        help="t-test of a benchmark's own significance protocol (categories; models with repeated runs): Welch, the default and "
        "the only one these samples allow (paired is accepted for scripts; the rows say Welch). Models of one run "
        "each are compared on the same items by McNemar's exact test / the paired bootstrap",
    )  # fmt: skip
    rp.add_argument("--no-plots", action="store_true", help="skip the charts (no matplotlib needed)")
    rp.add_argument(
        "--no-items", action="store_true", help="HTML: no item browser (no images copied into the report folder)"
    )
    rp.add_argument("--quiet", action="store_true", help="do not print the Markdown report")
