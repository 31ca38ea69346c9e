"""``ambi switch-heads``: the command group (its entry in ``ambi --help``) and the arguments of its steps (each step runs
a command of :mod:`.switch_heads`)."""

from __future__ import annotations

import argparse

from ambi_plugin.benchmarks.commands import SwitchHeads
from ambi_plugin.cli.switch_heads import (
    CATEGORIES,
    cmd_all,
    cmd_capture,
    cmd_fit_iti,
    cmd_heatmap,
    cmd_intervene,
    cmd_patch,
    cmd_scores,
    cmd_visualize,
)


def experiment() -> SwitchHeads | None:
    """The defaults of the steps: the switch-head experiment a registry entry declares (``switch_heads``: the paper
    whose experiment it is; the first such entry), or None (then ``--records``, ``--tasks`` and ``--eval-source``
    are required)."""
    from ambi_plugin.benchmarks.registry import entries

    return next((e.switch_heads for e in entries().values() if e.switch_heads is not None), None)


def add_step_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``switch-heads`` subcommands (called by ``ambi_plugin.cli``)."""
    exp = experiment()
    records = {"default": exp.records} if exp else {"required": True}
    tasks = {"default": ",".join(exp.tasks)} if exp else {"required": True}
    default_note = f"{exp.records} (default)" if exp else "an ambi:// source"
    sub = parser.add_subparsers(dest="switch_command", metavar="<step>", required=True, help="the step to run")

    def model(p):
        p.add_argument("--model", required=True, help="lmms-eval model name: qwen2_5_vl, llava_hf, internvl3, ...")
        p.add_argument(
            "--model-args",
            "--model_args",
            dest="model_args",
            default="",
            help="lmms-eval --model_args (either spelling), e.g. pretrained=...,device_map=auto",
        )
        p.add_argument("--max-new-tokens", type=int, default=16)

    def cats(p):
        p.add_argument("--category", action="append", choices=CATEGORIES, help="repeatable; default: both")

    def capture_opts(p):
        p.add_argument("--records", **records, help=f"records JSONL, or {default_note}")
        p.add_argument(
            "--position",
            default="last_prompt",
            help="last_prompt (default), mean_prompt, mean_generated or a negative index (from the end of each prompt)",
        )
        p.add_argument("--switch-rule", default="judge", choices=("judge", "differs"),
                       help="judge (default): 2nd answer differs and matches an expected interpretation; differs: smoke runs")  # fmt: skip
        p.add_argument("--limit", type=int, default=None, help="only the first N records per category")
        p.add_argument("--store-dtype", default="bfloat16", choices=("bfloat16", "float16", "float32"),
                       help="precision of the activations on disk (default bfloat16, recorded in capture.json)")  # fmt: skip

    def score_opts(p):
        p.add_argument("--k", type=int, default=10, help="top-k heads listed in the JSON")
        p.add_argument("--threshold", type=float, default=0.8)
        p.add_argument("--top-fraction", type=float, default=0.01, help="fallback when no head passes --threshold")
        p.add_argument("--max-fraction", type=float, default=0.1,
                       help="select at most this fraction of all heads (default 0.1), leaving room for the random "
                       "control of Table 3; 1 = no cap")  # fmt: skip

    def table_opts(p):
        p.add_argument("--tasks", **tasks)
        p.add_argument("--epsilon", type=float, default=1e-3)
        p.add_argument("--seeds", type=int, default=3, help="random-head control seeds")
        p.add_argument("--alphas", default="0.1,0.3,0.5")
        p.add_argument(
            "--num-processes", type=int, default=1, help="> 1: each run under accelerate launch (data parallel)"
        )

    p = sub.add_parser("capture", help="record head activations before/after the switch (resumable)")
    model(p), cats(p), capture_opts(p)
    p.add_argument("--out", required=True)
    p.set_defaults(switch_func=cmd_capture)

    p = sub.add_parser("scores", help="switching scores, switch heads, sparsity, Pearson, heatmaps")
    cats(p), score_opts(p)
    p.add_argument("--out", required=True, help="the capture's --out folder")
    p.set_defaults(switch_func=cmd_scores)

    p = sub.add_parser("heatmap", help="draw a scores JSON as a heatmap PNG")
    p.add_argument("scores", help="scores_<category>.json")
    p.add_argument("--png", default=None)
    p.add_argument("--title", default="")
    p.add_argument("--threshold", type=float, default=0.8)
    p.set_defaults(switch_func=cmd_heatmap)

    p = sub.add_parser("fit-iti", help="ITI directions and sigmas from a capture of held-out items")
    p.add_argument("--capture", required=True, help="OUT/<category> of a capture run on held-out items")
    p.add_argument("--heads", required=True, help="switch_heads.json")
    p.add_argument("--out", required=True, help="heads file with directions to write")
    p.add_argument("--dataset-name", default=None,
                   help="records the fit items belong to (default: from capture.json, e.g. bistable_open)")  # fmt: skip
    p.set_defaults(switch_func=cmd_fit_iti)

    p = sub.add_parser("intervene", help="Tables 3 (mask) and 4 (ITI) through lmms-eval's ambi_intervene")
    model(p), table_opts(p)
    p.add_argument("--heads", default=None, help="switch heads file (Table 3)")
    p.add_argument("--iti", default=None, help="ITI heads file from fit-iti (Table 4)")
    p.add_argument("--eval-source", **records,
                   help="records source of the evaluated tasks; the ITI fit items are left out of a copy of it")  # fmt: skip
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", required=True)
    p.set_defaults(switch_func=cmd_intervene)

    p = sub.add_parser("patch", help="causal check: activation patching and AtP of the heads on switched images")
    model(p), cats(p)
    p.add_argument("--out", required=True, help="the capture's --out folder (patching_<category>.* are written there)")
    p.add_argument("--records", **records, help="the records the capture read (for the images)")
    p.add_argument("--heads", default=None, help="heads file (default: OUT/switch_heads_<category>.json)")
    p.add_argument("--position", default=None,
                   help="token position to patch (default: the capture's): last_prompt or a negative index from the "
                   "end of each prompt")  # fmt: skip
    p.add_argument("--per-head-k", type=int, default=10,
                   help="patch head by head the union of the top k by switching score s and the top k by AtP "
                   "(default 10; 0 = every head, as --all-heads)")  # fmt: skip
    p.add_argument(
        "--all-heads",
        action="store_true",
        help="patch every head one by one (the cost, forward passes x measured seconds, is printed first)",
    )
    p.add_argument("--atp-star", action="store_true",
                   help="also AtP* (GradDrop, Kramar et al. 2024): its own column and its top k in the union; one "
                   "more forward and backward pass per layer and image")  # fmt: skip
    p.add_argument(
        "--draws",
        type=int,
        default=100,
        help="layer-matched random head sets for the permutation test (every set when there are fewer)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random sets and the bootstrap")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples over images for the intervals")
    p.add_argument("--limit", type=int, default=None, help="only the first N switched images")
    p.set_defaults(switch_func=cmd_patch)

    p = sub.add_parser("visualize", help="A.8 attention overlay at the middle layer")
    model(p), cats(p)
    p.add_argument("--records", **records)
    p.add_argument("--image", default=None, help="one image (else the first --limit records' images)")
    p.add_argument("--prompt", default=None, help="default: the category's first capture prompt")
    p.add_argument("--layer", type=int, default=None, help="default: half the language model's depth")
    p.add_argument("--limit", type=int, default=1)
    p.add_argument("--out", required=True)
    p.set_defaults(switch_func=cmd_visualize)

    p = sub.add_parser("all", help="capture, scores, heatmap, visualize and Table 3 in one go")
    model(p), cats(p), capture_opts(p), score_opts(p), table_opts(p)
    p.add_argument("--out", required=True)
    p.set_defaults(switch_func=cmd_all)


def run(args: argparse.Namespace) -> int:
    return int(args.switch_func(args) or 0)


def _cmd_switch_heads(args: argparse.Namespace) -> int:
    return run(args)


COMMANDS = {
    "switch-heads": (
        "perceptual-switch heads: capture, scores, heatmap, fit-iti, intervene, visualize, all",
        _cmd_switch_heads,
    )
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    """The ``switch-heads`` subcommands (called by :func:`ambi_plugin.cli.parser.build_parser`)."""
    add_step_arguments(p["switch-heads"])
