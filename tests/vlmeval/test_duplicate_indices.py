"""A VLMEvalKit prediction file that answers an index twice: the first row is scored, once, and the rest
are counted in a warning (before: each row was scored, so one record weighed as much as 8)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import vlmeval.dataset as vd

from ambi_plugin.vlmeval import register

TASK = "ambi_synth_geometric_yn"


@pytest.fixture(scope="module")
def dataset():
    register()
    return vd.build_dataset(TASK)


def test_duplicate_indices_keep_the_first_row_and_warn(dataset, tmp_path, capsys):
    gold = [str(a) for a in dataset.data["answer"]]
    wrong = {"Yes": "No", "No": "Yes"}
    rows = [(i, g) for i, g in enumerate(gold)] + [(0, wrong.get(gold[0], "No"))] * 7  # 7 wrong repeats of index 0
    pred = tmp_path / "m_dup.xlsx"
    pd.DataFrame({"index": [i for i, _ in rows], "prediction": [p for _, p in rows]}).to_excel(pred, index=False)
    metrics = dataset.evaluate(str(pred))
    score = json.loads((tmp_path / "m_dup_score.json").read_text())
    assert score["n"] == len(gold)  # each record once
    assert metrics["acc"] == 1.0  # the first (gold) row of index 0, not its 7 wrong repeats
    items = (tmp_path / "m_dup_items.jsonl").read_text().splitlines()
    assert [json.loads(x)["index"] for x in items] == list(range(len(gold)))
    err = capsys.readouterr().err
    assert f"{pred}: 7 duplicate row(s) ignored, 1 index(es) given more than once (0)" in err
