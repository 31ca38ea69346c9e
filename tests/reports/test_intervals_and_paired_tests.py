"""Intervals that hold at small n (Wilson for proportions, bootstrap for the rest) and models compared on the same
items (McNemar's exact test, the paired bootstrap, Holm), against SciPy and hand computations, and end to end
through ``ambi report`` on results and samples files written here."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path

import pytest
from scipy import stats as sps

from ambi_plugin.cli import main
from ambi_plugin.reports import build_report, load_runs
from ambi_plugin.reports import stats as S
from ambi_plugin.reports.paired import compare_pair, paired_model_tests


def wilson_ref(k: int, n: int) -> tuple[float, float]:
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def write_run(folder: Path, tasks: dict[str, list[dict]], *, model: str, metric: dict[str, str], extra=None) -> Path:
    """A results JSON (each task's metric = the mean of its items' scores) and one samples file per task."""
    folder.mkdir(parents=True, exist_ok=True)
    results = {}
    for task, items in tasks.items():
        name = metric[task]
        key = "score" if name.startswith("desc_score") else "correct"
        results[task] = {f"{name},none": sum(float(it[key]) for it in items) / len(items)}
        rows = [{"doc_id": i, name: {"task_type": "open", **it}} for i, it in enumerate(items)]
        (folder / f"x_samples_{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    body = {"results": results, "config": {"model": "hand", "model_args": f"pretrained=org/{model}"}, **(extra or {})}
    path = folder / "x_results.json"
    path.write_text(json.dumps(body))
    return path


def flags(values, prefix="r") -> list[dict]:
    return [{"id": f"{prefix}{i}", "correct": bool(v)} for i, v in enumerate(values)]


# -- the functions, against SciPy and by hand


@pytest.mark.parametrize(("k", "n"), [(0, 8), (1, 1), (0, 1), (8, 8), (3, 10), (37, 91), (500, 1000)])
def test_wilson_matches_scipy(k, n):
    assert S.wilson_ci(k, n) == pytest.approx(wilson_ref(k, n), abs=1e-12)


def test_wilson_at_small_n_is_not_degenerate():
    lo, hi = S.wilson_ci(0, 8)
    assert lo == 0.0 and hi == pytest.approx(0.3244, abs=1e-4)  # [0, 32.4]% at 95%
    lo, hi = S.wilson_ci(1, 1)
    assert hi == 1.0 and lo == pytest.approx(0.2065, abs=1e-4) and lo < 0.5  # no certainty from one item
    # by hand for 1/1: (1 + z^2/2 - z sqrt(z^2/4)) / (1 + z^2) = 1 / (1 + z^2)
    z = 1.959963984540054
    assert lo == pytest.approx(1 / (1 + z * z))
    assert all(math.isnan(x) for x in S.wilson_ci(0, 0))
    with pytest.raises(ValueError, match="0 <= k <= n"):
        S.wilson_ci(3, 2)


@pytest.mark.parametrize(("b", "c"), [(3, 0), (10, 2), (7, 7), (25, 40), (1, 0), (300, 260), (0, 12)])
def test_mcnemar_exact_matches_scipy_binomtest_on_the_discordant_pairs(b, c):
    assert S.mcnemar_exact(b, c) == pytest.approx(sps.binomtest(b, b + c, 0.5).pvalue, rel=1e-12)


def test_mcnemar_exact_by_hand():
    # 10 vs 2 discordant: 2 P(X <= 2), X ~ Bin(12, 1/2) = 2 (1 + 12 + 66) / 4096 = 158 / 4096
    assert S.mcnemar_exact(10, 2) == 158 / 4096 == pytest.approx(0.03857421875)
    assert S.mcnemar_exact(0, 0) == 1.0  # no discordant item: no evidence either way
    assert S.mcnemar_exact(4, 4) == 1.0
    with pytest.raises(ValueError, match="non-negative"):
        S.mcnemar_exact(-1, 2)


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.04, 0.5 (m = 4): 0.04, max(0.04, 0.06) = 0.06, max(0.06, 0.08) = 0.08, max(0.08, 0.5)
    got = S.holm([0.04, 0.01, 0.5, None, 0.02])
    assert got == [pytest.approx(0.08), pytest.approx(0.04), pytest.approx(0.5), None, pytest.approx(0.06)]
    assert S.holm([0.3, 0.4]) == [pytest.approx(0.6), pytest.approx(0.6)]  # step-down keeps the order monotone
    assert S.holm([0.9, 0.8]) == [1.0, 1.0]


def test_paired_bootstrap_by_hand():
    a, b = [2.0, 1.0, 2.0, 0.0], [1.0, 0.0, 1.0, -1.0]  # every difference is 1
    res = S.paired_bootstrap(a, b, n_resamples=200, seed=0)
    assert (res.diff, res.low, res.high) == (1.0, 1.0, 1.0)
    assert res.p_value == pytest.approx(1 / 201)  # no centred resample reaches |1|: the smallest p
    same = S.paired_bootstrap(a, a, n_resamples=200)
    assert (same.diff, same.p_value) == (0.0, 1.0)
    rng = random.Random(4)
    x = [rng.choice((0.0, 1.0, 2.0)) for _ in range(300)]
    y = [v if rng.random() < 0.8 else rng.choice((0.0, 1.0, 2.0)) for v in x]
    res = S.paired_bootstrap(x, y, n_resamples=2000, seed=1)
    d = [u - v for u, v in zip(x, y)]
    half = 1.96 * S.mean_std(d)[1] / math.sqrt(len(d))  # the normal interval of a mean difference
    assert res.low == pytest.approx(res.diff - half, abs=0.02) and res.high == pytest.approx(res.diff + half, abs=0.02)
    t = sps.ttest_rel(x, y)  # large n: the bootstrap p and the paired t p agree roughly
    assert res.p_value == pytest.approx(t.pvalue, abs=0.05)


def test_items_are_matched_by_id_never_by_position():
    a = flags([1, 1, 0, 1, 0, 1])  # r0..r5
    b = list(reversed(flags([1, 0, 0, 1, 1, 0])))  # the same ids, logged in the opposite order
    b.append({"id": "r99", "correct": True})  # an id only B logged
    b.append({"correct": False})  # no id: not paired
    row = compare_pair("acc", a, b)
    # by id: r1 (1 vs 0), r4 (0 vs 1), r5 (1 vs 0) discordant -> b = 2, c = 1
    assert (row["matched"], row["only_a"], row["only_b"], row["no_id"]) == (6, 0, 1, 1)
    assert (row["b"], row["c"], row["test"]) == (2, 1, "McNemar exact")
    assert row["p"] == pytest.approx(sps.binomtest(2, 3, 0.5).pvalue)
    assert row["mean_a"] == pytest.approx(100 * 4 / 6) and row["mean_b"] == pytest.approx(100 * 3 / 6)
    dup = compare_pair("acc", a + [{"id": "r0", "correct": False}], b)  # r0 logged twice by A: not paired
    assert (dup["matched"], dup["duplicate_ids"], dup["only_b"]) == (5, 1, 2)


# -- end to end through `ambi report`


def test_ambi_report_shows_wilson_intervals_on_0_of_8_and_1_of_1(tmp_path, capsys):
    a = write_run(tmp_path / "a", {"mytask_zero": flags([0] * 8), "mytask_one": flags([1])}, model="m1",
                  metric={"mytask_zero": "acc", "mytask_one": "acc"})  # fmt: skip
    out = tmp_path / "rep"
    assert main(["report", str(a), "--format", "md,csv,json,latex,html", "--out", str(out), "--no-plots",
                 "--quiet"]) == 0  # fmt: skip
    lo8, hi8 = (100 * x for x in wilson_ref(0, 8))
    lo1, hi1 = (100 * x for x in wilson_ref(1, 1))
    assert (round(lo8, 2), round(hi8, 2), round(lo1, 2)) == (0.0, 32.44, 20.65)
    md = (out / "report.md").read_text()
    assert f"0.00 [0.00, {hi8:.2f}]" in md and f"100.00 [{lo1:.2f}, 100.00]" in md
    assert "[0.00, 0.00]" not in md and "[100.00, 100.00]" not in md
    assert md.count("[lo, hi]: 95% Wilson score interval") == 2  # each table says what its interval is
    data = json.loads((out / "report.json").read_text())
    cells = {t["key"]: t["rows"][0]["cells"][0] for t in data["tables"]}
    zero, one = cells["task:mytask_zero"], cells["task:mytask_one"]
    assert zero["ci"] == pytest.approx([lo8, hi8]) and one["ci"] == pytest.approx([lo1, hi1])
    assert (zero["ci_level"], zero["ci_method"], zero["n"], one["n"]) == (0.95, "wilson", 8, 1)
    rows = list(csv.DictReader(io.StringIO((out / "report.csv").read_text())))
    got = next(r for r in rows if r["table"] == "task:mytask_zero")
    assert (got["ci_level"], got["ci_method"], got["n"], float(got["ci_high"])) == ("0.95", "wilson", "8",
                                                                                    pytest.approx(hi8))  # fmt: skip
    assert r"95\% intervals: Wilson score" in (out / "report.tex").read_text()
    assert "95% Wilson score interval" in (out / "report.html").read_text()


def test_graded_scores_keep_the_bootstrap_and_say_so(tmp_path):
    """A 0/1/2 description score is not a proportion: bootstrap, even for a run whose scores are all 0 or 1."""
    desc = [{"id": f"d{i}", "score": s} for i, s in enumerate([0, 1, 2, 2, 1, 0, 2, 1])]
    low = [{"id": f"d{i}", "score": s} for i, s in enumerate([0, 1, 1, 0, 1, 0, 1, 1])]
    a = write_run(tmp_path / "a", {"mytask_desc": desc, "mytask_low": low}, model="m1",
                  metric={"mytask_desc": "desc_score", "mytask_low": "desc_score"})  # fmt: skip
    report = build_report([a], n_boot=200)
    for table in report.tables:
        cell = table.rows[0].cells[0]
        assert cell.ci_method == "bootstrap" and cell.ci[0] <= cell.value <= cell.ci[1]
        assert any("95% percentile bootstrap interval (over the logged items; 200 resamples" in n for n in table.notes)


def test_ambi_report_compares_models_by_mcnemar_on_matched_items_with_holm(tmp_path, capsys):
    rng = random.Random(7)
    xa = [rng.random() < 0.75 for _ in range(40)]
    xb = [rng.random() < 0.45 for _ in range(40)]
    ya = [rng.random() < 0.5 for _ in range(30)]
    yb = [v if rng.random() < 0.7 else not v for v in ya]
    da = [rng.choice((0, 1, 2)) for _ in range(25)]
    db = [rng.choice((0, 1, 2)) for _ in range(25)]
    metric = {"mytask_x": "acc", "mytask_y": "acc", "mytask_d": "desc_score"}
    a = write_run(tmp_path / "a", {"mytask_x": flags(xa), "mytask_y": flags(ya),
                                   "mytask_d": [{"id": f"r{i}", "score": s} for i, s in enumerate(da)]},
                  model="model-a", metric=metric)  # fmt: skip
    # B logged its items in another order, one item of x is missing, one extra id: pairing must go by id
    b_x = list(reversed(flags(xb)))[1:] + [{"id": "extra", "correct": True}]
    b = write_run(tmp_path / "b", {"mytask_x": b_x, "mytask_y": flags(yb),
                                   "mytask_d": [{"id": f"r{i}", "score": s} for i, s in enumerate(db)]},
                  model="model-b", metric=metric)  # fmt: skip
    out = tmp_path / "rep"
    assert main(["report", str(a), str(b), "--format", "md,json,csv", "--out", str(out), "--no-plots",
                 "--quiet", "--bootstrap", "500"]) == 0  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    rows = {r["task"]: r for r in data["significance"] if r.get("protocol") == "paired items"}
    assert set(rows) == {"mytask_x", "mytask_y", "mytask_d"}
    x = rows["mytask_x"]
    pairs = list(zip(xa[:39], xb[:39]))  # B's first item (its last in file order) is r39: missing from B
    bx = sum(1 for u, v in pairs if u and not v)
    cx = sum(1 for u, v in pairs if v and not u)
    assert (x["matched"], x["only_a"], x["only_b"], x["b"], x["c"]) == (39, 1, 1, bx, cx)
    assert x["test"] == "McNemar exact" and x["p"] == pytest.approx(sps.binomtest(bx, bx + cx, 0.5).pvalue)
    y = rows["mytask_y"]
    by, cy = sum(1 for u, v in zip(ya, yb) if u and not v), sum(1 for u, v in zip(ya, yb) if v and not u)
    assert y["p"] == pytest.approx(sps.binomtest(by, by + cy, 0.5).pvalue)
    d = rows["mytask_d"]
    assert d["test"] == "paired bootstrap" and d["diff"] == pytest.approx(sum(da) / 25 - sum(db) / 25)
    assert d["diff_ci"][0] <= d["diff"] <= d["diff_ci"][1]
    # Holm over the three comparisons of the table
    ps = sorted((r["p"], k) for k, r in rows.items())
    running = 0.0
    for i, (p, k) in enumerate(ps):
        running = max(running, min(1.0, (3 - i) * p))
        assert rows[k]["p_holm"] == pytest.approx(running) and rows[k]["correction"] == "holm"
        assert rows[k]["family_size"] == 3
    # no t-test on the 0/1 outcomes of two single runs
    assert not [r for r in data["significance"] if r.get("protocol") != "paired items" and " vs " in r["comparison"]]
    md = (out / "report.md").read_text()
    assert "## Significance tests: models on the same items (McNemar exact / paired bootstrap; Holm)" in md
    assert "Holm's step-down adjustment over the m = 3 comparisons" in md and "matched by record id" in md
    heads = data["significance_notes"]
    assert any("m = 3 comparisons" in n for notes in heads.values() for n in notes)


def test_repeated_runs_keep_the_papers_a6_protocol_in_the_report(tmp_path):
    """Models with repeated runs: Welch over the per-run values with Bonferroni, labelled as the paper's protocol."""
    va, vb = [0.70, 0.66, 0.74], [0.41, 0.47, 0.43]
    paths = []
    for model, vals in (("model-a", va), ("model-b", vb)):
        for i, v in enumerate(vals):
            folder = tmp_path / f"{model}-{i}"
            folder.mkdir()
            body = {"results": {"ambibench_color_open": {"acc,none": v}},
                    "config": {"model": "hand", "model_args": f"pretrained=org/{model}"}}  # fmt: skip
            (folder / "x_results.json").write_text(json.dumps(body))
            paths.append(folder)
    report = build_report(paths, n_boot=0)
    (row,) = [r for r in report.tests if r["comparison"] == "model-a vs model-b"]
    ref = sps.ttest_ind([100 * v for v in va], [100 * v for v in vb], equal_var=False)
    assert row["p"] == pytest.approx(ref.pvalue) and row["samples"] == "runs" and row["test"] == "welch"
    assert (row["protocol"], row["correction"], row["family_size"]) == ("AmbiBench A.6", "bonferroni", 1)
    from ambi_plugin.reports.render import to_markdown

    md = to_markdown(report.tables, report.tests, test_notes=report.test_notes)
    assert "## Significance tests: AmbiBench A.6 protocol (Welch t-test; Bonferroni uncapped" in md
    assert "models on the same items" not in md  # repeated runs are not paired by item


