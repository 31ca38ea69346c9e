"""The papers' own numbers, shipped as data (``reports/reference/<benchmark>.json``), each benchmark's given by its
registry entry (``reference``).

Each file holds ``tables: {key: {title, unit, digits, columns, rows}}``; a row is ``{name, values, group?,
setting?, note?, marks?}`` with ``values`` in the printed units and order of ``columns`` (None = a "-"
cell). ``marks`` maps a column to why its printed cell contradicts the paper's own counts or totals;
such cells are kept as printed and shown with a "!". The table keys are the layout keys of
:mod:`ambi_plugin.reports.layouts`.
"""

from __future__ import annotations

import re
from functools import cache


def benchmarks() -> tuple[str, ...]:
    """The benchmarks whose registry entry ships reference rows."""
    from ambi_plugin.benchmarks.registry import entries

    return tuple(e.name for e in entries().values() if e.reference is not None)


def __getattr__(name: str):
    if name == "BENCHMARKS":  # read when asked: a benchmark registered later is in it too
        return benchmarks()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def load_reference(benchmark: str) -> dict:
    """The reference data of one benchmark (see the module docstring)."""
    known = benchmarks()
    if benchmark not in known:
        raise ValueError(f"Expected argument `benchmark` to be one of {known} but got {benchmark!r}")
    from ambi_plugin.benchmarks.registry import get

    return get(benchmark).reference()


def reference_table(key: str) -> dict | None:
    """The reference table whose key is ``key`` (a layout key), or None when no paper prints one."""
    for bench in benchmarks():
        table = load_reference(bench)["tables"].get(key)
        if table is not None:
            return table
    return None


def normalize_name(name: str) -> str:
    """A model name reduced for matching: lower case, letters and digits only, no org prefix, no '-hf'."""
    name = name.rsplit("/", 1)[-1].lower()
    name = re.sub(r"-hf$", "", name)
    return re.sub(r"[^a-z0-9.]", "", name)


def find_paper_row(table: dict, model: str, setting: str = "", aliases: dict[str, str] | None = None) -> dict | None:
    """The paper row for ``model`` (and ``setting`` when rows carry one): by alias, else by normalized name."""
    want = normalize_name((aliases or {}).get(model, model))
    for row in table["rows"]:
        if normalize_name(row["name"]) != want:
            continue
        if setting and row.get("setting") and normalize_name(row["setting"]) != normalize_name(setting):
            continue
        return row
    return None
