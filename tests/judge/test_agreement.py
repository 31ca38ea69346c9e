"""``ambi judge-agreement``: agreement and Cohen's kappa, checked by hand and against scikit-learn."""

from __future__ import annotations

import json
import math

import pytest

from ambi_plugin.cli import main as ambi_main
from ambi_plugin.judge.agreement import AgreementInputError, agreement_files, cohen_kappa, read_verdicts


def test_kappa_hand_computed():
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15
    a = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert math.isnan(cohen_kappa([True] * 4, [True] * 4))  # chance agreement 1: undefined
    assert math.isnan(cohen_kappa([], []))


def test_kappa_matches_scikit_learn_on_three_categories():
    import sklearn.metrics as sk

    a = [0, 1, 2, 2, 1, 0, 2, 2, 1, 1, 0, 2, 1, 2, 0]
    b = [0, 1, 2, 1, 1, 0, 2, 0, 1, 2, 0, 2, 2, 2, 1]
    assert cohen_kappa(a, b) == pytest.approx(sk.cohen_kappa_score(a, b))


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_files_with_errors_and_unmatched_items(tmp_path, capsys):
    a = _write(tmp_path / "a.jsonl", [{"id": i, "value": i % 2 == 0} for i in range(10)] + [{"id": 99, "value": True}])
    b_rows = [{"id": i, "value": (i % 2 == 0) if i < 8 else (i % 2 == 1)} for i in range(10)]
    b_rows[0]["value"] = None  # a judge error
    b = _write(tmp_path / "b.jsonl", b_rows)
    res = agreement_files(a, b)
    assert res["items"] == 9 and res["errors_b"] == 1 and res["only_in_a"] == 1
    assert res["agreement"] == pytest.approx(7 / 9)
    assert ambi_main(["judge-agreement", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "Cohen's kappa" in out and "0.7778" in out
    assert ambi_main(["judge-agreement", str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == 9


def test_reads_lmms_eval_logged_samples(tmp_path):
    def sample(doc_id, correct, error=False, score=None, ttype="open"):
        item = {"id": str(doc_id), "task_type": ttype, "correct": correct, "judge": {"error": error}}
        if score is not None:
            item["score"] = score
        return {"doc_id": doc_id, "doc": {"id": f"r{doc_id}"}, "acc": item, "unparsed_rate": item}

    path = _write(
        tmp_path / "s.jsonl",
        [sample(0, True), sample(1, False, error=True), sample(2, True, score=1.0, ttype="description")],
    )
    got = read_verdicts(path)
    assert got == {("", "r0"): True, ("", "r1"): None, ("", "r2"): 1.0}


@pytest.mark.parametrize(
    ("text", "message"),
    [("not json\n", "not JSON"), ('{"value": 1}\n', "expected 'id'"), ('{"id": 1}\n{"id": 1}\n', "appears twice")],
)
def test_bad_input_names_file_and_line(tmp_path, text, message):
    path = tmp_path / "v.jsonl"
    path.write_text(text)
    with pytest.raises(AgreementInputError, match=message) as err:
        read_verdicts(path)
    assert str(path) in str(err.value)


def test_no_common_items(tmp_path):
    a = _write(tmp_path / "a.jsonl", [{"id": 1, "value": True}])
    b = _write(tmp_path / "b.jsonl", [{"id": 2, "value": True}])
    with pytest.raises(AgreementInputError, match="share no item"):
        agreement_files(a, b)
    assert ambi_main(["judge-agreement", str(a), str(b)]) == 2
