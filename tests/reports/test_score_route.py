"""``ambi score`` on VIA-Bench and IllusionBench takes the one task route: the task YAML's ``process_results`` and
aggregations (:meth:`ambi_plugin.runtime.task.Task.evaluate`), like every other task, so it gives exactly the metrics
and item scores ``Task.evaluate`` gives for the same answers. IllusionBench's protocols are two task YAMLs:
``--protocol rule`` scores through ``ambi_illusionbench_<t>`` (no judge is asked, even for an ``_llm`` task),
``--protocol llm`` through ``ambi_illusionbench_<t>_llm`` with the judge handed in and the ``--overrides`` handed to
the run through its run state (``$AMBI_ILLUSIONBENCH_OVERRIDES`` still serves a run that hands in none)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from illusion_fixtures import illusionbench_copy
from support.chat_server import LoopbackChatServer
from viabench_fixtures import build_copy as viabench_copy

from ambi_plugin.benchmarks.illusionbench.llm import OVERRIDES_ENV, ROUNDS
from ambi_plugin.benchmarks.viabench.variants import PERMUTE_ENV, prepare
from ambi_plugin.cli import main
from ambi_plugin.core.schema import read_records
from ambi_plugin.data.taskdocs import records_as_docs
from ambi_plugin.judge import make_judge
from ambi_plugin.reports.answers import ScoreError
from ambi_plugin.reports.rescore import score_answers
from ambi_plugin.runtime.run_state import run_state
from ambi_plugin.runtime.task import Task
from ambi_plugin.runtime.taskindex import expand_tasks


def _task(name: str) -> Task:
    (info,) = expand_tasks(name)
    return Task.from_info(info)


def _evaluate(name: str, records: list[dict], root: Path, responses: list[str], *, judge=None, overrides=None):
    """``Task.evaluate`` of task ``name`` on these records and answers, in a run of its own (as a harness runs it)."""
    task = _task(name)
    with run_state(judge=judge, overrides=overrides):
        return task.evaluate(records_as_docs(records, root), responses, judge=judge)


def _write(path: Path, records: list[dict], responses: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": r["id"], "response": a}) + "\n" for r, a in zip(records, responses)))
    return path


def _plain(value):
    """JSON round trip with NaN as text, so item scores compare with ==."""
    return json.loads(json.dumps(value, default=str).replace("NaN", '"NaN"'))


def _assert_same(report, column: str, ev, task: str) -> None:
    """``ambi score`` gave every metric of the YAML's metric_list as ``Task.evaluate`` did, and the same items."""
    got = report.values[column]
    assert sorted(ev.aggregated) == sorted(_task(task).metric_names), task
    for name, want in ev.aggregated.items():
        assert name in got, (task, name)
        assert got[name] == want or (math.isnan(want) and math.isnan(got[name])), (task, name, got[name], want)
    assert _plain(report.items[column]) == _plain(ev.item_scores)


def _tf_answers(records: list[dict]) -> list[str]:
    """Right, wrong, unreadable and empty answers in turn, with blanks that a run strips."""
    out = []
    for k, r in enumerate(records):
        gold = "True" if r["answer_bool"] else "False"
        other = "False" if r["answer_bool"] else "True"
        out.append([f" {gold}\n", other, "Who can say.", ""][k % 4])
    return out


# ----------------------------------------------------------------------------- VIA-Bench


