"""Prediction files as VLMEvalKit's own ``dump`` writes them, in every format, read back as the model's answers."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from vlmeval.smp import dump, load

from ambi_plugin.vlmeval.predfile import XLSX_CELL_LIMIT, PredictionFileError, read_predictions

ANSWERS = [
    "None", "N/A", "NA", "null", "nan", "NaN", "n/a", "", "=B", "=SUM(1,2)", "a\x01b\x1f", "\x00z",
    "Answer:\tA\r\nbecause\nso", "x" * 40000, "y" * XLSX_CELL_LIMIT, "答案：A ✓ 👍", "  A  ", '"q", \'r\'', "1.50", "True",
]  # fmt: skip


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"index": range(len(ANSWERS)), "question": ["q"] * len(ANSWERS), "answer": "A", "prediction": ANSWERS}
    )


@pytest.mark.parametrize("fmt", ["json", "tsv", "csv"])
def test_lossless_formats_give_every_answer_back_exactly(tmp_path, fmt):
    path = tmp_path / f"m_task.{fmt}"
    dump(_frame(), str(path))  # VLMEvalKit's own writer
    read = read_predictions(path)
    assert read.fmt == fmt and read.index == list(range(len(ANSWERS)))
    assert read.prediction == ANSWERS
    assert read.damaged == {}


def test_vlmevalkit_load_is_what_we_read_differently(tmp_path):
    """What VLMEvalKit's ``load`` returns: NaN for the NA strings (tsv) and a list of rows (json)."""
    dump(_frame(), str(tmp_path / "m.tsv"))
    dump(_frame(), str(tmp_path / "m.json"))
    theirs = load(str(tmp_path / "m.tsv"))
    assert theirs["prediction"].isna().sum() == 8  # None, N/A, NA, null, nan, NaN, n/a and the empty answer
    assert isinstance(load(str(tmp_path / "m.json")), list)


def test_xlsx_damage_is_found_and_named(tmp_path):
    path = tmp_path / "m_task.xlsx"
    with pytest.warns(UserWarning, match="truncated"):
        dump(_frame(), str(path))
    read = read_predictions(path)
    assert read.index == list(range(len(ANSWERS)))
    damaged = {ANSWERS[i]: why for i, why in read.damaged.items()}
    assert sorted(read.damaged) == [8, 9, 10, 11, 12, 13, 14]
    assert "formula" in damaged["=B"] and "formula" in damaged["=SUM(1,2)"]
    assert "_x00HH_" in damaged["a\x01b\x1f"] and "_x00HH_" in damaged["Answer:\tA\r\nbecause\nso"]
    assert "32,767" in damaged["x" * 40000] and "32,767" in damaged["y" * XLSX_CELL_LIMIT]
    undamaged = [i for i in range(len(ANSWERS)) if i not in read.damaged]
    assert [read.prediction[i] for i in undamaged] == [ANSWERS[i] for i in undamaged]  # the NA strings too


def test_other_json_layouts_and_unusable_files(tmp_path):
    cols = tmp_path / "a.json"
    cols.write_text(json.dumps({"columns": ["index", "prediction"], "data": [[1, "None"], [0, "NA"]]}))
    assert read_predictions(cols).prediction == ["None", "NA"]
    by_column = tmp_path / "b.json"
    by_column.write_text(json.dumps({"index": [0, 1], "prediction": ["null", None]}))
    assert read_predictions(by_column).prediction == ["null", None]
    for name, text, match in [
        ("c.json", '{"x": 1}', "list of rows"),
        ("d.json", "[{", "not valid JSON"),
        ("e.json", '[{"index": 0}]', "'index' and 'prediction'"),
        ("f.json", '[{"index": "x", "prediction": "A"}]', "row 1 has no integer 'index'"),
    ]:
        (tmp_path / name).write_text(text)
        with pytest.raises(PredictionFileError, match=match):
            read_predictions(tmp_path / name)
    with pytest.raises(PredictionFileError, match=r"\.pkl"):
        read_predictions(tmp_path / "g.pkl")
