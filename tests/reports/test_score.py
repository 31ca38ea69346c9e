"""``ambi score`` (ambi_plugin/reports/rescore.py): lmms-eval logged samples of any task, re-judging with another
judge, and the fixes for the IllusionVQA authors' released answer files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import is_gold, response, via_right
from support.chat_server import LoopbackChatServer, oracle_responder

from ambi_plugin.cli import main
from ambi_plugin.data.replayfiles import task_records
from ambi_plugin.judge import make_judge
from ambi_plugin.reports.answers import ScoreError, column_setting
from ambi_plugin.reports.rescore import score_answers
from ambi_plugin.runtime.taskindex import expand_tasks

SOFT = "ambi_illusionvqa_soft_localization"
COMP = "ambi_illusionvqa_comprehension"


def _release(shared_data: Path, soft: bool = False) -> Path:
    return (
        shared_data / "illusionvqa" / ("soft_localization_test_1000.jsonl" if soft else "comprehension_test_435.jsonl")
    )


def _rows(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def authors_file(tmp_path: Path, rows: list[dict], plan, *, later: bool = False) -> Path:
    """The authors' layout: a JSON list of dataset fields and answer columns (option texts); ``later`` adds the
    non-answer fields of their later files."""
    out = []
    for r in rows:
        row = {k: r[k] for k in ("id", "question", "options", "answer", "image", "category")}
        if later:
            letter = "abcdefgh"[r["options"].index(r["answer"])]
            row.update(correct_option_letter=letter, mcq="Q: ...", image_path=f"images/{r['image']}")
        row.update(plan(r))
        out.append(row)
    path = tmp_path / "authors.json"
    path.write_text(json.dumps(out))
    return path


def test_soft_localization_prompt_type_comes_from_each_column(tmp_path, shared_data):
    rows = _rows(_release(shared_data, soft=True))
    cols = ("GPT_0_SHOT", "GPT_4_SHOT", "GPT_4_SHOT_COT", "GEM_4_SHOT_COT")
    path = authors_file(tmp_path, rows, lambda r: dict.fromkeys(cols, r["answer"]))
    report = score_answers(SOFT, path, records=_release(shared_data, soft=True))
    got = {ln.split("|")[1].strip(): ln.split("|")[2].strip() for ln in report.text.splitlines()[3:] if "|" in ln}
    assert got == {"GPT_0_SHOT": "0-shot", "GPT_4_SHOT": "4-shot", "GPT_4_SHOT_COT": "4-shot + CoT",
                   "GEM_4_SHOT_COT": "4-shot + CoT"}  # fmt: skip
    assert column_setting("model_x", "0-shot") == "0-shot" and column_setting("HUMAN_ANSWER_1") == "human"


def test_vote_needs_no_column_and_answers_file_works_as_records(tmp_path, shared_data):
    rows = _rows(_release(shared_data))
    humans = ["HUMAN_ANSWER_1", "HUMAN_ANSWER_2", "HUMAN_ANSWER_3"]
    path = authors_file(tmp_path, rows, lambda r: {"GPT_0_SHOT": r["answer"], **dict.fromkeys(humans, r["answer"])},
                        later=True)  # fmt: skip
    # the answers file itself as --records (it holds every dataset field): same records as the release
    a = score_answers(COMP, path, columns=["GPT_0_SHOT"], vote=humans, vote_name="Human", records=path)
    b = score_answers(COMP, path, columns=["GPT_0_SHOT"], vote=humans, vote_name="Human", records=_release(shared_data))
    assert list(a.values) == ["GPT_0_SHOT", "Human"] and a.values == b.values
    assert a.values["Human"]["acc"] == 1.0 and a.values["GPT_0_SHOT"]["acc"] == 1.0
    # default picker: correct_option_letter, mcq and image_path are not models
    c = score_answers(COMP, path, records=path)
    assert list(c.values) == ["GPT_0_SHOT", *humans]
    rc = main(["score", "--task", COMP, "--answers", str(path), "--records", str(path), "--vote", ",".join(humans)])
    assert rc == 0


def test_offline_without_records_says_to_pass_records(tmp_path, shared_data, monkeypatch, capsys):
    monkeypatch.delenv("AMBI_ILLUSIONVQA_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"id": "1", "response": "a"}) + "\n")
    rc = main(["score", "--task", COMP, "--answers", str(path)])
    err = capsys.readouterr().err
    assert rc == 2 and "--records" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(ScoreError, match="--records FILE"):
        score_answers(COMP, path)


SET = re.compile(r"^Set 1: (.*)\nSet 2: (.*)$", re.MULTILINE)


def disagreeing_responder(false_views: list[list[str]], true_views: list[list[str]]):
    """The loopback oracle judge, except on purpose: "False" for a view whose gold labels are in ``false_views``,
    "True" for one in ``true_views``, whatever the answer."""

    def respond(prompt: str, n: int, payload: dict):
        if m := SET.search(prompt):
            gold = sorted(t.strip().replace("/", "|") for t in m.group(1).split(",") if t.strip())
            if gold in false_views:
                return "False"
            if gold in true_views:
                return "True"
        return oracle_responder(prompt, n, payload)

    return respond


@pytest.mark.e2e
def test_logged_samples_of_any_task_and_rejudging(replayed, tmp_path):
    task = "ambibench_hybrid_open"
    recs = replayed.records[task]
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in recs))
    want = sum(is_gold(i) for i in range(len(recs))) / len(recs)
    report = score_answers(task, replayed.out, records=records)  # the output folder: its logged samples
    (col,) = report.values
    assert report.values[col]["acc"] == pytest.approx(want)
    assert "acc_near" in report.values[col] and f"{task}: every metric" in report.text

    # re-judge with another judge (an OpenAI-compatible server on loopback) that disagrees on purpose: the views
    # of records 1 and 2 (answered right) are judged wrong, those of record 0 (first view only right) all right
    labels = [[sorted(v["labels"]) for v in r["views"]] for r in recs]
    false_views, true_views = labels[1] + labels[2], labels[0]

    def verdict(i: int, k: int) -> bool:  # by hand: the offline judge's verdict unless the loopback one disagrees
        if labels[i][k] in false_views:
            return False
        if labels[i][k] in true_views:
            return True
        return is_gold(i) or k == 0  # gold answers name every view; the others only the first

    with LoopbackChatServer(disagreeing_responder(false_views, true_views)) as server:
        judge = make_judge(backend="openai", model="judge-x", base_url=server.url, api_key="k", cache=False)
        again = score_answers(task, replayed.out, records=records, judge=judge)
        assert server.requests == sum(len(r["views"]) for r in recs)  # one set-match judgement per view
    assert again.judge["backend"] == "openai" and again.judge["model"] == "judge-x"
    rejudged = sum(all(verdict(i, k) for k in range(len(r["views"]))) for i, r in enumerate(recs)) / len(recs)
    assert again.values[col]["acc"] == pytest.approx(rejudged) and rejudged != pytest.approx(want)
    for name in ("near", "far"):
        flags = [verdict(i, k) for i, r in enumerate(recs) for k, v in enumerate(r["views"]) if v["name"] == name]
        assert again.values[col][f"acc_{name}"] == pytest.approx(sum(flags) / len(flags)), name
    assert again.values[col]["acc_near"] < report.values[col]["acc_near"]
    rc = main(["score", "--task", task, "--answers", str(replayed.out), "--records", str(records), "--judge", "nope"])
    assert rc == 2


@pytest.mark.e2e
def test_viabench_logged_samples_score_and_rejudge(replayed, capsys):
    task = "ambi_viabench_va"
    recs = replayed.records[task]
    n = len(recs)
    report = score_answers(task, replayed.out)  # VIA-Bench's own scoring: Match and Judge
    (col,) = report.values
    got = report.values[col]
    for proto in ("match", "judge"):
        assert got[f"acc_{proto}"] == pytest.approx(sum(via_right(i, proto) for i in range(n)) / n), proto
    assert got["not_sure_rate"] == pytest.approx(sum(i % 3 == 2 for i in range(n)) / n)
    assert got["unparsed_rate"] == pytest.approx(sum(i % 3 == 1 for i in range(n)) / n)
    assert main(["score", "--task", task, "--answers", str(replayed.out)]) == 0
    out = capsys.readouterr().out
    assert "VIA-Bench Match and Judge" in out and "acc_judge" in out
    # re-judge: the loopback judge picks option A whatever the answer (Match does not change)
    with LoopbackChatServer() as server:
        judge = make_judge(backend="openai", model="judge-x", base_url=server.url, api_key="k", cache=False)
        again = score_answers(task, replayed.out, judge=judge).values[col]
        assert server.requests == n
    assert again["acc_judge"] == pytest.approx(sum(r["answer_index"] == 0 for r in recs) / n)
    assert again["acc_judge"] != pytest.approx(got["acc_judge"]) and again["acc_match"] == got["acc_match"]


@pytest.mark.e2e
def test_rescoring_a_limit_runs_samples_reproduces_its_numbers(replayed):
    from ambi_plugin.reports import load_runs

    run = load_runs([replayed.out])[0]
    subsets = 0
    for task, seen in replayed.records.items():
        report = score_answers(task, replayed.out, progress=False)
        (col,) = report.values
        shared = [m for m in run.metrics[task] if m in report.values[col]]
        assert len(shared) >= 2, task
        for m in shared:
            assert report.values[col][m] == pytest.approx(run.metrics[task][m], nan_ok=True), (task, m)
        n_all = len(task_records(expand_tasks(task)[0]))
        assert report.note.startswith(f"scored the {len(seen)} record(s) the run logged"), task
        if n_all > len(seen):  # --limit 6 of the synthetic tasks' 8 records: said in the output
            assert f"of {n_all} in the task" in report.text.splitlines()[0], task
            subsets += 1
    assert subsets >= 10


@pytest.mark.e2e
def test_answers_without_some_records_are_a_clear_error(replayed, tmp_path):
    task = "ambi_synth_geometric_tf"
    recs = task_records(expand_tasks(task)[0])
    seen = replayed.records[task]
    assert len(seen) < len(recs)
    path = tmp_path / "answers.jsonl"  # {id, response} for the records the run saw, not the others
    path.write_text("".join(json.dumps({"id": r["id"], "response": response(task, r, i)}) + "\n"
                            for i, r in enumerate(seen)))  # fmt: skip
    with pytest.raises(ScoreError, match="has no answer for record id") as err:
        score_answers(task, path)
    assert str(recs[-1]["id"]) in str(err.value) and "--allow-missing" in str(err.value)
    # --allow-missing: a missing answer is scored wrong, over every record of the task
    got = score_answers(task, path, allow_missing=True).values["answers"]
    assert got["acc"] == pytest.approx(sum(is_gold(i) for i in range(len(seen))) / len(recs))


@pytest.mark.e2e
def test_aggregate_all_equals_aggregate(replayed):
    from ambi_plugin.core.scoring import aggregate
    from ambi_plugin.reports import load_runs
    from ambi_plugin.reports.rescore import aggregate_all

    run = load_runs([replayed.out])[0]
    for task in ("ambi_synth_geometric_tf", "ambibench_hybrid_open", "ambi_illusionvqa_comprehension"):
        items = run.items(task)
        names = list(run.metrics[task])
        got = aggregate_all(names + ["no_such_metric"], items)
        assert "no_such_metric" not in got and len(got) >= len(names) - 2
        for name, value in got.items():
            want = aggregate(name, items)
            assert value == pytest.approx(want, nan_ok=True), (task, name)


@pytest.mark.e2e
def test_logged_ids_missing_from_the_records_given_are_an_error(replayed, tmp_path):
    task = "ambibench_hybrid_open"
    records = tmp_path / "two.jsonl"  # not the run's records: only two of them
    records.write_text("".join(json.dumps(r) + "\n" for r in replayed.records[task][:2]))
    with pytest.raises(ScoreError, match="are not records of task") as err:
        score_answers(task, replayed.out, records=records)
    assert str(replayed.records[task][2]["id"]) in str(err.value)


def test_a_task_is_read_from_its_own_yaml_as_from_the_index():
    from ambi_plugin.reports.rescore import task_info
    from ambi_plugin.runtime.taskindex import index

    idx = index()
    for name in ("ambi_synth_geometric_mc", "ambi_viabench_va", "ambibench_hybrid_open"):
        (info,) = task_info(name)
        assert info.config == idx[name].config and info.path == idx[name].path
    with pytest.raises(KeyError, match="did you mean ambi_synth_geometric_mc"):
        task_info("ambi_synth_geometric_mx")
    with pytest.raises(ScoreError, match="not a group"):
        score_answers("ambi_synth_all", Path(__file__))


@pytest.mark.parametrize("layout", ["jsonl", "json list"])
def test_duplicate_answer_ids_keep_the_first_answer_and_warn(tmp_path, capsys, layout):
    from ambi_plugin.data.replayfiles import write_reference_predictions

    task = "ambi_synth_geometric_yn"
    gold, wrong = tmp_path / "gold.jsonl", tmp_path / "wrong.jsonl"
    write_reference_predictions(gold, tasks=task, mode="gold")
    write_reference_predictions(wrong, tasks=task, mode="wrong")
    rows = _rows(gold) + _rows(wrong)[:3] * 2  # 3 ids answered again, twice each, wrongly: a later row never wins
    path = tmp_path / ("answers.jsonl" if layout == "jsonl" else "answers.json")
    if layout == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:  # the authors' layout: a JSON list with answer columns
        path.write_text(json.dumps([{"id": r["id"], "model_answer": r["response"]} for r in rows]))
    assert main(["score", "--task", task, "--answers", str(path)]) == 0
    captured = capsys.readouterr()
    expected = f"warning: {path}: 6 duplicate answer(s) ignored, 3 record id(s) given more than once"
    assert expected in captured.out and f"ambi score: {expected}" in captured.err
    values = next(iter(score_answers(task, path, progress=False).values.values()))
    assert values["acc"] == 1.0


def test_every_bad_line_is_named_with_line_and_column_and_nothing_is_scored(tmp_path, capsys):
    from ambi_plugin.data.replayfiles import write_reference_predictions
    from ambi_plugin.reports.answers import MAX_BAD_LINES

    task = "ambi_synth_geometric_tf"
    good = tmp_path / "gold.jsonl"
    write_reference_predictions(good, tasks=task, mode="gold")
    lines = good.read_text().splitlines()
    quote = lines[1].index('"id": "') + 6
    lines[1] = lines[1][: quote + 3]  # cut inside a string: Python's message alone is "Unterminated string starting at"
    lines[3] = '{"id": "x" "response": "True"}'
    lines[4] = "[1, 2]"  # JSON, not an object
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert main(["score", "--task", task, "--answers", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no scores from a file read in part
    assert f"{path}: 3 bad line(s), nothing scored" in err
    assert f"{path}:2: not valid JSON: Unterminated string starting at column {quote + 1}" in err
    assert f"{path}:4: not valid JSON: Expecting ',' delimiter (column 12)" in err
    assert f"{path}:5: a JSON list, not an object" in err
    # many bad lines: the first MAX_BAD_LINES named, the rest counted
    many = tmp_path / "many.jsonl"
    many.write_text("\n".join([lines[0]] + ["{oops"] * (MAX_BAD_LINES + 5)) + "\n")
    assert main(["score", "--task", task, "--answers", str(many)]) == 2
    out, err = capsys.readouterr()
    named = re.findall(rf"{re.escape(str(many))}:(\d+): not valid JSON: Expecting property name enclosed in double "
                       r"quotes \(column 2\)", err)  # fmt: skip
    assert named == [str(n) for n in range(2, MAX_BAD_LINES + 2)] and "and 5 more" in err and out == ""
    # a JSON list stops at its first error: its line and column, and how to get every bad row named
    listed = tmp_path / "answers.json"
    listed.write_text('[{"id": "a", "response": "True"},\n {"id": "b" "response": "True"}]')
    assert main(["score", "--task", task, "--answers", str(listed)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{listed}:2: not valid JSON: Expecting ',' delimiter (column 13)" in err and "one JSON object per line" in err
    )
