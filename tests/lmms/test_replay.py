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
