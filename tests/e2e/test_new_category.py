"""A new category is a YAML file alone: records + YAML in the user's own folders, no code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from PIL import Image

from ambi_plugin.paths import tasks_dir
from ambi_plugin.report import find_results_json, task_metrics

pytestmark = pytest.mark.e2e

YAML = """include: {tasks}/_templates/_open
task: mybench_ducks_open
dataset_path: ambi://local
dataset_name: ducks
lmms_eval_specific_kwargs:
  default:
    prompt: "What two animals can you see? Answer 'Object1, Object2'."
metric_list:
  - {{metric: acc, aggregation: !function ambi_plugin.lmms.aggregate.acc, higher_is_better: true}}
  - {{metric: acc_near, aggregation: !function ambi_plugin.lmms.aggregate.acc_near, higher_is_better: true}}
  - {{metric: acc_far, aggregation: !function ambi_plugin.lmms.aggregate.acc_far, higher_is_better: true}}
  - {{metric: unparsed_rate, aggregation: !function ambi_plugin.lmms.aggregate.unparsed_rate, higher_is_better: false}}
metadata: {{version: 1, benchmark: mybench, category: ducks, task_type: open}}
"""


def test_yaml_only_category_runs_through_lmms_eval(tmp_path, offline_env):
    data, yamls = tmp_path / "records", tmp_path / "my_tasks"
    (data / "images").mkdir(parents=True)
    yamls.mkdir()
    answers = []
    with (data / "ducks.jsonl").open("w") as fh:
        for i in range(4):
            Image.new("RGB", (32, 32), (i * 40, 0, 0)).save(data / "images" / f"{i}.png")
            fh.write(
                json.dumps(
                    {
                        "id": str(i),
                        "benchmark": "mybench",
                        "category": "ducks",
                        "task_type": "open",
                        "image": f"images/{i}.png",
                        "views": [{"name": "near", "labels": ["duck"]}, {"name": "far", "labels": ["rabbit|bunny"]}],
                    }
                )
                + "\n"
            )
            # two right, one with the far view wrong, one with both wrong
            resp = ["Ducks, bunny", "duck, rabbit", "duck, fox", "hat, shoe"][i]
            answers.append({"task": "mybench_ducks_open", "id": str(i), "response": resp})
    (yamls / "mybench_ducks_open.yaml").write_text(YAML.format(tasks=tasks_dir()))
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_DATA_DIR": str(data)}
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "ambi_replay",
        "--model_args",
        f"predictions={preds}",
        "--tasks",
        "mybench_ducks_open",
        "--include_path",
        str(yamls),
        "--output_path",
        str(out),
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    try:
        results = json.loads(find_results_json(out).read_text())
    except FileNotFoundError:
        pytest.fail(proc.stdout[-2000:] + proc.stderr[-4000:])
    got = task_metrics(results)["mybench_ducks_open"]
    assert got["acc"] == pytest.approx(0.5)
    assert got["acc_near"] == pytest.approx(0.75)
    assert got["acc_far"] == pytest.approx(0.5)
    assert got["unparsed_rate"] == 0.0
