"""``python -m ambi_plugin.vlmeval`` / ``ambi vlmeval``: register our tasks, then run VLMEvalKit's ``run.py``.

Every argument goes to VLMEvalKit's own ``run.py`` main unchanged (``--data``, ``--model``, ``--config``,
``--judge`` ..., see ``run.py --help``), except that a group of ours in ``--data`` (``ambi_synth_all``,
``ambibench_all`` ...) is replaced by its tasks. Several GPUs (data parallel)::

    torchrun --nproc-per-node 4 -m ambi_plugin.vlmeval --data ambi_synth_all --model Qwen2.5-VL-7B-Instruct

``run.py`` logs a failing dataset and goes on with the next one (its exit code stays 0); the launcher
then exits 1 and names the tasks of ours that wrote no score file.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def expand_data_args(argv: Sequence[str]) -> list[str]:
    """``--data`` values with our groups replaced by their member tasks."""
    from ambi_plugin.vlmeval.spec import expand_names

    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--data":
            j = i + 1
            while j < len(argv) and not argv[j].startswith("--"):
                j += 1
            out += ["--data", *expand_names(list(argv[i + 1 : j]))]
            i = j
            continue
        if arg.startswith("--data="):
            out += ["--data", *expand_names([arg.split("=", 1)[1]])]
        else:
            out.append(arg)
        i += 1
    return out


def _option(argv: Sequence[str], name: str) -> list[str]:
    """The values following every ``name`` in ``argv`` (up to the next ``--option``)."""
    vals: list[str] = []
    for i, arg in enumerate(argv):
        if arg == name:
            for val in argv[i + 1 :]:
                if val.startswith("--"):
                    break
                vals.append(val)
    return vals


def missing_scores(argv: Sequence[str]) -> list[str]:
    """Our tasks named by ``--data`` x ``--model`` whose score file is absent after the run."""
    import os

    from ambi_plugin.vlmeval.registry import registered

    if "--config" in argv or os.environ.get("RANK", "0") != "0" or "infer" in _option(argv, "--mode"):
        return []
    work = Path((_option(argv, "--work-dir") or [os.environ.get("MMEVAL_ROOT", "./outputs")])[0])
    ours = [d for d in _option(argv, "--data") if d in registered()]
    return [
        f"{model} x {task}"
        for model in _option(argv, "--model")
        for task in ours
        if not any((work / model).rglob(f"{model}_{task}_score.json"))
    ]


def main(argv: Sequence[str] | None = None) -> int:
    argv = expand_data_args(list(sys.argv[1:] if argv is None else argv))
    from ambi_plugin.vlmeval.registry import VLMEvalKitMissing, register

    try:
        register()
    except VLMEvalKitMissing as exc:
        print(f"ambi vlmeval: error: {exc}", file=sys.stderr)
        return 2
    import vlmeval.run as run
    from vlmeval.smp import load_env

    load_env()
    sys.argv = ["run.py", *argv]
    run.main()
    if any(a in ("-h", "--help") for a in argv):
        return 0
    missing = missing_scores(argv)
    if missing:
        print(f"ambi vlmeval: no scores for {', '.join(missing)} (see VLMEvalKit's log above)", file=sys.stderr)
        return 1
    return 0


__all__ = ["expand_data_args", "main", "missing_scores"]
