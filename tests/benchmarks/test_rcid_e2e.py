"""Every RCID task end to end through the real lmms-eval CLI (``ambi_replay``) on the offline synthetic copy:
replayed answers with a known outcome per item (human-like, no-illusion, neither, unreadable; controls right or
wrong), so every metric and breakdown in the results JSON has a value this test computes by counting. Each task
gets its own mix of outcomes, so the report built from that results JSON (Figure 4, Figure 8, Table 1) can be
checked cell by cell: every cell must be its own task's overall value."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ambi_plugin.benchmarks.rcid import build_synthetic
from ambi_plugin.benchmarks.rcid import prompts as P
from ambi_plugin.core.answers import GARBAGE, wrong_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import slug
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.runtime.taskindex import index

pytestmark = pytest.mark.e2e

N = 8
TASKS = [P.task_name(t, v) for t in P.TYPES for v in (*P.FAMILIES, *P.VARIANTS)]
# One mix of answers on the illusion images per task, (no-illusion, human-like, N/A) shares all different.
ILLUSION_POLICIES = (
    ("human", "pixel", "neither", "garbage"),
    ("human", "human", "pixel", "garbage"),
    ("pixel", "pixel", "pixel", "human"),
    ("human", "human", "human", "pixel"),
    ("pixel", "pixel", "neither", "garbage"),
    ("pixel", "pixel", "pixel", "pixel"),
    ("human", "pixel", "pixel", "neither"),
)
OUTCOME = {"human": "human_like", "pixel": "no_illusion", "neither": "na", "garbage": "na"}
VARIANTS = (*P.FAMILIES, *P.VARIANTS)


def _policy(recs: list[dict], k: int) -> list[str]:
    """Answers for task number ``k``: its illusion mix; controls right for the first k % 4 + 1 of every 4."""
    ill_policy = ILLUSION_POLICIES[k % len(ILLUSION_POLICIES)]
    ill = ctl = 0
    out = []
    for rec in recs:
        if rec["is_illusion"]:
            out.append(ill_policy[ill % 4])
            ill += 1
        else:
            out.append("pixel" if ctl % 4 <= k % 4 else "neither")
            ctl += 1
    return out


def _reply(rec: dict, what: str, *, cot: bool) -> str:
    if what == "garbage":
        return GARBAGE
    if rec["task_type"] == "color_naming":
        text = {"human": rec["human_colors"][0], "pixel": rec["pixel_colors"][0]}.get(what) or wrong_response(rec)
        return f"A colored filter may tint the whole scene. Answer: {text}" if cot else text
    if what == "neither":
        label = wrong_response(rec)
    else:
        label = ("I", "II", "III")[rec[f"{what}_answer_index"]]
    return f"The backgrounds differ, so option I or II could look darker. Answer: {label}" if cot else label


def _expected(recs: list[dict], policy: list[str], metric: str) -> float:
    base, _, value = next(
        ((b, "_", metric[len(b) + 1 :]) for b in ("human_like_rate", "no_illusion_rate", "na_rate", "control_acc",
         "unparsed_rate", "unparsed", "acc") if metric == b or metric.startswith(b + "_")),
    )  # fmt: skip
    pairs = [(r, p) for r, p in zip(recs, policy) if not value or value in {slug(v) for v in r["breakdown"].values()}]
    if base == "control_acc":
        pairs = [(r, p) for r, p in pairs if not r["is_illusion"]]
        return sum(p == "pixel" for _, p in pairs) / len(pairs) if pairs else math.nan
    if base == "unparsed_rate":
        return sum(p == "garbage" for _, p in pairs) / len(pairs)
    if base == "unparsed":  # a count
        return float(sum(p == "garbage" for _, p in pairs))
    if base == "acc":
        if not pairs:
            return math.nan
        right = "human" if recs[0]["prompt_kind"] == "human" else "pixel"
        return sum(p == right or (not r["is_illusion"] and p == "pixel") for r, p in pairs) / len(pairs)
    ill = [p for r, p in pairs if r["is_illusion"]]
    want = base.removesuffix("_rate")
    return sum(OUTCOME[p] == want for p in ill) / len(ill) if ill else math.nan


@pytest.fixture(scope="module")
def rcid_copy(tmp_path_factory) -> Path:
    return build_synthetic(tmp_path_factory.mktemp("rcid") / "copy", n=N)


def test_every_rcid_task_through_the_cli(tmp_path, lmms_eval, rcid_copy):
    idx = index()
    preds, expected = [], {}
    for task in TASKS:
        ttype, variant = task.removeprefix("ambi_rcid_").split("_", 1)
        recs = read_records(rcid_copy / f"{idx[task].config['dataset_name']}.jsonl")[:N]
        policy = _policy(recs, VARIANTS.index(variant) + P.TYPES.index(ttype))
        cot = task.endswith("_cot")
        preds += [{"task": task, "id": r["id"], "response": _reply(r, p, cot=cot)} for r, p in zip(recs, policy)]
        declared = [m["metric"] for m in idx[task].config["metric_list"]]
        expected[task] = {m: _expected(recs, policy, m) for m in declared}
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in preds))
    run = lmms_eval(
        [*replay_args(path, "ambi_rcid_all"), "--limit", str(N)],
        tmp_path / "out",
        env={"AMBI_RCID_DIR": str(rcid_copy)},
    )
    got = task_metrics(run.results)
    assert sorted(got) == sorted(TASKS), run.tail()
    for task in TASKS:
        assert sorted(got[task]) == sorted(expected[task]), task
        for metric, want in expected[task].items():
            val = got[task][metric]
            assert (math.isnan(val) and math.isnan(want)) or val == pytest.approx(want), (task, metric, val, want)
        rates = [got[task][m] for m in ("human_like_rate", "no_illusion_rate", "na_rate")]
        assert sum(rates) == pytest.approx(1.0), task
    # the breakdowns PROTOCOL names are in the results JSON
    assert "human_like_rate_left_right" in got["ambi_rcid_contrast_pixel"]
    assert "no_illusion_rate_diagonal" in got["ambi_rcid_stripe_human"]
    assert "na_rate_multiple" in got["ambi_rcid_filter_fewshot_hl"]
    _check_report(run.results_path, got)


def _check_report(results_path: Path, got: dict[str, dict[str, float]]) -> None:
    """The report of this run: every Figure 4 / Figure 8 / Table 1 cell is its own task's overall value (not a
    breakdown value, not another variant's), with a different value in every task so a mix-up would show."""
    from ambi_plugin.reports import load_runs
    from ambi_plugin.reports.tables import build_tables

    triples = {t: tuple(got[t][m] for m in ("no_illusion_rate", "human_like_rate", "na_rate")) for t in TASKS}
    for ttype in P.TYPES:  # every variant of a type has its own mix, so a wrong mapping changes a cell
        assert len({triples[P.task_name(ttype, v)] for v in VARIANTS}) == len(VARIANTS), ttype

    # breakdown values differ from the overall values, so a breakdown read as a cell would show
    def differs(task: str) -> bool:
        vals = got[task]
        return any(not math.isnan(v) and v != vals[m.split("_rate_")[0] + "_rate"]
                   for m, v in vals.items() if m.startswith(("no_illusion_rate_", "human_like_rate_")))  # fmt: skip

    for ttype in P.TYPES:
        assert differs(P.task_name(ttype, "pixel")), ttype  # Figure 4, Table 1
        assert any(differs(P.task_name(ttype, v)) for v in P.VARIANTS), ttype  # Figure 8
    tables = {t.key: t for t in build_tables(load_runs([results_path]))}
    measures = {"No Illusion": "no_illusion_rate", "Human-like": "human_like_rate", "N/A": "na_rate",
                "Accuracy (controls)": "control_acc"}  # fmt: skip
    settings = {"figure_4": {f"{f} prompts": f for f in P.FAMILIES},
                "figure_8": {"simple prompt": "neutral", "CoT": "cot", "illusion emphasized": "illusion",
                             "few-shot NI": "fewshot_ni", "few-shot HL": "fewshot_hl"}}  # fmt: skip
    for fig, by_label in settings.items():
        table = tables[f"rcid_{fig}"]
        assert [r.setting for r in table.run_rows()] == list(by_label), fig
        for row in table.run_rows():
            for col, cell in zip(table.columns, row.cells):
                ttype, measure = col.split(" ", 1)
                task = P.task_name(ttype.lower(), by_label[row.setting])
                want = 100 * got[task][measures[measure]]
                assert (cell.value is None and math.isnan(want)) or cell.value == pytest.approx(want), (fig, row, col)
    t1 = tables["rcid_table_1"]
    (row,) = t1.run_rows()
    for col, cell in zip(t1.columns, row.cells):
        ttype, family, short = col.split(" ")
        metric = "no_illusion_rate" if short == "NI" else "human_like_rate"
        assert cell.value == pytest.approx(100 * got[P.task_name(ttype.lower(), family)][metric]), col
