"""One run's by-products live on its run state (runtime/run_state.py): two runs in one process never see each
other's unparsed answers, item errors or skipped tasks, and the results section reads the run's own."""

from __future__ import annotations

import json
import subprocess
import sys
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
        skip_task("task_a", "its data is missing")
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


OPEN = {
    "id": "o1",
    "benchmark": "b",
    "category": "c",
    "task_type": "open",
    "views_positional": False,
    "views": [{"name": "a", "labels": ["cat"]}],
}


class Always:
    """A judge that says yes to every set match, and counts them."""

    backend_name, model = "always", "m"

    def __init__(self):
        self.asked = 0

    def set_match(self, gold, predicted):
        from ambi_plugin.judge.voting import Verdict

        self.asked += 1
        return Verdict(True, raw=["yes"])


def test_the_runtime_scores_with_the_judge_the_run_was_given():
    judge = Always()
    with run_state.run_state(judge=judge):
        item = hooks.score_record(OPEN, "dog")  # wrong for the offline judge; this run's judge says yes
        assert item["correct"] is True and item["judge"]["backend"] == "always" and judge.asked == 1
        assert hooks.score_record({**CHOICE, "id": "c1"}, "A")["correct"] is True and judge.asked == 1
    with run_state.run_state():  # a run given none: the judge layer's default (offline), not the last run's
        item = hooks.score_record(OPEN, "dog")
        assert item["correct"] is False and item["judge"]["backend"] == "offline" and judge.asked == 1


def test_the_default_judge_is_built_when_a_judge_decided_item_first_needs_one():
    """A fresh interpreter: scoring items no judge decides builds no judge; the first open item builds the offline
    default, once."""
    code = (
        "import json\n"
        "from ambi_plugin.judge.base import Judge\n"
        "built = []\n"
        "init = Judge.__init__\n"
        "def spy(self, *a, **k):\n"
        "    built.append(type(self).__name__)\n"
        "    init(self, *a, **k)\n"
        "Judge.__init__ = spy\n"
        "from ambi_plugin.runtime import hooks\n"
        f"choice, open_ = json.loads({json.dumps(json.dumps([CHOICE, OPEN]))})\n"
        "hooks.score_record(choice, 'A'); hooks.score_record(choice, 'no idea')\n"
        "print(built)\n"
        "items = [hooks.score_record(open_, r) for r in ('cat', 'dog')]\n"
        "print(built, [it['correct'] for it in items], items[0]['judge']['backend'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.splitlines() == ["[]", "['OfflineJudge'] [True, False] offline"], out.stdout + out.stderr
