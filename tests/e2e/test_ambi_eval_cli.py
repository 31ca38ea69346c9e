"""``ambi lmms-eval`` passes every argument to lmms-eval; ``ambi eval`` exits non-zero when a run fails.

lmms-eval itself exits 0 when a run fails, so ``ambi eval`` reads the results JSON the run wrote; an
older results JSON in the same output folder must not pass for a new run's.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.lmms.cli_run import replay_args

pytestmark = pytest.mark.e2e

TASK = "ambi_synth_geometric_yn"


def ambi(*args: str, env: dict) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ambi_plugin.cli", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def test_lmms_eval_passthrough_and_eval_exit_codes(tmp_path, offline_env):
    gold = tmp_path / "gold.jsonl"
    write_reference_predictions(gold, tasks=TASK, mode="gold")
    out = tmp_path / "out"
    args = [*replay_args(gold, TASK), "--limit", "2", "--output_path", str(out)]

    # lmms-eval's own options straight after the subcommand (once "unrecognized arguments: --model")
    proc = ambi("lmms-eval", *args, env=offline_env)
    written = list(out.rglob("*_results.json"))
    assert len(written) == 1, proc.stderr[-3000:]
    assert json.loads(written[0].read_text())["results"][TASK]["acc,none"] == 1.0

    # a failing run (a missing answer) into the same folder: the old results JSON does not count
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(gold.read_text().splitlines(keepends=True)[1:]))
    failed = ambi("eval", *replay_args(partial, TASK), "--limit", "2", "--output_path", str(out), env=offline_env)
    assert failed.returncode != 0
    assert "the run failed" in failed.stderr and "no saved response" in failed.stdout + failed.stderr

    ok = ambi("eval", *args, env=offline_env)
    assert ok.returncode == 0, ok.stderr[-3000:]
    assert "results of 1 requested task(s)" in ok.stderr and len(list(out.rglob("*_results.json"))) == 2
