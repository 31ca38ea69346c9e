"""One replayed lmms-eval run shared by the report tests: the real CLI with ``ambi_replay`` on the synthetic
suite plus AmbiBench, IllusionBench and IllusionVQA fixture tasks, ``--limit 6``; every third record (by
position) answered wrong, the rest gold, so each table can be computed by hand from the records."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from illusion_fixtures import illusionbench_copy, illusionvqa_copy  # noqa: E402

from ambi_plugin.core.answers import reference_response  # noqa: E402
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval  # noqa: E402
from ambi_plugin.replayfile import expand_tasks, task_records  # noqa: E402

TASKS = (
    "ambi_synth_all,ambibench_nonambi_open,ambibench_hybrid_open,ambibench_bistable_choice,"
    "ambi_illusionbench_tf,ambi_illusionvqa_comprehension"
)
LIMIT = 6


def is_gold(position: int) -> bool:
    return position % 3 != 0


@dataclass
class Replayed:
    out: Path  # lmms-eval --output_path
    records: dict[str, list[dict]]  # task -> the records the run saw (first LIMIT), in order


@pytest.fixture(scope="session")
def replayed(tmp_path_factory, shared_data) -> Replayed:
    import os

    root = tmp_path_factory.mktemp("report_run")
    env = {
        "AMBI_ILLUSIONBENCH_DIR": str(illusionbench_copy(root / "ib")),
        "AMBI_ILLUSIONVQA_DIR": str(illusionvqa_copy(root / "iv", shared_data)),
    }
    os.environ.update(env)
    rows, records = [], {}
    for info in expand_tasks(TASKS):
        recs = task_records(info)
        records[info.name] = recs[:LIMIT]
        for i, rec in enumerate(recs):
            mode = "gold" if is_gold(i) else "wrong"
            rows.append({"task": info.name, "id": str(rec["id"]), "response": reference_response(rec, mode)})
    preds = root / "answers.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = root / "out"
    run = run_lmms_eval(replay_args(preds, TASKS, "--limit", str(LIMIT)), output=out, env=dict(os.environ))
    if run.results is None:
        pytest.fail(f"lmms-eval wrote no results JSON\n{run.tail()}")
    return Replayed(out, records)
