"""IllusionBench read as published: the authors' Image_properties.json + IllusionDataset.zip (dirty rows reported,
skipped and counted), lmms-eval's copy as its converter writes it (letters, integer levels, no descriptions), the HF
cache offline, and the tasks end to end through the real lmms-eval CLI on both layouts."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest
from illusion_fixtures import illusionbench_lmms_hub_folder
from published_layouts import hub_cache, illusionbench_entries, illusionbench_lmms_copy, illusionbench_release

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks.illusionbench.release import (
    AUTHORS_REPO,
    FLAG_CATEGORY,
    FLAG_DIFFICULTY,
    FLAG_FFFD,
    materialize_folder,
    option_count,
)
from ambi_plugin.benchmarks.release import BadRowError, LoadReport, read_report
from ambi_plugin.core.answers import gold_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.runtime.taskindex import index


@pytest.fixture(scope="module")
def authors(tmp_path_factory) -> Path:
    return illusionbench_release(tmp_path_factory.mktemp("ib") / "IllusionBench")


@pytest.fixture(scope="module")
def lmms_copy(tmp_path_factory) -> Path:
    return illusionbench_lmms_copy(tmp_path_factory.mktemp("ib_lmms") / "IllusionBench")


def _records(root: Path) -> dict[str, list[dict]]:
    return {p.stem: read_records(p) for p in sorted(Path(root).glob("illusionbench_*.jsonl"))}


def test_option_markers_are_counted_in_order():
    assert option_count("Q? i. a ii. b iii. c iv. d") == 4
    assert option_count("Which? i. a ii. b iii. c iv. d v. e vi. f") == 6
    assert option_count("(i) a (ii) b") == 2
    assert option_count("no options here, i.e. none") == 0


def test_the_authors_release_reads_with_every_quirk_reported(authors):
    out = materialize_folder(authors)
    recs = _records(out)
    report = read_report(out)
    entries = illusionbench_entries()
    n_questions = sum(len(e["qa_data"]) for e in entries)
    assert report["rows_read"] == n_questions + len(entries)  # every question, and every entry's Description
    assert report["identity"]["adds_up"] and report["items_loaded"] == 9 + 6 + 8
    reasons = {s["id"]: s["reason"] for s in report["skipped"]}
    assert reasons["illusion_00.png:mc2"].startswith("more than four options: 6 option markers (up to vi.)")
    assert reasons["illusion_01.png:mc2"].startswith("answer not among the options")
    assert reasons["illusion_02.png:tf2"].startswith("bad true/false answer")
    assert reasons["missing_from_zip.png:tf0"].startswith("missing image")
    assert reasons["missing_from_zip.png:desc"].startswith("missing image")
    assert report["skipped_by_task"] == {
        "ambi_illusionbench_description": 1,
        "ambi_illusionbench_mc": 2,
        "ambi_illusionbench_tf": 2,
    }
    # the clean rows of every image are kept; U+FFFD text is kept as published and its row flagged by id
    assert len(recs["illusionbench_tf"]) == 9 and len(recs["illusionbench_mc"]) == 6
    assert len(recs["illusionbench_description"]) == 8
    assert any("\ufffd" in r["question"] for r in recs["illusionbench_tf"])
    assert report["flagged"][FLAG_FFFD] == ["illusion_03.png:tf2"]
    assert any("._" in n for n in report["notes"])
    # letters as published: A classic, B real scene, C trap; no Ishihara / no-illusion code
    cats = {r["image_name"]: r["breakdown"]["image_category"] for r in recs["illusionbench_tf"]}
    assert cats["illusion_00.png"] == "classic" and cats["illusion_02.png"] == "real_scene"
    assert cats["illusion_04.png"] == "trap"
    # no "Difficult Level" / no "Category": kept, breakdown "unknown", ids flagged (never guessed, never dropped)
    tf = {r["image_name"]: r for r in recs["illusionbench_tf"]}
    assert tf["no_level.png"]["breakdown"] == {"image_category": "classic", "difficulty": "unknown"}
    assert tf["no_category.png"]["breakdown"] == {"image_category": "unknown", "difficulty": "neutral"}
    assert report["flagged"][FLAG_DIFFICULTY] == ["no_level.png:tf0", "no_level.png:desc"]
    assert report["flagged"][FLAG_CATEGORY] == ["no_category.png:tf0", "no_category.png:desc"]
    mc = {r["id"]: r for r in recs["illusionbench_mc"]}
    assert mc["illusion_01.png:mc1"]["source_options"][mc["illusion_01.png:mc1"]["source_answer_index"]] == "A t-shirt"
    assert mc["illusion_00.png:mc1"]["source_options"][mc["illusion_00.png:mc1"]["source_answer_index"]] == "A cup"
    assert all((out / r["image"]).is_file() for rs in recs.values() for r in rs)
    assert not list((out / "images").glob("._*"))


@pytest.mark.parametrize("layout", ["authors", "lmms"])
def test_a_partial_category_map_overrides_one_letter(authors, lmms_copy, layout, monkeypatch):
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_CATEGORY_MAP", "C=ishihara")
    recs = _records(materialize_folder(authors if layout == "authors" else lmms_copy))
    cats = {r["image_name"]: r["breakdown"]["image_category"] for r in recs["illusionbench_tf"]}
    assert set(cats.values()) == {"classic", "real_scene", "ishihara", "unknown"}
    assert cats["illusion_00.png"] == "classic" and cats["illusion_02.png"] == "real_scene"


def test_lmms_eval_copy_as_its_converter_writes_it(lmms_copy):
    """Letters A/B/C, integer levels (0 when missing), "Unknown" category, ids ``<image>_<n>``, no descriptions."""
    out = materialize_folder(lmms_copy)
    recs = _records(out)
    report = read_report(out)
    assert report["rows_read"] == 18  # the converter leaves out the image missing from the zip
    assert report["identity"]["items_loaded"] == 15 and report["identity"]["adds_up"]  # 18 = 15 + 3 skipped
    kinds = {s["id"]: s["reason"].split(":")[0] for s in report["skipped"]}
    assert kinds == {
        "illusion_00.png_2": "more than four options",
        "illusion_01.png_5": "answer not among the options",
        "illusion_02.png_8": "bad true/false answer",
    }
    assert sorted(recs) == ["illusionbench_mc", "illusionbench_tf"]
    assert len(recs["illusionbench_tf"]) == 9 and len(recs["illusionbench_mc"]) == 6
    by_id = {r["id"]: r for r in recs["illusionbench_tf"]}
    assert by_id["no_level.png_16"]["breakdown"]["difficulty"] == "unknown"  # level 0: not "easy", not dropped
    assert by_id["no_category.png_17"]["breakdown"]["image_category"] == "unknown"
    assert by_id["illusion_00.png_0"]["breakdown"] == {"image_category": "classic", "difficulty": "easy"}
    assert report["flagged"][FLAG_DIFFICULTY] == ["no_level.png_16"]
    assert report["flagged"][FLAG_CATEGORY] == ["no_category.png_17"]
    assert report["flagged"][FLAG_FFFD] == ["illusion_03.png_11"]
    assert "no golden descriptions" in report["absent"]["illusionbench_description"]
    assert "no records: illusionbench_description" in LoadReport(**_fields(report)).summary()


def _fields(report: dict) -> dict:
    keep = ("benchmark", "source", "strict", "rows_read", "skipped", "notes", "flagged", "absent")
    return {k: report[k] for k in keep}


def test_a_task_without_records_is_explained_not_fatal(lmms_copy, monkeypatch):
    from ambi_plugin.data.no_records import NO_RECORDS
    from ambi_plugin.data.sources import DatasetSpecError, resolve_jsonl

    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(lmms_copy))
    with pytest.raises(DatasetSpecError, match="no golden descriptions"):
        resolve_jsonl("ambi://illusionbench", "illusionbench_description")  # VLMEvalKit, or a direct call
    stand_in = resolve_jsonl("ambi://illusionbench", "illusionbench_description", allow_empty=True)
    assert len(stand_in.read_text().splitlines()) == 1  # built by lmms-eval, never sent to a model
    assert "no golden descriptions" in NO_RECORDS[("ambi://illusionbench", "illusionbench_description")]


def test_strict_mode_makes_a_bad_row_fatal(authors, monkeypatch):
    monkeypatch.setenv("AMBI_STRICT", "1")
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIFFICULTY_MAP", "9=hard")  # a fresh cache key
    with pytest.raises(BadRowError, match="strict mode"):
        materialize_folder(authors)


def test_local_zip_and_hub_cache_offline(authors, tmp_path, monkeypatch):
    archive = tmp_path / "IllusionBench.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in authors.rglob("*"):
            if p.is_file():
                zf.write(p, Path("IllusionBench") / p.relative_to(authors))
    reference = {k: len(v) for k, v in _records(materialize_folder(authors)).items()}
    assert {k: len(v) for k, v in _records(IB.materialize_local(archive)).items()} == reference

    import huggingface_hub.constants as C

    monkeypatch.setattr(C, "HF_HUB_CACHE", str(hub_cache(tmp_path / "hf", AUTHORS_REPO, authors)))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    monkeypatch.delenv("AMBI_ILLUSIONBENCH_HUB", raising=False)
    root = IB.materialize_from_hub()
    assert read_report(root)["source"] == f"hf://datasets/{AUTHORS_REPO}"
    assert {k: len(v) for k, v in _records(root).items()} == reference


def test_lmms_eval_copy_skips_and_counts_bad_rows(tmp_path):
    import datasets

    hub, plain = illusionbench_lmms_hub_folder(tmp_path)
    ds = datasets.load_dataset(str(hub))["test"]
    mc0 = next(r for r in ds if r["question_type"] == "select")
    bad = [
        {**mc0, "question_id": "bad_answer", "answer": "vi"},
        {**ds[0], "question_id": "bad_type", "question_type": "essay"},
        {**ds[0], "question_id": "odd_category", "category": "Q"},  # kept: category unknown, flagged
    ]
    dirty = datasets.concatenate_datasets([ds, datasets.Dataset.from_list(bad, features=ds.features)])
    folder = tmp_path / "dirty"
    (folder / "data").mkdir(parents=True)
    dirty.to_parquet(str(folder / "data" / "test-00000-of-00001.parquet"))
    root = materialize_folder(folder)
    report = read_report(root)
    assert report["skipped_total"] == 2
    kinds = {s["id"]: s["reason"].split(":")[0] for s in report["skipped"]}
    assert kinds == {"bad_answer": "answer not among the options", "bad_type": "unknown question type"}
    assert report["flagged"][FLAG_CATEGORY] == ["odd_category"]
    assert sum(len(v) for v in _records(root).values()) == len(plain) + 1


@pytest.mark.e2e
def test_illusionbench_all_runs_on_lmms_evals_copy(lmms_copy, tmp_path, offline_env):
    """The copy has no golden descriptions: the group still runs, the description task reports NaN with the reason,
    the other tasks are scored."""
    recs = _records(materialize_folder(lmms_copy))
    task = {"illusionbench_tf": "ambi_illusionbench_tf", "illusionbench_mc": "ambi_illusionbench_mc"}
    answers = [{"task": task[k], "id": r["id"], "response": gold_response(r)} for k, rs in recs.items() for r in rs]
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_ILLUSIONBENCH_DIR": str(lmms_copy)}
    run = run_lmms_eval(replay_args(preds, "ambi_illusionbench_all"), output=tmp_path / "out", env=env, timeout=900)
    assert run.results is not None, run.tail()
    got = task_metrics(run.results)
    assert sorted(got) == ["ambi_illusionbench_description", "ambi_illusionbench_mc", "ambi_illusionbench_tf"]
    for name in ("ambi_illusionbench_tf", "ambi_illusionbench_mc"):
        assert got[name]["acc"] == 1.0 and got[name]["acc_classic"] == got[name]["acc_trap"] == 1.0
        assert got[name]["unparsed_rate"] == 0.0
    declared = [m["metric"] for m in index()["ambi_illusionbench_description"].config["metric_list"]]
    assert sorted(got["ambi_illusionbench_description"]) == sorted(declared)
    assert all(math.isnan(v) for v in got["ambi_illusionbench_description"].values())
    assert run.results["n-samples"]["ambi_illusionbench_description"]["effective"] == 0
    data = run.results["ambi_plugin"]["data"]
    assert data["ambi_illusionbench_description"]["records"] == 0
    assert "no golden descriptions" in data["ambi_illusionbench_description"]["no_records"]
    assert "no_records" not in data["ambi_illusionbench_tf"]
    assert data["ambi_illusionbench_mc"]["skipped_by_reason"] == {
        "answer not among the options": 1,
        "more than four options": 1,
    }
    assert "has no records 'illusionbench_description'" in run.stderr


@pytest.mark.e2e
def test_illusionbench_all_runs_on_the_authors_layout(authors, tmp_path, offline_env):
    recs = _records(materialize_folder(authors))
    task = {"illusionbench_tf": "ambi_illusionbench_tf", "illusionbench_mc": "ambi_illusionbench_mc",
            "illusionbench_description": "ambi_illusionbench_description"}  # fmt: skip
    answers = [{"task": task[k], "id": r["id"], "response": gold_response(r)} for k, rs in recs.items() for r in rs]
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_ILLUSIONBENCH_DIR": str(authors)}
    run = run_lmms_eval(replay_args(preds, "ambi_illusionbench_all"), output=tmp_path / "out", env=env, timeout=900)
    assert run.results is not None, run.tail()
    got = task_metrics(run.results)
    for name in ("ambi_illusionbench_tf", "ambi_illusionbench_mc"):
        assert got[name]["acc"] == 1.0
        assert got[name]["acc_classic"] == got[name]["acc_trap"] == 1.0
        assert math.isnan(got[name]["acc_ishihara"]) and math.isnan(got[name]["acc_no_illusion"])
    # the golden descriptions replayed score the best value, 2, overall and per published category / difficulty
    desc = got["ambi_illusionbench_description"]
    assert desc["desc_score"] == 2.0 and desc["desc_score_std"] == 0.0
    assert desc["desc_score_classic"] == desc["desc_score_real_scene"] == desc["desc_score_trap"] == 2.0
    assert desc["desc_score_easy"] == desc["desc_score_hard"] == 2.0
    assert math.isnan(desc["desc_score_ishihara"]) and math.isnan(desc["desc_score_no_illusion"])
    assert run.results["n-samples"]["ambi_illusionbench_description"]["effective"] == len(
        recs["illusionbench_description"]
    )
    data = run.results["ambi_plugin"]["data"]
    assert data["ambi_illusionbench_mc"]["skipped"] == 2
    assert data["ambi_illusionbench_mc"]["skipped_by_reason"] == {
        "answer not among the options": 1,
        "more than four options": 1,
    }
    assert data["ambi_illusionbench_tf"]["skipped_by_reason"] == {"bad true/false answer": 1, "missing image": 1}
