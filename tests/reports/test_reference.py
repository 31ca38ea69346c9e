"""The papers' reference rows shipped as data: complete, checked against the papers' own arithmetic."""

from __future__ import annotations

import pytest

from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.benchmarks.ambibench import tables as AT
from ambi_plugin.reports import layouts as L
from ambi_plugin.reports.reference import BENCHMARKS, find_paper_row, load_reference, reference_table


def test_every_table_has_rows_of_its_width():
    for bench in BENCHMARKS:
        data = load_reference(bench)
        for key, table in data["tables"].items():
            assert table["rows"], key
            for row in table["rows"]:
                assert len(row["values"]) == len(table["columns"]), (key, row["name"])


def test_every_layout_column_label_matches_its_reference_columns():
    for layout in L.PAPER_LAYOUTS:
        ref = reference_table(layout.key)
        if ref is None:
            continue
        labels = {c.label for c in layout.columns} | {"AVG", "Avg.", "Rank"}
        assert set(ref["columns"]) <= labels, layout.key


def test_row_counts_per_paper():
    tables = {k: t for b in BENCHMARKS for k, t in load_reference(b)["tables"].items()}
    assert len(tables["ab_table_1"]["rows"]) == 14  # 12 models, two human rows
    assert len(tables["ib_table_ii"]["rows"]) == 13 and tables["ib_table_ii"]["rows"][-1]["name"] == "Human"
    assert len(tables["iv_table_1"]["rows"]) == 8 and len(tables["iv_table_8"]["rows"]) == 11
    assert len(tables["via_main"]["rows"]) == 26  # 2 blind baselines, 23 models, human
    assert len(tables["rcid_table_1"]["rows"]) == 2


def test_ambibench_table_1_avg_is_the_mean_of_the_available_columns():
    rows = {r["name"]: r["values"] for r in reference_table("ab_table_1")["rows"]}
    for name, vals in rows.items():
        if name == "Human":
            continue  # needs Table 12's values: the second human row
        assert AT.paper_avg(vals[:-1]) == pytest.approx(vals[-1], abs=0.011), name
    human = rows["Human (Table 12 hybrid / multi-view)"]
    assert AT.paper_avg(human[:-1]) == pytest.approx(74.45, abs=0.011)


def test_illusionvqa_contradictory_cells_are_marked_and_kept():
    t1 = {(r["name"], r["setting"]): r for r in reference_table("iv_table_1")["rows"]}
    gpt4v = t1[("GPT4V", "4-shot")]
    assert gpt4v["values"][0] == 58.96 and "Impossible Object" in gpt4v["marks"] and "Total" in gpt4v["marks"]
    gemini = t1[("Gemini-Pro", "0-shot")]
    assert gemini["values"][IV.CATEGORIES.index("upside-down")] == 57.14 and "Upside-Down" in gemini["marks"]
    # every column checked by hand: count = round(acc * n); a column is unmarked iff its counts are whole and add up
    counts = [IV.PAPER_COUNTS[c] for c in IV.CATEGORIES]
    for row in t1.values():
        ks = [round(v * n / 100) for v, n in zip(row["values"], counts)]
        whole = all(abs(100 * k / n - v) < 0.006 for k, v, n in zip(ks, row["values"], counts))
        total_ok = abs(100 * sum(ks) / 435 - row["values"][-1]) < 0.006
        assert (whole and total_ok) == (not row.get("marks")), row["name"]


def test_via_avg_is_the_mean_of_the_12_cells_unless_marked():
    for row in reference_table("via_main")["rows"]:
        mean = sum(row["values"][:12]) / 12
        assert (abs(mean - row["values"][12]) < 0.006) == (not row.get("marks")), row["name"]
    gem = next(r for r in reference_table("via_main")["rows"] if r["name"] == "Gemini-3-pro")
    assert gem["values"][12] == 69.23 and gem["values"][13] == 1


