"""``ambi score`` (ambi_plugin/scorefile.py): lmms-eval logged samples of any task, re-judging with another
judge, and the fixes for the IllusionVQA authors' released answer files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import is_gold

from ambi_plugin.cli import main
from ambi_plugin.judge import make_judge
from ambi_plugin.judge.loopback import LoopbackChatServer
from ambi_plugin.scorefile import ScoreError, column_setting, score_answers

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
    assert "acc_near" in report.values[col] and report.text.startswith(f"{task}: every metric")
    # re-judge the same answers with another judge (an OpenAI-compatible server on loopback): no model rerun
    with LoopbackChatServer() as server:
        judge = make_judge(backend="openai", model="judge-x", base_url=server.url, api_key="k", cache=False)
        again = score_answers(task, replayed.out, records=records, judge=judge)
        assert server.requests > 0
    assert again.judge["backend"] == "openai" and again.judge["model"] == "judge-x"
    assert again.values[col]["acc"] == pytest.approx(want)
    rc = main(["score", "--task", task, "--answers", str(replayed.out), "--records", str(records), "--judge", "nope"])
    assert rc == 2


@pytest.mark.e2e
def test_aggregate_all_equals_aggregate(replayed):
    from ambi_plugin.core.scoring import aggregate
    from ambi_plugin.reports import load_runs
    from ambi_plugin.scorefile import aggregate_all

    run = load_runs([replayed.out])[0]
    for task in ("ambi_synth_geometric_tf", "ambibench_hybrid_open", "ambi_illusionvqa_comprehension"):
        items = run.items(task)
        names = list(run.metrics[task])
        got = aggregate_all(names + ["no_such_metric"], items)
        assert "no_such_metric" not in got and len(got) >= len(names) - 2
        for name, value in got.items():
            want = aggregate(name, items)
            assert value == pytest.approx(want, nan_ok=True), (task, name)
