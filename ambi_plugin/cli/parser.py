"""The ``ambi`` command's parser and entry point: one thin subcommand per library function, one module per group.

Run ``ambi --help`` for the list, ``ambi <command> --help`` for each.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ambi_plugin.cli import data, datasets, judge, results, run, switch_heads_args, tasks, vlmeval
from ambi_plugin.cli.run import PASSTHROUGH

_GROUPS = (run, tasks, results, data, judge, datasets, switch_heads_args, vlmeval)
ORDER = (
    "demo", "tasks", "tasks-path", "synth", "make-tiny-model", "replay-file", "validate-tasks", "results", "lmms-eval",
    "eval", "score", "report", "import", "data", "viabench", "rcid-copy", "judge-cache", "judge-agreement", "build",
    "validate", "push", "new-category", "switch-heads", "vlmeval", "export-tsv", "vlmeval-hook",
)  # fmt: skip
_ALL = {name: cmd for group in _GROUPS for name, cmd in group.COMMANDS.items()}
COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {name: _ALL[name] for name in ORDER}


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

    for group in _GROUPS:
        group.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in PASSTHROUGH and argv[1:] not in (["-h"], ["--help"]):
        # lmms-eval's arguments, untouched by argparse (the subparsers: a command's own help)
        args = argparse.Namespace(command=argv[0], rest=argv[1:], _subparsers=parser.get_default("_subparsers"))
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
        from ambi_plugin.synth import DEFAULT_N

        args.n = DEFAULT_N
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return COMMANDS[args.command][1](args)
    except (ValueError, FileNotFoundError, OSError, KeyError) as exc:
        print(f"ambi {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
