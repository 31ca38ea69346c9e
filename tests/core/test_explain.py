"""``ambi score --explain ID``: one item's raw answer, what each parser stage saw, the reading, gold and score."""

from __future__ import annotations

import json

from ambi_plugin.cli import main
from ambi_plugin.core.explain import explain_item
from ambi_plugin.core.schema import read_records
from ambi_plugin.data.sources import source_root

YN = {"id": "bars", "task_type": "yes_no", "question": "Are the two bars the same length?", "answer_bool": False}
MC = {"id": "mc", "task_type": "choice", "question": "Which?", "options": ["up", "down", "same"], "answer_index": 2}


def test_restatement_is_explained_stage_by_stage():
    text = "\n".join(explain_item(YN, "The bars are not the same length."))
    assert "raw answer: 'The bars are not the same length.'" in text
    assert "question compared: 'Are the two bars the same length?'" in text
    assert "restatement of it: negated" in text
    assert "reading: False  [restated]" in text and "gold: No" in text and "score: correct" in text


def test_choice_shows_markers_labels_and_a_wrong_score():
    lines = explain_item(MC, "At first **C**. Final answer: B")
    text = "\n".join(lines)
    assert "after clean-up: 'At first C. Final answer: B'" in text  # markdown dropped
    assert "answer markers: 1 found" in text and "after the last marker: 'B'" in text
    assert "labels seen: B" in text and "reading: B (1)" in text
    assert "gold: C" in text and lines[-1].startswith("score: wrong")


def test_unparsed_answer_says_why():
    text = "\n".join(explain_item(MC, "I cannot tell."))
    assert "reading: none, unparsed (no_label)" in text and "score: wrong" in text


def test_cli_explains_one_item_of_a_task(tmp_path, capsys):
    task = "ambi_synth_geometric_yn"
    rec = read_records(source_root("ambi://synth") / f"{task}.jsonl")[0]
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": rec["id"], "response": "Of course not."}) + "\n")
    assert main(["score", "--task", task, "--answers", str(answers), "--explain", rec["id"]]) == 0
    out = capsys.readouterr().out
    assert f"item: {rec['id']}" in out and "raw answer: 'Of course not.'" in out
    assert "hedge at the opening: says no" in out and "reading: False  [hedge]" in out
    assert ("score: correct" in out) == (rec["answer_bool"] is False)
    assert main(["score", "--task", task, "--answers", str(answers), "--explain", "no-such-id"]) == 2
    assert "has no record id 'no-such-id'" in capsys.readouterr().err


def test_the_restatement_shown_is_the_one_the_reading_came_from():
    """On every real true/false and yes/no reply of the corpus read as a restatement, the stage line says the same
    thing as the reading (a true/false item's statement is compared as a statement, the whole reply as the parser
    reads it)."""
    from pathlib import Path

    corpus = Path(__file__).parent / "corpus_real"
    checked = 0
    for name in ("visonlyqa.jsonl", "tempcompass.jsonl"):
        for line in (corpus / name).read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            if item["fmt"] not in ("true_false", "yes_no"):
                continue
            rec = {"id": item["id"], "task_type": item["fmt"], "question": item["question"], "answer_bool": True}
            lines = explain_item(rec, item["response"])
            reading = next(x for x in lines if x.startswith("reading: "))
            if not reading.endswith("[restated]"):
                continue
            shown = next(x for x in lines if "restatement of it: " in x).split(": ", 1)[1]
            assert shown == ("as asked" if reading.startswith("reading: True") else "negated"), (item["id"], lines)
            checked += 1
    assert checked >= 20
