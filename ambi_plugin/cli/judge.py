"""``ambi judge-cache``, ``ambi judge-agreement``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable


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
    "judge-cache": ("show or clear the persistent judge cache (replies per backend, model, prompt)", _cmd_judge_cache),
    "judge-agreement": (
        "agreement and Cohen's kappa between two judges' verdicts on the same items (JSONL files)",
        _cmd_judge_agreement,
    ),
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
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
