"""What several command groups of ``ambi`` share: the harness check before a run, ``--judge BACKEND[:MODEL]``."""

from __future__ import annotations

import sys


def harness_ready(harness: str) -> bool:
    """Import what ``harness`` needs for a run before anything else; a failure is one line on stderr."""
    from ambi_plugin.installcheck import require_harness

    return require_harness(harness, echo=lambda msg: print(msg, file=sys.stderr))


def judge_from_arg(spec: str | None):
    """``--judge BACKEND[:MODEL]`` -> a judge (None: the configured one)."""
    if not spec:
        return None
    from ambi_plugin.judge import make_judge

    backend, _, model = spec.partition(":")
    return make_judge(backend=backend, **({"model": model} if model else {}))