@pytest.mark.parametrize("permute", [None, "7"])
def test_viabench_score_is_the_task_yamls_evaluation(tmp_path, shared_data, monkeypatch, permute):
    """Match and Judge through the YAML's process_results and aggregations; with the opt-in option permutation the
    records are presented once (by the task's own hook), not twice."""
    if permute is not None:
        monkeypatch.setenv(PERMUTE_ENV, permute)
    copy = viabench_copy(tmp_path / "via", shared_data)
    task = "ambi_viabench_va"
    records = read_records(copy / "viabench_va.jsonl")
    shown = [prepare(r) for r in records]  # as the run presents them (the permutation, when set)
    if permute is not None:
        assert any(s["options"] != r["options"] for s, r in zip(shown, records)), "the permutation moved nothing"
    # gold label, gold option text (the judge reads it, Match does not), "Not Sure"; of the options as shown
    answers = [[f"Answer: [{chr(65 + s['answer_index'])}]", s["options"][s["answer_index"]],
                f"Answer: [{chr(65 + s['not_sure_index'])}]"][k % 3] for k, s in enumerate(shown)]  # fmt: skip
    report = score_answers(task, _write(tmp_path / "a.jsonl", records, answers), data_dir=copy, progress=False)
    ev = _evaluate(task, records, copy, answers)
    _assert_same(report, "a", ev, task)
    n = len(records)
    assert report.values["a"]["acc_match"] == pytest.approx(sum(k % 3 == 0 for k in range(n)) / n)
    assert report.values["a"]["acc_judge"] == pytest.approx(sum(k % 3 != 2 for k in range(n)) / n)
    assert [r["options"] for r in report.records] == [s["options"] for s in shown]
    assert "VIA-Bench Match and Judge" in report.text


# ----------------------------------------------------------------------------- IllusionBench


def test_illusionbench_rule_protocol_of_an_llm_task_asks_no_judge(tmp_path):
    """``ambi score --task ambi_illusionbench_tf_llm`` (the rule protocol, the default) scores through
    ``ambi_illusionbench_tf``'s YAML: its parsers, no judge request."""
    copy = illusionbench_copy(tmp_path)
    records = read_records(copy / "illusionbench_tf.jsonl")
    answers = _tf_answers(records)
    path = _write(tmp_path / "r.jsonl", records, answers)
    with LoopbackChatServer() as server:
        judge = make_judge(backend="openai", model="judge-x", base_url=server.url, api_key="k", cache=False)
        report = score_answers("ambi_illusionbench_tf_llm", path, data_dir=copy, judge=judge, progress=False)
        assert server.requests == 0
    ev = _evaluate("ambi_illusionbench_tf", records, copy, answers)
    _assert_same(report, "r", ev, "ambi_illusionbench_tf")
    assert not any(name.endswith("_llm") or "_llm_" in name for name in report.values["r"])
    assert report.review == [] and "LLM-assisted" not in report.text and "(Table II layout)" in report.text


def test_illusionbench_llm_protocol_is_the_llm_tasks_evaluation_with_the_judge_handed_in(tmp_path):
    copy = illusionbench_copy(tmp_path)
    records = read_records(copy / "illusionbench_tf.jsonl")
    answers = _tf_answers(records)
    path = _write(tmp_path / "l.jsonl", records, answers)
    # the offline default judge (no judge given), as a run without AMBI_JUDGE_* settings scores
    report = score_answers("ambi_illusionbench_tf", path, data_dir=copy, protocol="llm", progress=False)
    ev = _evaluate("ambi_illusionbench_tf_llm", records, copy, answers)
    _assert_same(report, "l", ev, "ambi_illusionbench_tf_llm")
    assert report.judge["backend"] == "offline" and "\n\njudge: offline" in report.text
    assert "LLM-assisted (Table II layout)" in report.text
    empty = sum(not a.strip() for a in answers)
    wrong_llm = sum(not it["correct_llm"] for it in ev.item_scores)
    assert len(report.review) == wrong_llm > empty  # the review queue: from the item scores

    # another judge handed in: it decides every non-empty answer, five rounds each (the oracle says "right")
    with LoopbackChatServer() as server:
        judge = make_judge(backend="openai", model="judge-x", base_url=server.url, api_key="k", cache=False)
        again = score_answers("ambi_illusionbench_tf", path, data_dir=copy, protocol="llm", judge=judge, progress=False)
        assert server.requests == ROUNDS * (len(records) - empty)
        want = _evaluate("ambi_illusionbench_tf_llm", records, copy, answers, judge=judge)
    _assert_same(again, "l", want, "ambi_illusionbench_tf_llm")
    assert again.values["l"]["acc_llm"] == pytest.approx((len(records) - empty) / len(records))
    assert again.values["l"]["acc"] == report.values["l"]["acc"]  # the parsers' side does not change
    assert "judge: openai judge-x" in again.text


