"""The VLMEvalKit tests share the IllusionBench / IllusionVQA fixture builders of ``tests/benchmarks``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
