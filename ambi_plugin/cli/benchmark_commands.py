"""The commands benchmarks declare on their registry entries (``ambi viabench``, ``ambi rcid-copy``, one of a
benchmark of your own): a subcommand each, whose help, arguments and handler are the entry's
(:class:`ambi_plugin.benchmarks.commands.Command`); the tools a handler may use from the layers above its folder are
handed in here (:class:`ambi_plugin.benchmarks.commands.CommandTools`)."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable

from ambi_plugin.benchmarks.commands import Command, CommandTools


def declared() -> dict[str, tuple[str, Command]]:
    """{command name: (benchmark, command)} of every entry, in registry order; a name two benchmarks declare is an
    error that names both."""
    from ambi_plugin.benchmarks.registry import entries

    out: dict[str, tuple[str, Command]] = {}
    for name, entry in entries().items():
        for command in entry.commands:
            if command.name in out:
                raise ValueError(
                    f"the benchmarks {out[command.name][0]!r} and {name!r} both declare the command "
                    f"'ambi {command.name}'; rename one in its entry's commands"
                )
            out[command.name] = (name, command)
    return out


def tools(benchmark: str) -> CommandTools:
    """What a command of ``benchmark`` may use above its folder."""
    from ambi_plugin.reports.repeated_runs import summarize

    return CommandTools(repeated_runs=functools.partial(summarize, benchmark=benchmark))


def _handler(benchmark: str, command: Command) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return int(command.run(args, tools(benchmark)) or 0)

    return run


def commands() -> dict[str, tuple[str, Callable[[argparse.Namespace], int]]]:
    """{name: (help, handler)} of the benchmarks' own commands (for :mod:`ambi_plugin.cli.parser`)."""
    return {name: (command.help, _handler(benchmark, command)) for name, (benchmark, command) in declared().items()}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    for name, (_benchmark, command) in declared().items():
        command.arguments(p[name])
