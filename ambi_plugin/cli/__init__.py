"""The ``ambi`` command (console script ``ambi = ambi_plugin.cli:main``): :mod:`.parser` builds it from one module
per command group (:mod:`.tasks`, :mod:`.run`, :mod:`.results`, :mod:`.data`, :mod:`.datasets`, :mod:`.judge`,
:mod:`.switch_heads_args` (its steps: :mod:`.switch_heads`), :mod:`.vlmeval`) and the commands the benchmarks'
registry entries declare (:mod:`.benchmark_commands`). Run ``ambi --help`` for the list, ``ambi <command> --help`` for
each.
"""

from ambi_plugin.cli.parser import PASSTHROUGH, build_parser, commands, main


def __getattr__(name: str):
    if name == "COMMANDS":  # every command, as commands() reads them now (the registry's included)
        return commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "PASSTHROUGH", "build_parser", "commands", "main"]
