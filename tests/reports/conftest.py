"""One replayed lmms-eval run shared by the report tests: the real CLI with ``ambi_replay`` on the synthetic
suite plus AmbiBench, IllusionBench, IllusionVQA and VIA-Bench fixture tasks, ``--limit 6`` (the synthetic tasks
hold 8 records: the run sees a subset); every third record (by position) answered wrong, the rest gold, so each
table can be computed by hand from the records. Two refinements, also by position:

* open answers with views (hybrid, color, multi-view): a "wrong" answer names the first view right and the others
  wrong (``xylophone``), so per-view accuracies differ from the combined one;
* VIA-Bench: position % 3 == 0 ``Answer: [<gold>]`` (right in Match and Judge), 1 the gold option's text (Match
  finds no label, the judge reads the option: right in Judge only), 2 ``Answer: [<Not Sure>]`` (wrong in both).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from illusion_fixtures import illusionbench_copy, illusionvqa_copy  # noqa: E402
from viabench_fixtures import build_copy as viabench_copy  # noqa: E402

from ambi_plugin.core.answers import reference_response  # noqa: E402
from ambi_plugin.data.replayfiles import task_records
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval  # noqa: E402
from ambi_plugin.runtime.taskindex import expand_tasks

TASKS = (
    "ambi_synth_all,ambibench_nonambi_open,ambibench_hybrid_open,ambibench_bistable_choice,ambibench_color_open,"
    "ambibench_multiview_open,ambibench_motion_coco_yes_no,ambibench_motion_static_yes_no,"
    "ambibench_motion_image_yes_no,ambibench_multiscene_localization,ambibench_mixed_localization,"
    "ambi_illusionbench_tf,ambi_illusionbench_mc,ambi_illusionbench_description,ambi_illusionvqa_comprehension,"
    "ambi_illusionvqa_soft_localization,ambi_viabench_va,ambi_viabench_ci"
)
LIMIT = 6
UNRELATED = "xylophone"


def is_gold(position: int) -> bool:
    return position % 3 != 0


def via_right(position: int, protocol: str) -> bool:
    """Whether the VIA-Bench answer at ``position`` is right under ``protocol`` ("match" / "judge")."""
    return position % 3 == 0 or (protocol == "judge" and position % 3 == 1)


def response(task: str, rec: dict, position: int) -> str:
    if task.startswith("ambi_viabench"):
        gold = rec["answer_index"]
        return [f"Answer: [{chr(65 + gold)}]", rec["options"][gold],
                f"Answer: [{chr(65 + rec['not_sure_index'])}]"][position % 3]  # fmt: skip
    if is_gold(position):
        return reference_response(rec, "gold")
    if rec["task_type"] == "open" and len(rec.get("views") or []) > 1 and rec.get("answer_format") == "comma_list":
        return ", ".join([rec["views"][0]["labels"][0].split("|")[0]] + [UNRELATED] * (len(rec["views"]) - 1))
    return reference_response(rec, "wrong")


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
        "AMBI_VIABENCH_DIR": str(viabench_copy(root / "via", shared_data)),
    }
    os.environ.update(env)
    rows, records = [], {}
    for info in expand_tasks(TASKS):
        recs = task_records(info)
        records[info.name] = recs[:LIMIT]
        for i, rec in enumerate(recs):
            rows.append({"task": info.name, "id": str(rec["id"]), "response": response(info.name, rec, i)})
    preds = root / "answers.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = root / "out"
    run = run_lmms_eval(replay_args(preds, TASKS, "--limit", str(LIMIT)), output=out, env=dict(os.environ))
    if run.results is None:
        pytest.fail(f"lmms-eval wrote no results JSON\n{run.tail()}")
    return Replayed(out, records)
