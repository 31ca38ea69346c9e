"""``unparsed``: a count in every task's metrics, and the unread answers kept per task (lmms/unparsed.py).

The real lmms-eval run that checks the results JSON's section, the logged samples and ``ambi results`` is
tests/e2e/test_lmms_cli_replay.py::test_garbage_is_counted_unparseable.
"""

from __future__ import annotations

import pytest

from ambi_plugin.core.scoring import score_item
from ambi_plugin.lmms.results_meta import ambi_section
from ambi_plugin.lmms.results_meta import name_items as _name_items
from ambi_plugin.runtime import aggregate, unparsed
from ambi_plugin.runtime.taskindex import index

CHOICE = {"id": "q", "task_type": "choice", "question": "Which?", "options": ["x", "y"], "answer_index": 0}


@pytest.fixture(autouse=True)
def fresh():
    unparsed.clear()
    yield
    unparsed.clear()


def _items(task: str, n_bad: int, n_good: int = 2) -> list[dict]:
    items = []
    for k in range(n_bad):
        items.append({**score_item({**CHOICE, "id": f"bad{k}"}, f"I refuse, take {k}"), "response": f"no {k}"})
    items += [score_item({**CHOICE, "id": f"ok{k}"}, "A") for k in range(n_good)]
    for it in items:
        it["task"] = task
    return items


def test_every_task_of_ours_declares_unparsed():
    tasks = [info for info in index().values() if info.kind == "task"]
    assert tasks
    for info in tasks:
        names = [m["metric"] for m in info.config.get("metric_list") or []]
        assert "unparsed" in names, f"{info.name} does not report 'unparsed'"
        agg = next(m for m in info.config["metric_list"] if m["metric"] == "unparsed")
        assert agg["higher_is_better"] is False


def test_unparsed_counts_and_keeps_twenty_examples_with_ids():
    assert aggregate.unparsed(_items("t_choice", 25)) == 25.0
    kept = unparsed.examples()["t_choice"]
    assert kept["count"] == 25 and len(kept["examples"]) == unparsed.MAX_EXAMPLES
    assert kept["examples"][0] == {"id": "bad0", "response": "no 0", "reason": "no_label"}


def test_tasks_are_kept_apart_and_a_clean_task_has_no_entry():
    aggregate.unparsed(_items("t_a", 1))
    aggregate.unparsed(_items("t_b", 3))
    assert aggregate.unparsed(_items("t_clean", 0)) == 0.0
    got = unparsed.examples()
    assert sorted(got) == ["t_a", "t_b"] and got["t_b"]["count"] == 3


def test_long_answers_are_cut_and_the_section_holds_them():
    items = _items("t_long", 1)
    items[0]["response"] = "x" * 5000
    aggregate.unparsed(items)
    shown = unparsed.examples()["t_long"]["examples"][0]["response"]
    assert len(shown) == unparsed.MAX_RESPONSE_CHARS and shown.endswith("...")
    assert ambi_section({"results": {}, "configs": {}})["unparsed"]["t_long"]["count"] == 1


def test_items_are_named_after_their_task():
    item = score_item(CHOICE, "??")
    scored = {"acc": item, "unparsed": item}
    _name_items(scored, "ambi_x")
    assert item["task"] == "ambi_x"
    _name_items(scored, "ambi_y")  # a name already set stays
    assert item["task"] == "ambi_x"


def test_short_list_for_ambi_results():
    aggregate.unparsed(_items("t_list", 7))
    text = unparsed.format_examples(unparsed.examples(), per_task=3)
    lines = text.splitlines()
    assert lines[0] == "t_list: 7 unparsed" and len(lines) == 4
    assert lines[1] == "  - bad0: 'no 0' (no_label)"


def test_short_list_reads_a_results_section_it_did_not_write():
    """A results JSON edited by hand or by another tool: examples that are not objects, a count that is not a
    number; ``ambi results`` shows them as they are instead of stopping with a traceback."""
    section = {"t_odd": {"count": "many", "examples": ["just a string", 3, {"id": "x1", "response": "maybe"}]},
               "t_none": {"count": 2, "examples": None}, "t_bad": "not a mapping"}  # fmt: skip
    lines = unparsed.format_examples(section).splitlines()
    assert lines[0] == "t_none: 2 unparsed"
    assert lines[1] == "t_odd: 'many' unparsed"
    assert lines[2:] == ["  - 'just a string'", "  - 3", "  - x1: 'maybe' (unread)"]


def test_an_item_error_is_counted_as_an_item_error_only(tmp_path, monkeypatch):
    """An item whose image could not be shown is scored wrong and listed under item_errors, never also counted as an
    unparsed answer (issue 30 item 13, issue 31); a genuinely unread answer still is."""
    import json

    from ambi_plugin.core.scoring import aggregate as core_aggregate
    from ambi_plugin.runtime import hooks, item_errors

    monkeypatch.setenv("AMBI_STRICT", "0")
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not an image")
    rec = {"id": "e1", "benchmark": "b", "category": "c", "task_type": "yes_no", "answer_bool": True, "image": str(bad)}
    doc = {"record": json.dumps(rec)}
    hooks.doc_to_visual(doc)  # the model gets a blank image: this item's error
    assert item_errors.error_of(rec)
    errored = {**hooks.process_results(doc, ["Yes"])["unparsed"], "task": "t_yn"}
    unread = {**score_item({**rec, "id": "u1"}, "I cannot tell"), "task": "t_yn"}
    answered = {**score_item({**rec, "id": "a1"}, "Yes"), "task": "t_yn"}
    assert errored["item_error"] and errored["correct"] is False and errored["parsed"] is False
    items = [errored, unread, answered]
    assert aggregate.unparsed(items) == 1.0
    assert unparsed.examples()["t_yn"]["count"] == 1
    assert [ex["id"] for ex in unparsed.examples()["t_yn"]["examples"]] == ["u1"]
    assert core_aggregate("unparsed_rate", items) == 0.5  # one of the two answers the model gave was unread
    assert core_aggregate("acc", items) == 1 / 3  # the item error still scores wrong


def test_viabench_counts_an_item_error_as_an_item_error_only():
    from ambi_plugin.benchmarks.viabench.scoring import aggregate as via_aggregate

    items = [{"match_pred": None, "item_error": "OSError: cannot read"}, {"match_pred": None}, {"match_pred": 0}]
    assert via_aggregate("unparsed", items) == 1.0 and via_aggregate("unparsed_rate", items) == 0.5
