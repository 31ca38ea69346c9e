"""Thin VLMEvalKit adapters: a dataset class per task, generated from the task YAMLs; a launcher; TSV export.

Only this subpackage imports ``vlmeval``, and only when a function needs it (``import vlmeval`` loads the
whole toolkit). Install with the ``vlmeval`` extra (``ms-vlmeval``). See ``docs/vlmevalkit.md``.

* :func:`register` — our tasks into ``vlmeval.dataset`` and ``ambi_replay`` into ``supported_VLM``;
* ``python -m ambi_plugin.vlmeval ...`` / ``ambi vlmeval ...`` — register, then VLMEvalKit's ``run.py``;
* :func:`export_tsv` — a benchmark's tasks as LMUData TSV files;
* :mod:`~ambi_plugin.vlmeval.predfile` — prediction files read as the model's answers, damage counted;
* :mod:`~ambi_plugin.vlmeval.plainrun` — the opt-in ``.pth`` hook for VLMEvalKit's own run.py.
"""

from __future__ import annotations

from typing import Any


def register(tasks: list[str] | None = None) -> dict[str, type]:
    from ambi_plugin.vlmeval.registry import register as _register

    return _register(tasks)


def export_tsv(*args: Any, **kwargs: Any):
    from ambi_plugin.vlmeval.tsv import export_tsv as _export

    return _export(*args, **kwargs)


__all__ = ["export_tsv", "register"]