def test_illusionbench_overrides_reach_the_llm_task_through_the_run_state(tmp_path, monkeypatch):
    copy = illusionbench_copy(tmp_path)
    records = read_records(copy / "illusionbench_mc.jsonl")
    rng = random.Random(3)
    answers = [["i", "ii", "iii", "iv"][(r["answer_index"] + 1) % 4] if rng.random() < 0.4 else
               f"I choose {r['options'][r['answer_index']]}" for r in records]  # fmt: skip
    path = _write(tmp_path / "m.jsonl", records, answers)
    first = score_answers("ambi_illusionbench_mc", path, data_dir=copy, protocol="llm", progress=False)
    assert len(first.review) >= 3
    queue = [dict(row) for row in first.review]
    for row in queue[:2]:
        row["correct"] = True
    queue[2]["task"] = "ambi_illusionbench_tf"  # a decision about another task: not applied
    queue[2]["correct"] = True
    over = tmp_path / "over.jsonl"
    over.write_text("".join(json.dumps(r) + "\n" for r in queue))
    # a variable naming other decisions is not read by ambi score: its run hands in its own (here: those of --overrides)
    every = tmp_path / "every.jsonl"
    every.write_text("".join(json.dumps({"id": r["id"], "correct": True}) + "\n" for r in records))
    monkeypatch.setenv(OVERRIDES_ENV, str(every))
    fixed = score_answers("ambi_illusionbench_mc", path, data_dir=copy, protocol="llm", overrides=over, progress=False)
    applied = {("*", row["id"]): row for row in queue[:2]}
    ev = _evaluate("ambi_illusionbench_mc_llm", records, copy, answers, overrides=applied)
    _assert_same(fixed, "m", ev, "ambi_illusionbench_mc_llm")
    n = len(records)
    assert fixed.values["m"]["acc_llm"] == pytest.approx(first.values["m"]["acc_llm"] + 2 / n)
    assert sum(bool(it.get("overridden")) for it in fixed.items["m"]) == 2
    assert len(fixed.review) == len(first.review) - 2
    no_file = score_answers("ambi_illusionbench_mc", path, data_dir=copy, protocol="llm", progress=False)
    assert no_file.values["m"]["acc_llm"] == first.values["m"]["acc_llm"]  # the variable is not read

    # an lmms-eval run hands in none: the variable's decisions apply there, as before
    plain_run = _evaluate("ambi_illusionbench_mc_llm", records, copy, answers)
    assert plain_run.aggregated["acc_llm"] == 1.0
    assert all(it.get("overridden") for it in plain_run.item_scores)


def test_llm_protocol_on_the_command_line_and_its_errors(tmp_path, capsys):
    copy = illusionbench_copy(tmp_path)
    records = read_records(copy / "illusionbench_tf.jsonl")
    path = _write(tmp_path / "x.jsonl", records, _tf_answers(records))
    with pytest.raises(ScoreError, match="the LLM-assisted protocol is IllusionBench's; task 'ambi_synth"):
        score_answers("ambi_synth_geometric_tf", path, protocol="llm")
    with pytest.raises(ScoreError, match="--overrides are reviewed judge decisions"):
        score_answers("ambi_synth_geometric_tf", path, overrides=path, allow_missing=True)
    queue = tmp_path / "queue.jsonl"
    rc = main(["score", "--task", "ambi_illusionbench_tf", "--answers", str(path), "--data-dir", str(copy),
               "--protocol", "llm", "--review-queue", str(queue)])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0 and "LLM-assisted (Table II layout)" in out and "\njudge: offline" in out
    rows = [json.loads(ln) for ln in queue.read_text().splitlines()]
    assert rows and {r["task"] for r in rows} == {"ambi_illusionbench_tf"} and f"wrote {len(rows)} item(s)" in out


