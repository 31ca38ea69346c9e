"""``ambi_replay``'s predictions file: every line is matched to a record or reported with file and line."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.lmms.replay import load_prediction_lines, unmatched_lines


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_line_without_id_names_file_and_line(tmp_path):
    preds = _write(tmp_path / "p.jsonl", [{"task": "t", "id": "a", "response": "x"}, {"task": "t", "response": "y"}])
    with pytest.raises(ValueError, match=r"p\.jsonl:2 \(task 't'\) has no 'id'"):
        load_prediction_lines(preds)


def test_bad_doc_id_names_file_and_line(tmp_path):
    preds = _write(tmp_path / "p.jsonl", [{"task": "t", "doc_id": "first", "response": "x"}])
    with pytest.raises(ValueError, match=r"p\.jsonl:1: doc_id 'first' is not an integer"):
        load_prediction_lines(preds)


def test_ids_matching_no_record_are_found_with_their_lines(tmp_path):
    rows = [
        {"task": "t", "id": "a", "response": "x"},
        {"task": "t", "id": "stale", "response": "y"},
        {"task": "t", "doc_id": 5, "response": "z"},
        {"task": "other", "id": "q", "response": "w"},  # a task not in this run: not reported
    ]
    table, lines = load_prediction_lines(_write(tmp_path / "p.jsonl", rows))
    assert table[("t", "a")] == "x" and lines[("t", "stale")] == 2
    assert unmatched_lines(lines, {"t": ["a", "b"]}) == [(2, "t", "stale"), (3, "t", "doc:5")]
    assert unmatched_lines(lines, {"t": ["a", "stale", "c", "d", "e", "f"]}) == []


@pytest.mark.e2e
def test_a_real_run_reports_unmatched_lines_and_stops_on_a_line_without_id(lmms_eval, tmp_path):
    """Through the lmms-eval CLI: AmbiReplay.generate_until names, with file and line, every predictions line of
    the run's task whose id (or doc_id) matches no record, and still scores the run; a line without any id stops
    the run, naming file and line."""
    from ambi_plugin.data.replayfiles import write_reference_predictions
    from ambi_plugin.lmms.cli_run import replay_args

    task = "ambi_synth_multichoice"
    preds = tmp_path / "answers.jsonl"
    n = write_reference_predictions(preds, tasks=task, mode="gold")
    extra = [
        {"task": task, "id": "multichoice_9999", "response": "A"},  # line n + 1: no such record
        {"task": task, "doc_id": 500, "response": "B"},  # line n + 2: no such document
        {"task": "ambi_synth_navon_open", "id": "zzz", "response": "C"},  # a task not in this run: not reported
    ]
    with preds.open("a") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in extra)
    run = lmms_eval(replay_args(preds, task), tmp_path / "out")
    assert run.results["results"][task]["exact_match,none"] == 1.0  # every record answered by its gold line
    said = run.stdout + run.stderr
    assert "ambi_replay: warning: 2 predictions line(s) match no record of their task" in said, run.tail()
    assert f"{preds}:{n + 1} task '{task}' id 'multichoice_9999'" in said
    assert f"{preds}:{n + 2} task '{task}' id 'doc:500'" in said
    assert "'zzz'" not in said

    no_id = tmp_path / "no_id.jsonl"
    no_id.write_text(preds.read_text().splitlines()[0] + "\n" + json.dumps({"task": task, "response": "A"}) + "\n")
    run = lmms_eval(replay_args(no_id, task), tmp_path / "out2", expect_results=False)
    assert run.results is None
    assert f"{no_id}:2 (task '{task}') has no 'id' (the record id) or 'doc_id'" in run.stdout + run.stderr, run.tail()
