"""The ``ambi`` command's parser and entry point: one thin subcommand per library function, one module per group.

Run ``ambi --help`` for the list, ``ambi <command> --help`` for each.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ambi_plugin.cli import benchmark_commands, data, datasets, judge, results, run, switch_heads_args, tasks, vlmeval
from ambi_plugin.cli.run import PASSTHROUGH

_GROUPS = (run, tasks, results, data, judge, datasets, switch_heads_args, vlmeval)
ORDER = (
    "demo", "tasks", "tasks-path", "synth", "make-tiny-model", "replay-file", "validate-tasks", "results", "lmms-eval",
    "eval", "score", "report", "import", "data", "judge-cache", "judge-agreement", "build", "validate", "push",
    "new-category", "switch-heads", "vlmeval", "export-tsv", "vlmeval-hook",
)  # fmt: skip
BENCHMARK_COMMANDS_AFTER = "data"  # the benchmarks' own commands (their registry entries'), beside the local copies
_ALL = {name: cmd for group in _GROUPS for name, cmd in group.COMMANDS.items()}


def commands() -> dict[str, tuple[str, Callable[[argparse.Namespace], int]]]:
    """{name: (help, handler)} of every command in ``ambi --help`` order: ours (``ORDER``), and after
    ``ambi data`` the commands the benchmarks' registry entries declare (read when called, so a benchmark registered
    through ``$AMBI_BENCHMARKS`` is in)."""
    own = benchmark_commands.commands()
    taken = sorted(set(own) & set(ORDER))
    if taken:
        owners = {name: benchmark for name, (benchmark, _c) in benchmark_commands.declared().items()}
        raise ValueError(
            "a benchmark declares a command ambi already has: "
            + ", ".join(f"'ambi {name}' ({owners[name]})" for name in taken)
            + "; rename it in its entry's commands"
        )
    out: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {}
    for name in ORDER:
        out[name] = _ALL[name]
        if name == BENCHMARK_COMMANDS_AFTER:
            out.update(own)
    return out


def __getattr__(name: str):
    if name == "COMMANDS":  # every command, as commands() reads them now
        return commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    p = {name: sub.add_parser(name, help=desc, description=desc) for name, (desc, _) in commands().items()}
    parser.set_defaults(_subparsers=p)

    for group in (*_GROUPS, benchmark_commands):
        group.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from ambi_plugin.benchmarks.registry import BenchmarkPluginError

    try:
        parser = build_parser()
        handlers = commands()
    except (BenchmarkPluginError, ValueError) as exc:  # a benchmark's registration: what and where, one line
        print(f"ambi: error: {exc}", file=sys.stderr)
        return 2
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
        return handlers[args.command][1](args)
    except (ValueError, FileNotFoundError, OSError, KeyError) as exc:
        print(f"ambi {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