def test_find_paper_row_by_name_alias_and_setting():
    t1 = reference_table("ab_table_1")
    assert find_paper_row(t1, "Qwen/Qwen2.5-VL-7B-Instruct")["name"] == "Qwen2.5-VL-7B-Instruct"
    assert find_paper_row(t1, "llava-1.5-13b-hf")["name"] == "llava-hf/llava-1.5-13b-hf"
    assert find_paper_row(t1, "my-run", aliases={"my-run": "GPT5"})["name"] == "GPT5"
    iv = reference_table("iv_table_3")
    assert find_paper_row(iv, "GPT4V", "4-shot + CoT")["values"] == [49.7]
    assert find_paper_row(t1, "unknown-model") is None


def test_ambibench_table_2_avg_is_marked_exactly_where_it_is_not_the_mean_of_its_cells():
    rows = reference_table("ab_table_2")["rows"]
    for row in rows:
        cells = [v for v in row["values"][:-1] if v is not None]
        mean = sum(cells) / len(cells)
        # each printed cell and the printed AVG are rounded to 0.005: to rounding, they agree within 0.01
        off = abs(mean - row["values"][-1]) > 0.0101
        marks = row.get("marks") or {}
        assert off == bool(marks), row["name"]
        if off:
            assert set(marks) == {"AVG"} and f"{mean:.2f}" in marks["AVG"], row["name"]
    assert sum(1 for r in rows if r.get("marks")) == 11  # all but InternVL3-8B and the human row
    qwen = next(r for r in rows if r["name"] == "Qwen2.5-VL-7B-Instruct")
    assert qwen["values"][-1] == 19.89 and "17.34" in qwen["marks"]["AVG"]  # kept as printed
    assert not any(r.get("marks") for r in reference_table("ab_table_1")["rows"])


def test_ambibench_tables_module_reads_the_reference_json():
    """The AmbiBench numbers are kept once (the JSON); the module's constants are its rows."""

    def rows(key):
        return {r["name"]: tuple(r["values"]) for r in reference_table(key)["rows"]}

    t1 = rows("ab_table_1")
    second_human = t1.pop("Human (Table 12 hybrid / multi-view)")
    assert AT.PAPER_TABLE1 == t1 and AT.HUMAN_TABLE1_WITH_TABLE12 == second_human[:-1]
    assert AT.PAPER_TABLE2 == rows("ab_table_2") and AT.PAPER_TABLE12 == rows("ab_table_12")
    assert AT.PAPER_TABLE14 == rows("ab_table_14")
    # the second human row is Table 1's with Table 12's hybrid and multi-view (combined) values
    human12 = AT.PAPER_TABLE12["human"]
    want = list(AT.PAPER_TABLE1["Human"][:-1])
    want[4], want[6] = human12[0], human12[6]
    assert list(AT.HUMAN_TABLE1_WITH_TABLE12) == want


def _via_json_row(name: str) -> dict:
    blind = name.endswith(" (blind)")
    base = name.removesuffix(" (blind)")
    rows = [r for r in reference_table("via_main")["rows"] if r["name"] == base]
    if blind:
        rows = [r for r in rows if "blind" in r.get("group", "").lower()]
    assert len(rows) == 1, name
    return rows[0]


def test_viabench_spec_rows_agree_with_the_reference_json():
    from ambi_plugin.benchmarks.viabench import spec as S

    cols = reference_table("via_main")["columns"]
    avg_col = next(c for c in cols if c.rstrip(".").upper() == "AVG")
    for name, row in S.PAPER_ROWS.items():
        ref = _via_json_row(name)
        for cat, (match, judge) in zip(S.CATEGORIES, row["cells"]):
            assert ref["values"][cols.index(f"{cat.upper()} Match")] == match, (name, cat)
            assert ref["values"][cols.index(f"{cat.upper()} Judge")] == judge, (name, cat)
        assert ref["values"][cols.index(avg_col)] == row["avg"], name


def test_rcid_table_1_agrees_with_the_reference_json():
    from ambi_plugin.benchmarks.rcid.tables import TABLE1

    ref = reference_table("rcid_table_1")
    rows = {r["name"]: dict(zip(ref["columns"], r["values"])) for r in ref["rows"]}
    assert set(rows) == set(TABLE1)
    for model, cells in TABLE1.items():
        for key, (ni, hl) in cells.items():
            kind, family = key.split("_")
            assert rows[model][f"{kind.title()} {family} NI"] == ni, (model, key)
            assert rows[model][f"{kind.title()} {family} HL"] == hl, (model, key)
