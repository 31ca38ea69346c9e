"""One run's by-products live on its run state (runtime/run_state.py): two runs in one process never see each
other's unparsed answers, item errors or skipped tasks, and the results section reads the run's own."""

from __future__ import annotations

import json
from types import SimpleNamespace

from PIL import Image

from ambi_plugin.data import no_records
from ambi_plugin.data.sources import skip_task
from ambi_plugin.lmms.results_meta import ambi_section, note_item_scores
from ambi_plugin.runtime import aggregate, hooks, item_errors, run_state, unparsed

CHOICE = {
    "id": "q1",
    "benchmark": "b",
    "category": "c",
    "task_type": "choice",
    "question": "Which?",
    "options": ["x", "y"],
    "answer_index": 0,
}


def _doc(rec: dict) -> dict:
    return {"id": rec["id"], "task_type": rec["task_type"], "category": rec["category"], "record": json.dumps(rec)}


def _run(task: str, rec: dict, response: str) -> dict:
    """What a run of lmms-eval does with one item of ours: its visuals read, its answer scored and noted by the
    process_results patch (its task's name; an item error counted), the task aggregated."""
    hooks.doc_to_visual(_doc(rec))
    scored = hooks.process_results(_doc(rec), [response])
    note_item_scores(SimpleNamespace(config=SimpleNamespace(task=task)), scored)
    aggregate.unparsed([scored["acc"]])
    return scored["acc"]


def test_two_runs_in_one_process_see_only_their_own_by_products(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_STRICT", "0")
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not an image")
    broken = {**CHOICE, "id": "broken1", "image": str(bad)}
    good = tmp_path / "good.png"
    Image.new("RGB", (8, 8)).save(good)
    configs = {"task_a": {}, "task_b": {}}

    with run_state.run_state() as first:
        item = _run("task_a", broken, "I will not say")
        assert item["item_error"] and item["correct"] is False
        assert _run("task_a", {**CHOICE, "id": "u1", "image": str(good)}, "no idea")["parsed"] is False
        skip_task("task_a", "ambi://nowhere", "", "its data is missing")
        section = ambi_section({"configs": configs, "results": {}})
        assert set(section["unparsed"]) == {"task_a"} and section["unparsed"]["task_a"]["count"] == 1
        assert section["item_errors"]["task_a"]["count"] == 1
        assert section["skipped"] == {"task_a": "its data is missing"}
        assert run_state.current() is first

    with run_state.run_state() as second:
        assert run_state.current() is second
        # the same record and answer again: the first run's unreadable image is not this run's
        assert item_errors.error_of(broken) is None
        assert unparsed.examples() == {} and item_errors.summary() == {} and no_records.skipped_tasks() == {}
        section = ambi_section({"configs": configs, "results": {}})
        assert "item_errors" not in section and "skipped" not in section and section["unparsed"] == {}

    assert first.item_errors_by_task["task_a"] and not second.item_errors_by_task  # each kept its own
    default = run_state.current()
    assert default is not first and default is not second
    assert "task_a" not in default.unparsed and "task_a" not in default.skipped_tasks


def test_a_run_opened_inside_another_is_current_until_it_closes():
    with run_state.run_state() as outer:
        with run_state.run_state() as inner:
            unparsed.note([{"task": "t", "parsed": False, "id": "x", "response": "?"}])
            assert run_state.current() is inner
        assert run_state.current() is outer
        assert "t" in inner.unparsed and not outer.unparsed
