"""VLMEvalKit (ambi_plugin.vlmeval): ``ambi vlmeval ...`` runs VLMEvalKit's run.py with our tasks registered,
``ambi export-tsv BENCH`` writes LMUData TSV files, ``ambi vlmeval-hook`` the plain run.py hook."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ambi_plugin.cli.common import harness_ready as _harness_ready


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


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    p["vlmeval"].add_argument("rest", nargs=argparse.REMAINDER, help="arguments passed to VLMEvalKit's run.py")
    p["vlmeval"].prefix_chars = "+"  # every --option (also --help) goes to run.py, none is parsed here
    p["export-tsv"].add_argument("bench", help="a benchmark (ambi data lists them), a group or tasks (a,b)")
    p["export-tsv"].add_argument("--out", default=None, help="folder to write (default: $LMUData or ~/LMUData)")
    hook = p["vlmeval-hook"]
    hook.add_argument(
        "action", nargs="?", choices=("install", "remove", "status"), default="status", help="default: status"
    )
    hook.add_argument(
        "--site", default=None, help="folder for the .pth file (default: this environment's site-packages)"
    )


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "vlmeval": ("run VLMEvalKit's run.py with our tasks and the ambi_replay model registered", _cmd_vlmeval),
    "export-tsv": ("write a benchmark's tasks as VLMEvalKit TSV files (LMUData layout)", _cmd_export_tsv),
    "vlmeval-hook": (
        "install / remove / show the .pth hook that lets VLMEvalKit's own run.py run our tasks",
        _cmd_vlmeval_hook,
    ),
}
