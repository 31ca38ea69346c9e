"""core/judging.py: core scoring gets its judge handed in (a judge, or a provider called on first need); nothing is\ninstalled on import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ambi_plugin.core import judging
from ambi_plugin.core.scoring import score_item

OPEN = {
    "id": "o1",
    "benchmark": "b",
    "category": "c",
    "task_type": "open",
    "views_positional": False,
    "views": [{"name": "a", "labels": ["cat"]}],
}


def test_importing_the_judge_runtime_and_benchmarks_installs_and_builds_no_judge():
    """No judge provider is installed and no judge is built as a side effect of an import: a run hands its judge in
    (runtime/run_state.py). A fresh interpreter, so nothing another test did counts."""
    code = (
        "from ambi_plugin.judge.base import Judge\n"
        "built = []\n"
        "init = Judge.__init__\n"
        "def spy(self, *a, **k):\n"
        "    built.append(type(self).__name__)\n"
        "    init(self, *a, **k)\n"
        "Judge.__init__ = spy\n"
        "import ambi_plugin.runtime, ambi_plugin.benchmarks, ambi_plugin.judge\n"
        "import ambi_plugin.runtime.hooks, ambi_plugin.runtime.aggregate, ambi_plugin.runtime.extraction\n"
        "from ambi_plugin.benchmarks.registry import entries\n"
        "entries()\n"
        "import ambi_plugin.benchmarks.viabench.lmms, ambi_plugin.benchmarks.illusionbench.llm\n"
        "from ambi_plugin.core import judging\n"
        "print('provider', judging.judge_provider())\n"
        "print('judge', ambi_plugin.judge.current_judge())\n"
        "print('built', built)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.splitlines() == ["provider None", "judge None", "built []"], out.stdout + out.stderr


def test_a_judge_handed_in_is_used_and_no_provider_is_needed():
    class Always:
        backend_name, model = "fake", "m"

        def set_match(self, gold, predicted):
            from ambi_plugin.judge.voting import Verdict

            return Verdict(True, raw=["yes"])

    old = judging.set_judge_provider(None)
    try:
        item = score_item(OPEN, "dog", judge=Always())
        assert item["correct"] is True and item["judge"]["backend"] == "fake"
        with pytest.raises(judging.NoJudgeError):
            score_item(OPEN, "dog")
    finally:
        judging.set_judge_provider(old)
