"""VIA-Bench and RCID renderers (driven by metric names) and the output formats, on results JSONs built by
hand; significance tests on hand-written logged samples."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest
from scipy import stats as sps

from ambi_plugin.cli import main
from ambi_plugin.reports import build_report, load_runs, write_report
from ambi_plugin.reports.render import to_csv, to_json, to_latex, to_markdown
from ambi_plugin.reports.significance import category_tests, model_tests
from ambi_plugin.reports.tables import build_tables

CATS = ("va", "ci", "mi", "gi", "gsi", "vi")


def write_results(folder: Path, results: dict[str, dict[str, float]], *, model: str, stem: str = "x") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    body = {
        "results": {task: {f"{k},none": v for k, v in vals.items()} for task, vals in results.items()},
        "config": {"model": "hand", "model_args": f"pretrained=org/{model}"},
    }
    path = folder / f"{stem}_results.json"
    path.write_text(json.dumps(body))
    return path


def via_values(match: list[float], judge: list[float]) -> dict[str, float]:
    out = {}
    for c, m, j in zip(CATS, match, judge):
        out[f"acc_match_{c}"], out[f"acc_judge_{c}"] = m, j
    return out


M1 = [0.20, 0.30, 0.80, 0.35, 0.75, 0.55]
J1 = [0.25, 0.30, 0.80, 0.30, 0.75, 0.50]
M2 = [0.40, 0.50, 0.70, 0.80, 0.80, 0.60]


def table(tables, key):
    return next(t for t in tables if t.key == key)


def test_via_main_table_avg_rank_variants_and_paper(tmp_path):
    a = write_results(tmp_path / "a", {"ambi_viabench_val": via_values(M1, J1),
                                       "ambi_viabench_val_zs_cot": via_values(M2, M2)}, model="Qwen2.5-VL-7B-Instruct")  # fmt: skip
    # a second model with one task per category (acc_match / acc_judge), one category missing
    b = write_results(tmp_path / "b", {f"ambi_viabench_{c}": {"acc_match": m, "acc_judge": m}
                                       for c, m in zip(CATS[:5], M2)}, model="Other")  # fmt: skip
    t = table(build_tables(load_runs([a, b]), compare_paper=True), "via_main")
    runs = t.run_rows()
    assert [(r.label, r.setting) for r in runs] == [("Qwen2.5-VL-7B-Instruct", "normal"),
                                                    ("Qwen2.5-VL-7B-Instruct", "zero-shot CoT"), ("Other", "normal")]  # fmt: skip
    assert t.columns[:2] == ["VA Match", "VA Judge"] and t.columns[-2:] == ["AVG", "Rank"]
    avg1 = 100 * (sum(M1) + sum(J1)) / 12
    avg2 = 100 * 2 * sum(M2) / 12
    avg3 = 100 * 2 * sum(M2[:5]) / 10  # the missing category is skipped, not counted as 0
    assert [r.cells[-2].value for r in runs] == pytest.approx([avg1, avg2, avg3])
    # ranked within each setting (the models compared under one protocol)
    assert avg3 > avg1 and [r.cells[-1].value for r in runs] == [2.0, 1.0, 1.0]

    assert runs[0].cells[0].value == pytest.approx(20.0) and runs[2].cells[-4].value is None
    diff = next(r for r in t.rows if r.kind == "diff")
    assert diff.label == "Qwen2.5-VL-7B-Instruct - paper Qwen2.5-VL-7B-Instruct" and diff.setting == "normal"
    assert diff.cells[0].value == pytest.approx(20.0 - 22.93) and diff.cells[-1].value is None
    assert sum(1 for r in t.rows if r.kind == "paper") == 26
    # Table 3.2 has no CoT rows: the zero-shot CoT run is not compared with the normal paper row
    assert [r.setting for r in t.rows if r.kind == "diff"] == ["normal"]


def test_via_cot_rows_are_compared_with_table_4_1(tmp_path):
    a = write_results(tmp_path / "a", {"ambi_viabench_val": via_values(M1, J1),
                                       "ambi_viabench_val_zs_cot": via_values(M2, M2)}, model="Qwen2.5-VL-7B-Instruct")  # fmt: skip
    t = table(build_tables(load_runs([a]), compare_paper=True), "via_table_4_1")
    assert [(r.label, r.setting) for r in t.run_rows()] == [("Qwen2.5-VL-7B-Instruct", "normal"),
                                                            ("Qwen2.5-VL-7B-Instruct", "zero-shot CoT")]  # fmt: skip
    diffs = {r.setting: r for r in t.rows if r.kind == "diff"}
    assert set(diffs) == {"normal", "zero-shot CoT"}
    assert diffs["zero-shot CoT"].cells[0].value == pytest.approx(100 * M2[0] - 18.49)  # Table 4.1's CoT row
    assert diffs["zero-shot CoT"].cells[4].value == pytest.approx(100 * M2[2] - 93.72)
    assert diffs["normal"].cells[0].value == pytest.approx(100 * M1[0] - 22.93)
    assert t.columns[-1] == "AVG" and sum(1 for r in t.rows if r.kind == "paper") == 6


def test_via_five_runs_give_mean_and_std(tmp_path):
    vals = [0.40, 0.42, 0.38, 0.45, 0.41]
    paths = [write_results(tmp_path / f"r{i}", {"ambi_viabench_val": via_values([v] * 6, [v] * 6)}, model="m")
             for i, v in enumerate(vals)]  # fmt: skip
    t = table(build_tables(load_runs(paths)), "via_main")
    (row,) = t.run_rows()
    assert row.n_runs == 5
    assert row.cells[0].value == pytest.approx(100 * statistics.mean(vals))
    assert row.cells[0].std == pytest.approx(100 * statistics.stdev(vals))
    assert "40.00" not in to_markdown([t]) and f"{100 * statistics.mean(vals):.2f} ±" in to_markdown([t])


RCID_A = {  # one task per illusion type and prompt family, with breakdown values that are not cells
    "ambi_rcid_contrast_pixel": {
        "human_like_rate": 0.41,
        "no_illusion_rate": 0.35,
        "na_rate": 0.24,
        "control_acc": 0.8,
        "human_like_rate_far": 0.99,
        "no_illusion_rate_left_right": 0.01,
        "control_acc_near": 0.5,
    },
    "ambi_rcid_contrast_human": {
        "human_like_rate": 0.37,
        "no_illusion_rate": 0.32,
        "na_rate": 0.31,
        "control_acc": 0.7,
    },
    "ambi_rcid_stripe_pixel": {"human_like_rate": 0.35, "no_illusion_rate": 0.30, "na_rate": 0.35, "control_acc": 0.9},
    # Figure 8's variants: each its own setting (before, all of them were read as "neutral")
    "ambi_rcid_contrast_cot": {"human_like_rate": 0.11, "no_illusion_rate": 0.80, "na_rate": 0.09},
    "ambi_rcid_contrast_fewshot_ni": {"human_like_rate": 0.05, "no_illusion_rate": 0.90, "na_rate": 0.05},
    "ambi_rcid_contrast_neutral": {"human_like_rate": 0.50, "no_illusion_rate": 0.30, "na_rate": 0.20,
                                   "human_like_rate_up_down": 0.7},
}  # fmt: skip
RCID_B = {  # one task per prompt family with per-type breakdowns (and an overall value that is not a cell)
    "ambi_rcid_pixel": {"human_like_rate": 0.5, "human_like_rate_contrast": 0.1, "no_illusion_rate_contrast": 0.8,
                        "na_rate_contrast": 0.1, "control_acc_contrast": 0.95, "human_like_rate_filter": 0.6},
}  # fmt: skip


def test_rcid_figure_4_and_table_1_from_metric_names(tmp_path):
    a = write_results(tmp_path / "a", RCID_A, model="LLaVA-1.5 (7B)")
    b = write_results(tmp_path / "b", RCID_B, model="Mixed")
    tables = build_tables(load_runs([a, b]), compare_paper=True)
    fig = table(tables, "rcid_figure_4")
    rows = {(r.label, r.setting): dict(zip(fig.columns, (c.value for c in r.cells))) for r in fig.run_rows()}
    assert set(rows) == {("LLaVA-1.5 (7B)", "pixel prompts"), ("LLaVA-1.5 (7B)", "human prompts"),
                         ("LLaVA-1.5 (7B)", "neutral prompts"), ("Mixed", "pixel prompts")}  # fmt: skip
    assert rows[("LLaVA-1.5 (7B)", "neutral prompts")]["Contrast Human-like"] == pytest.approx(50.0)
    pix = rows[("LLaVA-1.5 (7B)", "pixel prompts")]
    assert pix["Contrast No Illusion"] == pytest.approx(35.0) and pix["Contrast Human-like"] == pytest.approx(41.0)
    assert pix["Contrast N/A"] == pytest.approx(24.0) and pix["Contrast Accuracy (controls)"] == pytest.approx(80.0)
    assert pix["Stripe Human-like"] == pytest.approx(35.0) and pix["Filter Human-like"] is None
    mixed = rows[("Mixed", "pixel prompts")]
    assert mixed["Contrast Human-like"] == pytest.approx(10.0) and mixed["Filter Human-like"] == pytest.approx(60.0)
    t1 = table(tables, "rcid_table_1")
    first = dict(zip(t1.columns, (c.value for c in t1.rows[0].cells)))
    assert first["Contrast pixel NI"] == pytest.approx(35.0) and first["Contrast human HL"] == pytest.approx(37.0)
    diff = next(r for r in t1.rows if r.kind == "diff")
    assert diff.cells[0].value == pytest.approx(35.0 - 35.4) and diff.cells[1].value == pytest.approx(41.0 - 41.2)
    fig8 = table(tables, "rcid_figure_8")
    rows8 = {r.setting: dict(zip(fig8.columns, (c.value for c in r.cells))) for r in fig8.run_rows()}
    assert list(rows8) == ["simple prompt", "CoT", "few-shot NI"]
    assert rows8["CoT"]["Contrast No Illusion"] == pytest.approx(80.0)
    assert rows8["few-shot NI"]["Contrast Human-like"] == pytest.approx(5.0)
    assert (
        rows8["simple prompt"]["Contrast N/A"] == pytest.approx(20.0)
        and "Contrast Accuracy (controls)" not in rows8["CoT"]
    )


def test_formats_render_the_same_cells(tmp_path):
    a = write_results(tmp_path / "a", {"ambi_viabench_val": via_values(M1, J1)}, model="m1")
    t = table(build_tables(load_runs([a])), "via_main")
    md = to_markdown([t])
    lines = [ln for ln in md.splitlines() if ln.startswith("| ")]
    header, first = ([c.strip() for c in ln.strip("|").split("|")] for ln in lines[:2])
    assert header[:4] == ["Model", "Setting", "VA Match", "VA Judge"] and header[-2:] == ["AVG", "Rank"]
    avg = 100 * (sum(M1) + sum(J1)) / 12
    assert first[:4] == ["m1", "normal", "20.00", "25.00"] and first[-2:] == [f"{avg:.2f}", "1"]
    tex = to_latex([t])
    assert r"\begin{tabular}{llrrrrrrrrrrrrrr}" in tex and "m1 & normal & 20.00 & 25.00" in tex
    data = json.loads(to_json([t]))
    assert data["tables"][0]["rows"][0]["cells"][0] == {"value": pytest.approx(20.0)}
    csv = to_csv([t]).splitlines()
    assert csv[1].startswith("via_main,m1,normal,run,VA Match,20.0")


def samples_file(path: Path, task: str, correct: list[bool], breakdown: list[str] | None = None) -> None:
    rows = []
    for i, ok in enumerate(correct):
        item = {"id": f"r{i}", "task_type": "open", "parsed": True, "correct": ok,
                "breakdown": {"category": breakdown[i]} if breakdown else {}}  # fmt: skip
        rows.append({"doc_id": i, "acc": item})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def two_models(tmp_path: Path) -> tuple[list[bool], ...]:
    """Results folders ``a`` and ``b`` (models model-a, model-b) with logged samples of two Table 9 categories;
    returns the per-item correctness (color a, color b, multi-scene a, multi-scene b)."""
    import random

    rng = random.Random(0)
    ca = [rng.random() < 0.7 for _ in range(40)]
    cb = [rng.random() < 0.4 for _ in range(40)]
    hy = [rng.random() < 0.2 for _ in range(30)]
    ms = [rng.random() < 0.6 for _ in range(30)]
    for folder, color, hybrid in (("a", ca, hy), ("b", cb, ms)):
        path = write_results(tmp_path / folder, {"ambibench_color_open": {"acc": sum(color) / 40},
                                                 "ambibench_multiscene_open": {"acc": sum(hybrid) / 30}},
                             model=f"model-{folder}")  # fmt: skip
        samples_file(path.parent / "x_samples_ambibench_color_open.jsonl", "ambibench_color_open", color)
        samples_file(path.parent / "x_samples_ambibench_multiscene_open.jsonl", "", hybrid)
    return ca, cb, hy, ms


def test_model_and_category_tests_from_logged_samples(tmp_path):
    ca, cb, hy, ms = two_models(tmp_path)
    runs = load_runs([tmp_path / "a", tmp_path / "b"])
    welch = model_tests(runs)
    assert [r["column"] for r in welch] == ["Multi-Scene (open)", "Color"]
    color = welch[1]
    ref = sps.ttest_ind([100.0 * x for x in ca], [100.0 * x for x in cb], equal_var=False)
    assert color["p"] == pytest.approx(ref.pvalue) and color["samples"] == "items"
    assert color["p_bonferroni"] == pytest.approx(2 * ref.pvalue)  # two comparisons in the block
    paired = model_tests(runs, test="paired")
    ref = sps.ttest_rel([100.0 * x for x in ca], [100.0 * x for x in cb])
    assert paired[1]["p"] == pytest.approx(ref.pvalue) and paired[1]["test"] == "paired"
    cats = category_tests(runs)
    assert [(r["comparison"], r["column"]) for r in cats] == [("model-a", "Color vs Multi-Scene (open)"),
                                                              ("model-b", "Color vs Multi-Scene (open)")]  # fmt: skip
    ref = sps.ttest_ind([100.0 * x for x in ca], [100.0 * x for x in hy], equal_var=False)
    assert cats[0]["p"] == pytest.approx(ref.pvalue) and cats[0]["p_bonferroni"] == pytest.approx(ref.pvalue)
    report = build_report([tmp_path / "a", tmp_path / "b"], n_boot=0)
    write_report(report, tmp_path / "rep", formats=["md"], plots=False)
    assert "## Significance tests" in (tmp_path / "rep" / "report.md").read_text()


def test_paper_tables_10_and_11_are_shown_beside_the_tests(tmp_path):
    from ambi_plugin.reports.reference import reference_table

    two_models(tmp_path)
    plain = build_report([tmp_path / "a", tmp_path / "b"], n_boot=0)
    assert plain.tests and not plain.paper_tests  # reference rows only with --compare-paper
    report = build_report([tmp_path / "a", tmp_path / "b"], n_boot=0, compare_paper=True)
    write_report(report, tmp_path / "rep", formats=["md", "latex", "html", "json"], plots=False)
    md = (tmp_path / "rep" / "report.md").read_text()
    tests_at = md.index("## Significance tests")
    for key, n_rows in (("ab_table_10", 12), ("ab_table_11", 2)):
        ref = reference_table(key)
        at = md.index(f"### Paper: AmbiBench {ref['title']}")
        assert at > tests_at
        lines = [ln for ln in md[at:].split("\n\n", 2)[1].splitlines() if ln.startswith("| paper: ")]
        assert len(lines) == n_rows == len(ref["rows"])
        for line, row in zip(lines, ref["rows"]):  # every printed p-value, as printed (4 significant digits)
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert cells == [f"paper: {row['name']}", *(f"{v:.4g}" for v in row["values"])], row["name"]
    assert re.search(r"\| paper: GPT5 +\| 0 +\| 1\.865 +\|", md)  # the Bonferroni product uncapped, as printed
    assert "4.26e-06" in md
    tex = (tmp_path / "rep" / "report.tex").read_text()
    assert tex.count(r"\begin{tabular}") == md.count("\n## ") + 2 and "Paper: AmbiBench Table 10" in tex
    html = (tmp_path / "rep" / "report.html").read_text()
    assert html.count("<h3 id='paper-ab_table_1") == 2 and "1.865" in html
    keys = [t["key"] for t in json.loads((tmp_path / "rep" / "report.json").read_text())["tables"]]
    assert keys[-2:] == ["ab_table_10", "ab_table_11"]


def test_cli_errors_speak_to_the_user(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no lmms-eval results JSON" in capsys.readouterr().err
    a = write_results(tmp_path / "a", {"ambi_viabench_val": via_values(M1, J1)}, model="m1")
    assert main(["report", str(a), "--format", "pdf", "--out", str(tmp_path / "o")]) == 2
    assert "--format" in capsys.readouterr().err


def test_illusionbench_rule_and_llm_rows_and_ambibench_table_2_avg(tmp_path):
    keys = ("classic", "real_scene", "no_illusion", "ishihara", "trap", "easy", "neutral", "hard")
    rule = {f"acc_{k}": 0.1 * (i + 1) for i, k in enumerate(keys)} | {"acc": 0.5}
    llm = {f"acc_llm_{k}": 0.05 * (i + 1) for i, k in enumerate(keys)} | {"acc_llm": 0.25}
    ab = {"ambibench_multiscene_open": {"acc": 0.5}, "ambibench_multiscene_localization": {"ap50_single": 0.25},
          "ambibench_mixed_region": {"acc": 0.0}}  # fmt: skip
    a = write_results(tmp_path / "a", {"ambi_illusionbench_tf_llm": rule | llm, **ab}, model="GPT-4o")
    tables = build_tables(load_runs([a]), compare_paper=True)
    t = table(tables, "ib_table_ii")
    rows = [r for r in t.run_rows()]
    assert [(r.label, r.setting) for r in rows] == [("GPT-4o", "rule-based"), ("GPT-4o", "LLM-assisted")]
    assert [c.value for c in rows[0].cells] == pytest.approx([0.1 * (i + 1) for i in range(8)] + [0.5])
    assert [c.value for c in rows[1].cells] == pytest.approx([0.05 * (i + 1) for i in range(8)] + [0.25])
    diffs = [r for r in t.rows if r.kind == "diff"]
    assert len(diffs) == 2 and diffs[0].cells[-1].value == pytest.approx(0.5 - 0.8059)
    t2 = table(tables, "ab_table_2")
    got = dict(zip(t2.columns, (c.value for c in t2.rows[0].cells)))
    assert got["Multi-scene Open"] == 50.0 and got["Multi-scene loc(single)"] == 25.0 and got["Mixed Region"] == 0.0
    assert got["AVG"] == pytest.approx(25.0) and got["Mixed Open"] is None  # 0 counts, a missing cell does not
    # the paper's Table 2 AVG, kept as printed, carries its mark into the report
    qwen = next(r for r in t2.rows if r.kind == "paper" and r.label == "Qwen2.5-VL-7B-Instruct")
    avg = qwen.cells[t2.columns.index("AVG")]
    assert avg.value == 19.89 and "17.34" in avg.mark and "! paper: Qwen2.5-VL-7B-Instruct / AVG" in to_markdown([t2])


def test_rank_ties_share_the_best_rank(tmp_path):
    paths = [write_results(tmp_path / n, {"ambi_viabench_val": via_values(m, m)}, model=n)
             for n, m in (("a", M1), ("b", M1), ("c", M2))]  # fmt: skip
    t = table(build_tables(load_runs(paths)), "via_main")
    assert [r.cells[-1].value for r in t.run_rows()] == [2.0, 2.0, 1.0]  # sum(M2) > sum(M1)
