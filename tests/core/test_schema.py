"""Malformed records give one clear message naming file, line, record and field."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.core.schema import RecordError, read_records, validate_record, write_records

GOOD = {"id": "r1", "benchmark": "b", "category": "c", "task_type": "choice", "options": ["x", "y"], "answer_index": 1}


def test_good_record_roundtrips(tmp_path):
    path = tmp_path / "a.jsonl"
    assert write_records(path, [GOOD, {**GOOD, "id": "r2"}]) == 2
    assert [r["id"] for r in read_records(path)] == ["r1", "r2"]
    assert not (tmp_path / "a.jsonl.tmp").exists()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"task_type": None}, ["'task_type'"]),
        ({"task_type": "guess"}, ["'task_type'", "guess"]),
        ({"answer_index": 5}, ["'answer_index'", "2 options"]),
        ({"options": []}, ["'options'"]),
        ({"answer_format": "morse"}, ["'answer_format'", "morse"]),
    ],
)
def test_bad_field_is_named(change, words):
    rec = {**GOOD, **change}
    rec = {k: v for k, v in rec.items() if v is not None}
    with pytest.raises(RecordError) as err:
        validate_record(rec, source="data.jsonl", line=3)
    msg = str(err.value)
    assert "data.jsonl:3" in msg and "r1" in msg
    for w in words:
        assert w in msg


def test_missing_type_field_named(tmp_path):
    path = tmp_path / "b.jsonl"
    bad = {k: v for k, v in GOOD.items() if k != "answer_index"}
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(RecordError, match=r"b\.jsonl:2.*r1.*answer_index"):
        read_records(path)


def test_invalid_json_line_named(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD) + "\n{not json\n")
    with pytest.raises(RecordError, match=r"c\.jsonl:2: not valid JSON"):
        read_records(path)


@pytest.mark.parametrize("views", [[], [{"name": "near", "labels": []}], "shark"])
def test_views_must_have_labels(views):
    rec = {"id": "o", "benchmark": "b", "category": "c", "task_type": "open", "views": views}
    with pytest.raises(RecordError, match="views"):
        validate_record(rec)