# ----------------------------------------------------------------------------- a benchmark of one's own

TOY_ENTRY = '''"""A benchmark whose LLM-assisted protocol names sibling tasks: one missing, one reading other records."""

from ambi_plugin.benchmarks.registry import BenchmarkEntry, Judged, Rescore, register

register(BenchmarkEntry(
    "toyjudge",
    title="ToyJudge",
    local_only="its records ship in the toyjudge folder",
    task_prefixes=("toyjudge_",),
    rescore=Rescore(kinds=("toyjudge",), judged=Judged(
        task=lambda task, protocol: task + "_llm" if protocol == "llm" else task,
        load_overrides=lambda path, task: {},
        review_queue=lambda task, records, items: [],
    )),
))
'''


def _toy_yaml(task: str, dataset: str) -> str:
    fn = "!function ambi_plugin.runtime"
    return (f"task: {task}\ndataset_path: ambi://toyjudge\ndataset_name: {dataset}\noutput_type: generate_until\n"
            f"test_split: test\nprocess_results: {fn}.hooks.process_results\n"
            "lmms_eval_specific_kwargs: {default: {prompt: '{question} Answer yes or no.'}}\n"
            f"metric_list:\n  - {{metric: acc, aggregation: {fn}.aggregate.acc, higher_is_better: true}}\n"
            "metadata: {version: 1, benchmark: toyjudge, paper_table: toyjudge, task_type: yes_no}\n")  # fmt: skip


@pytest.fixture
def toyjudge(tmp_path, monkeypatch):
    import sys

    from ambi_plugin.benchmarks import registry
    from ambi_plugin.paths import BENCHMARKS_ENV

    pkg = tmp_path / "plugins" / "toyjudge"
    (pkg / "task_yamls").mkdir(parents=True)
    (pkg / "data").mkdir()
    (pkg / "__init__.py").write_text(TOY_ENTRY)
    for task, dataset in (("toyjudge_a", "shapes"), ("toyjudge_b", "shapes"), ("toyjudge_b_llm", "colours")):
        (pkg / "task_yamls" / f"{task}.yaml").write_text(_toy_yaml(task, dataset))
    for name in ("shapes", "colours"):
        recs = [{"id": f"{name}{i}", "benchmark": "toyjudge", "category": name, "task_type": "yes_no",
                 "question": "Is it round?", "answer_bool": bool(i % 2)} for i in range(2)]  # fmt: skip
        (pkg / "data" / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    monkeypatch.syspath_prepend(str(pkg.parent))
    monkeypatch.setenv(BENCHMARKS_ENV, "toyjudge")
    monkeypatch.setenv("AMBI_TOYJUDGE_DIR", str(pkg / "data"))
    yield pkg
    registry.REGISTRY.pop("toyjudge", None)
    registry._IMPORTED.discard("toyjudge")
    sys.modules.pop("toyjudge", None)


def test_a_protocols_task_that_is_missing_or_reads_other_records_is_named(toyjudge, tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"shapes{i}", "response": "yes"}) + "\n" for i in range(2)))
    got = score_answers("toyjudge_a", answers, progress=False).values["answers"]  # the rule protocol: the task itself
    assert got["acc"] == 0.5
    with pytest.raises(ScoreError, match="llm protocol of task 'toyjudge_a' is scored by task 'toyjudge_a_llm', "
                                         "which no task YAML defines"):  # fmt: skip
        score_answers("toyjudge_a", answers, protocol="llm", progress=False)
    with pytest.raises(ScoreError, match=r"task 'toyjudge_b_llm', which reads other records \(ambi://toyjudge "
                                         r"colours, not ambi://toyjudge shapes\).*toyjudge_b_llm.yaml"):  # fmt: skip
        score_answers("toyjudge_b", answers, protocol="llm", progress=False)