def test_one_run_against_repeated_runs_is_named_not_compared(tmp_path):
    paths = [write_run(tmp_path / "a", {"mytask_x": flags([1, 0, 1])}, model="m1", metric={"mytask_x": "acc"})]
    for i in range(2):
        paths.append(write_run(tmp_path / f"b{i}", {"mytask_x": flags([1, 1, i])}, model="m2",
                               metric={"mytask_x": "acc"}))  # fmt: skip
    rows, notes = paired_model_tests(load_runs(paths))
    assert rows == [] and notes == [
        "m1 (1 run(s)) vs m2 (2 run(s)): not compared; items are paired between single runs and repeated runs are "
        "compared with repeated runs"
    ]


def test_ambi_report_warns_of_a_limit_run_and_lists_skipped_tasks(tmp_path, capsys):
    extra = {"ambi_plugin": {"skipped": {"ambibench_color_open": "AMBI_AMBIBENCH_DIR is not set"}}}
    a = write_run(tmp_path / "a", {"mytask_x": flags([1, 0, 1, 1])}, model="m1", metric={"mytask_x": "acc"},
                  extra=extra)  # fmt: skip
    body = json.loads(a.read_text())
    body["config"]["limit"] = 4
    body["results"]["ambibench_color_open"] = {"acc,none": float("nan")}  # as lmms-eval writes it
    a.write_text(json.dumps(body))
    out = tmp_path / "rep"
    assert main(["report", str(a), "--format", "md,json,csv,latex,html", "--out", str(out), "--no-plots",
                 "--quiet"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "WARNING: run m1" in err and "used --limit 4: each task ran on at most 4 items" in err
    assert "skipped task ambibench_color_open (run m1" in err and "AMBI_AMBIBENCH_DIR is not set" in err
    md = (out / "report.md").read_text()
    assert md.index("used --limit 4") < md.index("## ") and "skipped task ambibench_color_open" in md
    data = json.loads((out / "report.json").read_text())
    assert len(data["warnings"]) == 2 and "--skip-missing" in data["warnings"][1]
    for ext in ("csv", "tex", "html"):
        assert "used --limit 4" in (out / f"report.{ext}").read_text(), ext
    plain = write_run(tmp_path / "b", {"mytask_x": flags([1])}, model="m2", metric={"mytask_x": "acc"})
    assert main(["report", str(plain), "--out", str(tmp_path / "rep2"), "--no-plots", "--quiet"]) == 0
    assert "WARNING" not in capsys.readouterr().err


def test_a_table_with_two_interval_methods_names_the_columns_of_each():
    from ambi_plugin.reports.tables import Cell, Row, Table, interval_note

    cells = [Cell(10.0, ci=(2.0, 30.0), ci_method="wilson", n=10), Cell(0.5, ci=(0.3, 0.7), ci_method="bootstrap"),
             Cell(20.0)]  # fmt: skip
    table = Table("t", "b", "T", ["Open", "loc AP", "AVG"], [Row("m", "", "run", cells)])
    assert interval_note(table, n_boot=300, seed=2) == (
        "[lo, hi] in Open: 95% Wilson score interval (a proportion: every logged item scored 0 or 1); "
        "[lo, hi] in loc AP: 95% percentile bootstrap interval (over the logged items; 300 resamples, seed 2)"
    )
    table.rows.append(Row("m2", "", "run", [Cell(5.0, ci=(1.0, 9.0), ci_method="bootstrap"), Cell(None), Cell(None)]))
    assert "[lo, hi] in Open (m2), loc AP: 95% percentile bootstrap" in interval_note(table, n_boot=300, seed=2)
    assert "[lo, hi] in Open (m): 95% Wilson score" in interval_note(table, n_boot=300, seed=2)
