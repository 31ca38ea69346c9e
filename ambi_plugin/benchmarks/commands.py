"""What a benchmark adds to the ``ambi`` command, on its registry entry (:class:`ambi_plugin.benchmarks.registry.
BenchmarkEntry`): commands of its own, its options of ``ambi import``, the defaults of an analysis run on its records.

The generic CLI builds its parser from these (``cli/benchmark_commands.py``, ``cli/data.py``, ``cli/switch_heads_args.py``):
a benchmark's folder declares its arguments with :mod:`argparse` and its handlers, and imports nothing above the
benchmarks layer; what a handler needs from a layer above (reading results JSONs, say) is handed in
(:class:`CommandTools`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


@dataclass(frozen=True)
class CommandTools:
    """What the layers above a benchmark's folder lend its commands, handed in by the CLI when it runs one.

    * ``repeated_runs(paths)``: N lmms-eval results JSONs (or output folders) of the benchmark's tasks -> the mean
      and standard deviation of each task's metrics over the runs, laid out by the entry's ``repeated_runs``
      (:func:`ambi_plugin.reports.repeated_runs.summarize`): ``{"runs", "metrics", "text", ...}``.
    """

    repeated_runs: Callable[[Sequence[str | Path]], dict]


@dataclass(frozen=True)
class Command:
    """A command of the benchmark's own: ``ambi <name> ...`` (``ambi --help`` lists it after ``ambi data``).

    * ``help``: its line in ``ambi --help`` (and its description);
    * ``arguments(parser)``: declares its arguments on the subparser ``ambi <name>``;
    * ``run(args, tools)``: runs it (``tools``: :class:`CommandTools`) and returns the exit status. An error for the
      user is a ``ValueError`` / ``OSError`` / ``KeyError`` (printed as ``ambi <name>: error: ...``, status 2).
    """

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, CommandTools], int]


@dataclass(frozen=True)
class Importer:
    """``ambi import <benchmark>``: a released JSONL + its image folder -> a canonical local copy.

    * ``run(jsonl, images, out, args)``: writes the copy and returns ``{records name: count}``; ``args`` holds the
      importer's own options;
    * ``arguments(parser)``: the options of its own it adds to ``ambi import`` (their help names the benchmark);
      the parser is shared by every importer, so an option name is the importer's to own.
    """

    run: Callable[[Path, Path, Path, argparse.Namespace], Mapping[str, int]]
    arguments: Callable[[argparse.ArgumentParser], None] | None = None


@dataclass(frozen=True)
class SwitchHeads:
    """The perceptual-switch-head experiment of the benchmark's paper, the defaults of ``ambi switch-heads``:
    ``records``: the source its capture, patching and overlays read (``ambi://<name>``); ``tasks``: the tasks its
    interventions are scored on (Tables 3 and 4)."""

    records: str
    tasks: tuple[str, ...]


__all__ = ["Command", "CommandTools", "Importer", "SwitchHeads"]
