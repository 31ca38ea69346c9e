"""The hooks decode a harness row's record at every read and keep none (runtime/hooks.py, issue 34): a run's memory
does not grow by a decoded record per item, and a record read again is the record read first."""

from __future__ import annotations

import gc
import json
import uuid

from ambi_plugin.data.sources import harness_rows
from ambi_plugin.runtime import hooks

PROMPT = {"prompt": "{question}\n{options}\nAnswer with the option's letter."}


def _records(n: int, prefix: str = "r") -> list[dict]:
    return [
        {
            "id": f"{prefix}{i}",
            "benchmark": "b",
            "category": "c",
            "task_type": "choice",
            "question": f"Question {i}: which one?",
            "options": [f"option {k} of item {i}" for k in range(4)],
            "answer_index": i % 4,
        }
        for i in range(n)
    ]


def _docs(rows: list[dict]) -> list[dict]:
    # lmms-eval hands each read a new row with new strings (read from its Arrow table again)
    return [{k: (v + " ")[:-1] if isinstance(v, str) else v for k, v in row.items()} for row in rows]


def _live_records(ids: set[str]) -> int:
    """Decoded records of ours alive now (dicts with options and one of ``ids``; the rows have no options)."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is dict and "options" in o and o.get("id") in ids)


def test_a_run_over_10000_docs_keeps_no_decoded_record(tmp_path):
    n = 10_000
    # ids no other test's records have: a module-level record of another test in this worker (id "r1", with
    # options) would be counted as ours
    prefix = f"reads-{uuid.uuid4().hex}-"
    rows = harness_rows(_records(n, prefix=prefix), tmp_path)  # the loader builds the harness copy in the run's process
    ids = {row["id"] for row in rows}
    assert _live_records(ids) == 0  # the records it read and wrote are gone with the loader
    prompts = [hooks.doc_to_text(doc, PROMPT) for doc in _docs(rows)]  # lmms-eval's passes: every prompt...
    scores = [hooks.process_results(doc, ["A"]) for doc in _docs(rows)]  # ... then every score
    assert len(prompts) == len(scores) == n
    assert sum(s["acc"]["correct"] for s in scores) == n // 4  # "A" is right for a quarter: the reads were real
    assert _live_records(ids) == 0  # was n: every record kept for the run (about 1.4 KB per item)


def test_a_record_read_again_equals_its_first_read(tmp_path):
    recs = _records(300)
    rows = harness_rows(recs, tmp_path)
    first = [hooks.record_of(doc) for doc in _docs(rows)]
    prompts = [hooks.doc_to_text(doc, PROMPT) for doc in _docs(rows)]
    scores = [hooks.process_results(doc, ["B"]) for doc in _docs(rows)]
    again = [hooks.record_of(doc) for doc in _docs(rows)]
    assert again == first == [json.loads(row["record"]) for row in rows]
    assert first[0]["options"] == recs[0]["options"] and first[0]["id"] == "r0"
    # the same prompts and scores as from each record itself (a doc without a record column is the record)
    assert prompts == [hooks.doc_to_text(rec, PROMPT) for rec in again]
    assert scores == [hooks.process_results(rec, ["B"]) for rec in again]
    assert sum(s["acc"]["correct"] for s in scores) == 75  # "B" is right for a quarter
    # each read is its own copy: a caller changing its record changes no other read
    doc = _docs(rows)[:1][0]
    mine = hooks.record_of(doc)
    mine["options"].append("changed")
    assert hooks.record_of(doc) == first[0] != mine
